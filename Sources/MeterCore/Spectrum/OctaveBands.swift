/// The fractional-octave bands of IEC 61260-1 with base-10 midbands: for 1/b octave (b = 1
/// or 3), midband fm = 1000 x G^(x/b) with G = 10^(3/10), edges fm x G^(-+1/(2b)). Thirds run
/// from 20 Hz to 20 kHz, octaves from 31.5 Hz to 16 kHz (nominal), each band kept while its
/// upper edge lies below 0.95 x Nyquist.
public struct OctaveBands: Sendable, Equatable {
    public struct Band: Sendable, Equatable {
        public let lower: Double
        public let mid: Double
        public let upper: Double
    }

    /// 1 or 3 bands per octave.
    public let fraction: Int
    public let bands: [Band]
    /// The octave ratio G = 10^(3/10).
    public static let ratio = PureMath.pow(10, 0.3)

    public init(fraction: Int, rate: Int) {
        self.fraction = fraction
        let b = Double(fraction)
        let range = fraction == 1 ? -5...4 : -17...13
        var list: [Band] = []
        for x in range {
            let mid = 1000 * PureMath.pow(Self.ratio, Double(x) / b)
            let half = PureMath.pow(Self.ratio, 1 / (2 * b))
            let band = Band(lower: mid / half, mid: mid, upper: mid * half)
            if band.upper <= 0.95 * Double(rate) / 2 { list.append(band) }
        }
        bands = list
    }

    public var count: Int { bands.count }
}
