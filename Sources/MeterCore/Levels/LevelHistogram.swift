/// Counts of levels in 0.05 dB bins from -160 to +40 dB, for percentile levels (L10, L50,
/// L90) over a stream of any length in fixed memory. Levels outside the range count in the
/// end bins.
public struct LevelHistogram: Sendable {
    public static let lowest = -160.0
    public static let highest = 40.0
    public static let binWidth = 0.05
    private var counts: [Int]
    public private(set) var total = 0

    public init() {
        counts = Array(repeating: 0, count: Int(((Self.highest - Self.lowest) / Self.binWidth).rounded()))
    }

    public mutating func add(_ db: Double) {
        let i = Int(((db - Self.lowest) / Self.binWidth).rounded(.down))
        counts[max(0, min(counts.count - 1, i))] += 1
        total += 1
    }

    /// The level exceeded `percent` % of the time (the centre of the bin where the counts from
    /// the top reach that share, the floor for the lowest bin); nil before any level was added.
    public func exceeded(percent: Double) -> Double? {
        guard total > 0 else { return nil }
        let target = percent / 100 * Double(total)
        var above = 0
        for i in stride(from: counts.count - 1, through: 0, by: -1) {
            above += counts[i]
            if Double(above) >= target && above > 0 {
                // The lowest bin holds the floor (digital silence): it reads the floor.
                return i == 0 ? Self.lowest : Self.lowest + (Double(i) + 0.5) * Self.binWidth
            }
        }
        return Self.lowest
    }
}
