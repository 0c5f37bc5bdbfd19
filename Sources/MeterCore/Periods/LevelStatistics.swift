/// Statistics of a run of frame levels, one channel: their energy mean (Leq), exact extremes
/// and the levels exceeded 10, 50 and 90 % of the time (from `LevelHistogram`'s 0.05 dB bins,
/// so memory stays flat however many frames). Levels are in the run's unit; `offsetDb` (the
/// calibration) is taken off before they are binned, as the histogram spans dBFS.
struct LevelStatistics {
    private let offsetDb: Double
    private var energy = 0.0
    private(set) var count = 0
    private var highest = -Double.infinity, lowest = Double.infinity
    private var histogram = LevelHistogram()

    init(offsetDb: Double) { self.offsetDb = offsetDb }

    mutating func add(_ db: Double) {
        energy += PureMath.pow(10, (db - offsetDb) / 10)
        count += 1
        highest = Swift.max(highest, db)
        lowest = Swift.min(lowest, db)
        histogram.add(db - offsetDb)
    }

    /// 10 lg of the mean of 10^(L/10): the floor when no level was added.
    var leq: Double { count > 0 ? Decibels.calibrated(Decibels.fromPower(energy / Double(count)), offset: offsetDb) : floor }
    var max: Double { count > 0 ? highest : floor }
    var min: Double { count > 0 ? lowest : floor }
    func exceeded(_ percent: Double) -> Double {
        histogram.exceeded(percent: percent).map { Decibels.calibrated($0, offset: offsetDb) } ?? floor
    }

    private var floor: Double { Decibels.floor + offsetDb }
}
