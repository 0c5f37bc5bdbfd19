/// Voice-activated recording (`record --trigger`): when takes open and close, in frames.
public struct TriggerSettings: Sendable, Equatable {
    /// A take opens when any channel's `rms_db` rises above this (dBFS).
    public var levelDb: Double
    /// ... and closes once every channel has stayed at or below it for this many frames.
    public var holdFrames: Int
    /// Audio from before the trigger each take starts with, in frames.
    public var preRollFrames: Int

    public init(levelDb: Double, holdFrames: Int, preRollFrames: Int) {
        self.levelDb = levelDb
        self.holdFrames = holdFrames
        self.preRollFrames = preRollFrames
    }
}
