/// What the sound level meter measures: the frequency and time weightings and the
/// calibration that turns dBFS into dB SPL.
public struct SoundLevelSettings: Sendable, Equatable {
    public var weighting: FrequencyWeighting
    public var timeWeighting: TimeWeighting
    /// The dB SPL that reads as 0 dBFS; nil: uncalibrated, levels in dB relative to full scale.
    public var calibrationDb: Double?
    /// A measurement microphone's calibration file: its sensitivity factor is subtracted from
    /// every sound level, its response from the band levels.
    public var micCalibration: MicCalibration?

    public init(weighting: FrequencyWeighting = .a, timeWeighting: TimeWeighting = .fast,
                calibrationDb: Double? = nil, micCalibration: MicCalibration? = nil) {
        self.weighting = weighting
        self.timeWeighting = timeWeighting
        self.calibrationDb = calibrationDb
        self.micCalibration = micCalibration
    }

    /// Added to every dBFS level to give the reported one.
    public var offsetDb: Double { (calibrationDb ?? 0) - (micCalibration?.sensitivityDb ?? 0) }
    /// Levels are dB SPL only with a calibration (a microphone file alone corrects dBFS).
    public var calibrated: Bool { calibrationDb != nil }

    /// The unit the levels are in: `dB(A)` when calibrated, else `dBFS(A)`, never passed off
    /// as SPL.
    public var unit: String { (calibrated ? "dB(" : "dBFS(") + weighting.rawValue + ")" }

    /// The lowest rate the weightings are designed for.
    public static let minRate = 8000
}
