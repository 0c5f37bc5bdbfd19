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

    /// The values' counts per bin as a Fenwick tree (1-based: node i covers the bins
    /// (i - lowbit(i), i]), so a percentile is found in O(log bins) and a frame can carry the
    /// range so far at no more cost than the end line.
    private var tree: [Int]
    /// Values above the absolute gate so far, and the sum of their energies.
    public private(set) var values = 0
    private var totalEnergy = 0.0

    public init() {
        tree = Array(repeating: 0, count: IntegratedGate.binCount + 1)
    }

    /// Adds one short-term value's mean weighted energy; values under the absolute gate are
    /// ignored.
    public mutating func add(energy: Double) {
        guard energy >= Self.absoluteGateEnergy, energy.isFinite else { return }
        var i = IntegratedGate.bin(energy) + 1
        while i < tree.count {
            tree[i] += 1
            i += i & -i
        }
        values += 1
        totalEnergy += energy
    }

    /// Values in the bins below `bin`.
    private func countBelow(_ bin: Int) -> Int {
        var n = 0
        var i = min(bin, tree.count - 1)
        while i > 0 {
            n += tree[i]
            i -= i & -i
        }
        return n
    }

    /// The bin of the value at `rank` (0-based) among all values in bin order.
    private func bin(ofRank rank: Int) -> Int {
        var pos = 0, remaining = rank
        var step = 1
        while step * 2 < tree.count { step *= 2 }
        while step > 0 {
            if pos + step < tree.count && tree[pos + step] <= remaining {
                pos += step
                remaining -= tree[pos]
            }
            step /= 2
        }
        return pos
    }

    /// The loudness range in LU (0 when no value passed the gates).
    public func range() -> Double {
        guard let b = bounds() else { return 0 }
        return max(0, b.high - b.low)
    }

    /// The 10th and the 95th percentile of the gated short-term values (LUFS), whose spread
    /// is the range; nil when no value passed the gates.
    public func bounds() -> (low: Double, high: Double)? {
        guard values > 0 else { return nil }
        let threshold = totalEnergy / Double(values) * LoudnessMeter.energy(lu: Self.relativeGateLu)
        let first = IntegratedGate.firstPassingBin(threshold: threshold)
        guard first < tree.count - 1 else { return nil }
        let below = countBelow(first)
        let n = values - below
        guard n > 0 else { return nil }
        let low = bin(ofRank: below + Int(Double(n - 1) * Self.lowPercentile + 0.5))
        let high = bin(ofRank: below + Int(Double(n - 1) * Self.highPercentile + 0.5))
        return (IntegratedGate.binCentreLufs(low), IntegratedGate.binCentreLufs(high))
    }
}
