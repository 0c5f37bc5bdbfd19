import MeterCore

/// What `record` writes: one file, a new file every so many frames (`--split`), or a file per
/// voice-activated take (`--trigger`).
public struct RecordingPlan: Sendable, Equatable {
    public enum Mode: Sendable, Equatable {
        /// Every captured frame into `path`.
        case single
        /// A new file every `frames` frames of audio.
        case split(frames: Int)
        /// A file per take, opened and closed by the analysis side's decisions.
        case trigger(TriggerSettings)
    }

    /// The file, or with split and trigger the name pattern (strftime when it holds `%`).
    public var path: FilePath
    public var mode: Mode
    /// `.single`: replace an existing file at `path` (`--force`); when false such a file is
    /// never touched (split and trigger never replace: their names get a counter instead).
    public var replaceExisting = false
    /// `.trigger`: a take longer than this many frames goes on in a new file (`--split` with
    /// `--trigger`); nil: one file per take.
    public var takeSplitFrames: Int?
    /// `.split` and `.trigger`: keep only the newest this many files this run wrote, removing
    /// older ones as new ones close (`--keep`); nil: keep all.
    public var keepFiles: Int?

    public init(path: FilePath, mode: Mode = .single) {
        self.path = path
        self.mode = mode
    }
}
