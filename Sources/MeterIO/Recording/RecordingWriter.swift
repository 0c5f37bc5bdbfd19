import MeterCore

/// Where the recorder thread puts captured frames: one file, written in order, owned by that
/// thread. `SoundFileWriter` (libsndfile) and `FFmpegEncoderWriter` (AAC through ffmpeg)
/// implement it; every recorder (a plain recording, and one that starts a new file per split
/// or take) gets its writers from `RecordingFormat.openWriter(path:)` or `openNewWriter(path:)`,
/// the one place that creates recording files and picks the encoder.
public protocol RecordingWriter: AnyObject {
    /// The file being written.
    var path: FilePath { get }
    /// Frames that have reached the file (after `close`, every frame that is in it).
    var framesWritten: Int { get }
    /// Appends interleaved frames, native-endian in the format's `sampleFormat` (as the
    /// capture delivered them); throws when they cannot be written.
    func write(_ frames: UnsafeRawBufferPointer) throws(OutputError)
    /// Finishes the file so every player reads it to its last frame.
    func close() throws(OutputError)
}
