/// Loudness range (LRA) so far, per EBU Tech 3342 as revised in 2016: the spread between the
/// 10th and the 95th percentile of the short-term loudness values (3 s windows, one every
/// 100 ms), among those above the absolute gate (-70 LUFS) and above the relative gate (20 LU
/// under the power mean of the values above the absolute gate).
///
/// Values are counted in the same 0.01 LU bins as `IntegratedGate` (fixed memory, whatever
/// the programme's length); a percentile reads as the middle of its bin, so the range is
/// within 0.01 LU of the one computed from the sorted list of values. Percentiles are taken
/// by rank as libebur128 takes them: of n values, the one at index round((n - 1) * p).
public struct LoudnessRange {
    public static let relativeGateLu = -20.0
    public static let lowPercentile = 0.10
    public static let highPercentile = 0.95
    private static let absoluteGateEnergy = LoudnessMeter.energy(lufs: IntegratedGate.absoluteGateLufs)

    private var counts: [Int]
    /// Values above the absolute gate so far, and the sum of their energies.
    public private(set) var values = 0
    private var totalEnergy = 0.0

    public init() {
        counts = Array(repeating: 0, count: IntegratedGate.binCount)
    }

    /// Adds one short-term value's mean weighted energy; values under the absolute gate are
    /// ignored.
    public mutating func add(energy: Double) {
        guard energy >= Self.absoluteGateEnergy, energy.isFinite else { return }
        counts[IntegratedGate.bin(energy)] += 1
        values += 1
        totalEnergy += energy
    }

    /// The loudness range in LU (0 when no value passed the gates).
    public func range() -> Double {
        guard values > 0 else { return 0 }
        let threshold = totalEnergy / Double(values) * LoudnessMeter.energy(lu: Self.relativeGateLu)
        let first = IntegratedGate.firstPassingBin(threshold: threshold)
        guard first < counts.count else { return 0 }
        var n = 0
        for b in first..<counts.count { n += counts[b] }
        guard n > 0 else { return 0 }
        let lowRank = Int(Double(n - 1) * Self.lowPercentile + 0.5)
        let highRank = Int(Double(n - 1) * Self.highPercentile + 0.5)
        var low: Int?
        var seen = 0
        for b in first..<counts.count where counts[b] > 0 {
            seen += counts[b]
            if low == nil && seen > lowRank { low = b }
            if seen > highRank {
                return max(0, IntegratedGate.binCentreLufs(b) - IntegratedGate.binCentreLufs(low ?? b))
            }
        }
        return 0
    }
}
