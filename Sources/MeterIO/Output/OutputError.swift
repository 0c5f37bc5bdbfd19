/// Why an output (the meter's NDJSON file, a recording) cannot be made or written: the facts,
/// for the command line to word (cannot create, or a write that failed). `reason` is the system's or the encoder's account, already in words (`strerror`,
/// `SoundFileError`, ffmpeg's last line or status).
public enum OutputError: Error, Equatable, Sendable {
    /// `-o PATH` could not be created, or a write to it (or stdout) failed.
    case cannotCreateOutput(FilePath, reason: String)
    case cannotWriteOutput(name: String, reason: String)
    /// A recording could not be created, written or finished; `framesWritten` are in it.
    case cannotCreateRecording(FilePath, reason: String)
    case cannotWriteRecording(FilePath, reason: String, framesWritten: Int)
    case cannotFinishRecording(FilePath, reason: String)
    /// The recording's name appeared after the command line checked it; it was not touched.
    case recordingExists(FilePath)
    /// The name is a directory, FIFO, device or socket, which is never replaced (nor, for a
    /// recording, written into); it was not touched.
    case cannotReplace(FilePath, kind: NewFile.Kind)
    /// Every numbered name of a split or voice-activated recording is taken.
    case noFreeName(pattern: FilePath)
    /// The disk fell behind the capture for longer than the recorder's buffer holds.
    case recordingOverflow(lostFrames: Int, writtenFrames: Int)
    /// The AAC encoder (ffmpeg) could not be started, stopped taking samples, or did not
    /// finish the file cleanly (`report`: how it ended, and its last line on stderr).
    case encoderDidNotStart(FilePath, program: String, reason: String)
    case encoderStopped(FilePath, report: String)
    case encoderDidNotFinish(FilePath, report: String)
}
