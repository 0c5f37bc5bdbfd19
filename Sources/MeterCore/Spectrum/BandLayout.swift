/// Log-spaced FFT bands between fmin and fmax, snapped to FFT bins so that no band is empty.
///
/// Bin k (frequency k*rate/fftSize) belongs to the band [lo, hi) that contains it. Ideal edges
/// are log-spaced; each is moved up to the first bin at or above it, then edges are pushed apart
/// so every band owns at least one bin (first upward from the bottom, then downward from the
/// top). `edgesHz` are the snapped edges: the ones actually used, stated in the `start` line.
public struct BandLayout: Sendable, Equatable {
    /// First bin of each band, plus one past the last band's last bin (count = bands + 1).
    public let edgeBins: [Int]
    public let binHz: Double

    public var count: Int { edgeBins.count - 1 }

    /// Band b covers bins edgeBins[b] ..< edgeBins[b+1].
    public func bins(of band: Int) -> Range<Int> { edgeBins[band]..<edgeBins[band + 1] }

    /// [lo, hi) in Hz for every band, as used.
    public var edgesHz: [(Double, Double)] {
        (0..<count).map { (Double(edgeBins[$0]) * binHz, Double(edgeBins[$0 + 1]) * binHz) }
    }

    public init(settings s: MeterSettings) throws(SettingError) {
        try self.init(bands: s.bands, fftSize: s.fftSize, rate: s.rate, fmin: s.fmin, fmax: s.effectiveFmax)
    }

    /// Throws when fewer FFT bins than `bands` lie between fmin and fmax.
    public init(bands: Int, fftSize: Int, rate: Int, fmin: Double, fmax: Double) throws(SettingError) {
        let binHz = Double(rate) / Double(fftSize)
        self.binHz = binHz
        let nyquistBin = fftSize / 2
        // First bin at or above a frequency; bins with k*binHz >= edge belong at or above it.
        func firstBin(atOrAbove f: Double) -> Int {
            var k = Int((f / binHz).rounded(.up))
            if Double(k - 1) * binHz >= f { k -= 1 }  // guard against rounding of f/binHz
            return min(max(k, 1), nyquistBin + 1)
        }
        let lowBin = firstBin(atOrAbove: fmin)
        let highBin = firstBin(atOrAbove: fmax)  // one past the last bin below fmax
        guard highBin - lowBin >= bands else {
            throw SettingError(.bands, value: Double(bands),
                               allowed: .bandsWithinBins(bins: max(0, highBin - lowBin), fftSize: fftSize))
        }
        var edges = [Int](repeating: 0, count: bands + 1)
        let ratio = fmax / fmin
        for i in 0...bands {
            let f = fmin * PureMath.pow(ratio, Double(i) / Double(bands))
            edges[i] = firstBin(atOrAbove: f)
        }
        edges[0] = lowBin
        edges[bands] = highBin
        for i in 1...bands where edges[i] < edges[i - 1] + 1 { edges[i] = edges[i - 1] + 1 }
        if edges[bands] > highBin {
            edges[bands] = highBin
            for i in stride(from: bands - 1, through: 0, by: -1) where edges[i] > edges[i + 1] - 1 {
                edges[i] = edges[i + 1] - 1
            }
        }
        self.edgeBins = edges
    }

    public static func == (a: BandLayout, b: BandLayout) -> Bool {
        a.edgeBins == b.edgeBins && a.binHz == b.binHz
    }
}

