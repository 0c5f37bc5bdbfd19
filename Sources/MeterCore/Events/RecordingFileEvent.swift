/// A file of a split or voice-activated recording opened or closed, or removed to keep only the
/// newest ones (`--keep`), or a recording paused or resumed (the NDJSON `file` line).
public struct RecordingFileEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable { case open, close, pause, resume, removed }

    public var kind: Kind
    /// The file's name as JSON shows it (invalid UTF-8 bytes as U+FFFD).
    public var file: String
    /// Capture position of the file's first frame (open), one past its last (close), where
    /// the pause or resume took effect, or one past the last frame of the file whose close
    /// made room (removed).
    public var pos: Int
    /// Frames in the file (0 when it opens; so far, for pause and resume; what it held, removed).
    public var frames: Int
    /// With several sources in one session: which one (0-based, in the order given), the
    /// NDJSON `stream` field; nil with one source.
    public var stream: Int?

    public init(_ kind: Kind, file: String, pos: Int, frames: Int) {
        self.kind = kind
        self.file = file
        self.pos = pos
        self.frames = frames
    }
}
