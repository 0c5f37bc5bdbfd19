/// Voice-activated recording (`record --trigger`): when takes open and close, in frames.
public struct TriggerSettings: Sendable, Equatable {
    /// A take opens when any channel's `rms_db` rises above this (in the frames' unit: dBFS,
    /// or a calibrated run's unit).
    public var levelDb: Double
    /// ... and closes once every channel has stayed at or below it for this many frames.
    public var holdFrames: Int
    /// Audio from before the trigger each take starts with, in frames.
    public var preRollFrames: Int

    /// How long a take stays open below the level, and how much audio before the trigger it
    /// starts with, when not given (seconds).
    public static let defaultHoldSeconds = 2.0
    public static let defaultPreRollSeconds = 0.5

    public init(levelDb: Double, holdFrames: Int, preRollFrames: Int) {
        self.levelDb = levelDb
        self.holdFrames = holdFrames
        self.preRollFrames = preRollFrames
    }
}
