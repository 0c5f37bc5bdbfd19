/// A file of a split or voice-activated recording opened or closed (the NDJSON `file` line).
public struct RecordingFileEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case open, close }

    public var kind: Kind
    /// The file's name as JSON shows it (invalid UTF-8 bytes as U+FFFD).
    public var file: String
    /// Capture position of the file's first frame (open) or one past its last (close).
    public var pos: Int
    /// Frames in the file (0 when it opens).
    public var frames: Int

    public init(_ kind: Kind, file: String, pos: Int, frames: Int) {
        self.kind = kind
        self.file = file
        self.pos = pos
        self.frames = frames
    }
}
