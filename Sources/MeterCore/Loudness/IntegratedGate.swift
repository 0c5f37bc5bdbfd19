/// Integrated loudness so far (BS.1770-4 gating), cheap enough to ask at every meter frame.
///
/// Gating blocks (400 ms, every 100 ms) above the absolute gate (-70 LUFS) go into a
/// histogram of 0.01 LU bins that keeps each bin's block count and exact energy sum in two
/// Fenwick trees, so the relative gate (-10 LU under the mean of the blocks above -70) and
/// the mean of the blocks above it take O(log bins) whatever the stream's length, in fixed
/// memory. Only the blocks in the one bin the relative gate falls into are decided by the
/// bin (counted when the gate lies in its lower half): a 0.01 LU question about blocks 10 LU
/// below the mean, which moves the result by far less than 0.01 LU. The tests check it against
/// libebur128's integrated loudness.
///
/// Gates merge (`merge`): the bins' counts and energies add, so the merged gate is exactly
/// the gate of all the streams' blocks together, as BS.1770 gates a programme made of them
/// (an album's loudness, ReplayGain's album gain, libebur128's `loudness_global_multiple`).
public struct IntegratedGate: Sendable, Equatable {
    public static let absoluteGateLufs = -70.0
    public static let relativeGateLu = -10.0
    static let binsPerLu = 100.0
    private static let topLufs = 40.0
    static let binCount = Int((topLufs - absoluteGateLufs) * binsPerLu)
    private static let absoluteGateEnergy = LoudnessMeter.energy(lufs: absoluteGateLufs)

    private var counts: [Int]
    private var energies: [Double]
    public private(set) var blocks = 0
    private var totalEnergy = 0.0

    public init() {
        counts = Array(repeating: 0, count: Self.binCount + 1)
        energies = Array(repeating: 0, count: Self.binCount + 1)
    }

    /// Adds one gating block's mean weighted energy; blocks under the absolute gate are ignored.
    public mutating func add(energy: Double) {
        guard energy >= Self.absoluteGateEnergy, energy.isFinite else { return }
        var i = Self.bin(energy) + 1   // Fenwick trees are 1-based
        while i <= Self.binCount {
            counts[i] += 1
            energies[i] += energy
            i += i & -i
        }
        blocks += 1
        totalEnergy += energy
    }

    /// Adds another stream's gating blocks (a Fenwick tree is a linear function of its
    /// histogram, so the trees add element by element).
    public mutating func merge(_ other: IntegratedGate) {
        for i in 0..<counts.count {
            counts[i] += other.counts[i]
            energies[i] += other.energies[i]
        }
        blocks += other.blocks
        totalEnergy += other.totalEnergy
    }

    /// The integrated loudness of the blocks so far (LUFS, -160 when none passed the gates).
    public var integratedLufs: Double { LoudnessMeter.lufs(energy: integratedEnergy()) }

    /// The gated mean energy (0 when no block passed both gates).
    public func integratedEnergy() -> Double {
        guard blocks > 0 else { return 0 }
        let threshold = totalEnergy / Double(blocks) * LoudnessMeter.energy(lu: Self.relativeGateLu)
        let (n, e) = prefix(Self.firstPassingBin(threshold: threshold))
        let count = blocks - n
        guard count > 0 else { return 0 }
        return (totalEnergy - e) / Double(count)
    }

    /// Count and energy of the blocks in bins 0 ..< `bins`.
    private func prefix(_ bins: Int) -> (Int, Double) {
        var n = 0
        var e = 0.0
        var i = min(bins, Self.binCount)
        while i > 0 {
            n += counts[i]
            e += energies[i]
            i -= i & -i
        }
        return (n, e)
    }

    /// The histogram bin (0.01 LU wide, from the absolute gate up) of a mean weighted energy.
    static func bin(_ energy: Double) -> Int {
        let l = LoudnessMeter.lufs(energy: energy)
        return min(binCount - 1, max(0, Int(((l - absoluteGateLufs) * binsPerLu).rounded(.down))))
    }

    /// The first bin whose values pass a relative gate at `threshold` (an energy): the bins
    /// above the gate's, and the gate's own when the gate lies in its lower half.
    static func firstPassingBin(threshold: Double) -> Int {
        let b = bin(threshold)
        let binLow = absoluteGateLufs + Double(b) / binsPerLu
        return LoudnessMeter.lufs(energy: threshold) - binLow < 0.5 / binsPerLu ? b : b + 1
    }

    /// The loudness in the middle of bin `b` (LUFS).
    static func binCentreLufs(_ b: Int) -> Double { absoluteGateLufs + (Double(b) + 0.5) / binsPerLu }
}
