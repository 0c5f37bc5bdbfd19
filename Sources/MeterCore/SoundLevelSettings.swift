/// What the sound level meter measures: the frequency and time weightings and the
/// calibration that turns dBFS into dB SPL.
public struct SoundLevelSettings: Sendable, Equatable {
    public var weighting: FrequencyWeighting
    public var timeWeighting: TimeWeighting
    /// The dB SPL that reads as 0 dBFS; nil: uncalibrated, levels in dB relative to full scale.
    public var calibrationDb: Double?

    public init(weighting: FrequencyWeighting = .a, timeWeighting: TimeWeighting = .fast,
                calibrationDb: Double? = nil) {
        self.weighting = weighting
        self.timeWeighting = timeWeighting
        self.calibrationDb = calibrationDb
    }

    /// Added to every dBFS level to give the reported one.
    public var offsetDb: Double { calibrationDb ?? 0 }
    public var calibrated: Bool { calibrationDb != nil }

    /// The unit the levels are in: `dB(A)` when calibrated, else `dBFS(A)`, never passed off
    /// as SPL.
    public var unit: String { (calibrated ? "dB(" : "dBFS(") + weighting.rawValue + ")" }

    /// The lowest rate the weightings are designed for.
    public static let minRate = 8000
}
