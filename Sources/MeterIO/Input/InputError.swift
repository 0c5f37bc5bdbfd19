/// Why an input (an audio file, a list of files, stdin) cannot be read: the facts, for the
/// command line to word (missing or unreadable, not decodable, a read that failed, no room to
/// hold stdin). `reason` is the system's or the decoder's
/// account of a failure (`strerror`, `SoundFileError`, the child's report), already in words.
public enum InputError: Error, Equatable, Sendable {
    /// `stat(2)` or `open(2)` failed: no such file, a dangling link, a path through a file.
    case cannotOpen(FilePath, reason: String)
    case isDirectory(FilePath)
    /// It exists but `access(R_OK)` refuses it.
    case noPermission(FilePath, reason: String)
    /// libsndfile does not read it (the format, a damaged header); ffmpeg was not tried or
    /// does not apply.
    case notDecodable(FilePath, reason: String)
    /// Its header or stream gives a channel count or a rate outside what the meter takes.
    case channels(FilePath, count: Int, most: Int)
    case rate(FilePath, hz: Int, most: Int)
    /// `ffprobe` or `ffmpeg` could not be started.
    case decoderDidNotStart(FilePath, program: String, reason: String)
    /// `ffprobe` found nothing it decodes in the file.
    case notAudio(FilePath)
    /// `ffprobe` found no audio stream in the file.
    case noAudioStream(FilePath)
    /// `ffmpeg` stopped with an error partway (`reason`: its last line on stderr, or its status).
    case decoderFailed(FilePath, reason: String)
    case decoderKilled(FilePath, signal: Int32)
    /// A `--files-from` list that cannot be opened, or whose reading failed.
    case listCannotOpen(FilePath, reason: String)
    case listRead(FilePath, reason: String)
    /// Reading a stream (`name`: stdin) failed.
    case readFailed(name: String, reason: String)
    /// Raw stdin is held in a temporary file in `directory` first; it could not be made, or
    /// written.
    case spoolCannotCreate(directory: String, reason: String)
    case spoolWrite(name: String, directory: String, reason: String)
    /// A small file (a microphone calibration) larger than such a file can be.
    case tooLarge(FilePath, limit: Int)
}
