import MeterCore

/// Opens an audio file for reading, the same way for analyze, waveform and play: libsndfile
/// first, and through ffmpeg what libsndfile does not read (m4a/AAC, mkv, webm, ...) when
/// `ffmpeg` and `ffprobe` are on PATH.
public enum AudioFile {
    /// libsndfile does not read `path` and ffmpeg is not on PATH to decode it. The CLI words it,
    /// with the pipe that would work for the command at hand.
    public struct DecoderMissing: Error, Sendable {
        public let path: FilePath
    }

    /// `cancellation` stops an ffmpeg decoder (libsndfile reads need none: they never block).
    public static func open(_ path: FilePath, cancellation: Cancellation? = nil) throws -> any AudioFileSource {
        if let reader = try SoundFileReader(ifKnown: path) { return reader }
        guard let ffmpeg = ChildProcess.find("ffmpeg"), let ffprobe = ChildProcess.find("ffprobe") else {
            throw DecoderMissing(path: path)
        }
        return try FFmpegDecoder(path: path, ffmpeg: ffmpeg, ffprobe: ffprobe, cancellation: cancellation)
    }

    /// The extensions (lower case) of the audio files a walk of a directory takes
    /// (`--recursive`): the containers pulsemeter records (`RecordingFormat`: libsndfile's, and
    /// m4a/aac through ffmpeg), and those read but not recorded (libsndfile's WavPack, AIFC,
    /// NeXT/Sun, VOC; ffmpeg's MP4, Matroska, WebM, WMA, AMR). The shell completions offer
    /// files by the same list (InstallTests checks them against it).
    public static let extensions: Set<String> = Set(RecordingFormat.offered.map(\.ext) + RecordingFormat.ffmpegContainers
        + ["wv", "aifc", "snd", "voc", "mp4", "mkv", "webm", "wma", "amr"])
}
