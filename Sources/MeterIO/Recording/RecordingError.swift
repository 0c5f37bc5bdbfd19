import MeterCore

/// Why a recording cannot be made as asked: the facts (container, value, what is allowed),
/// for the command line to word; it names the options (`--rate`, `--bitrate`, ...), this layer
/// never does. All are mistakes in what was asked, found before anything is captured or created.
public enum RecordingError: Error, Equatable, Sendable {
    /// The file name's extension is no container offered; `available` lists those that are.
    case unknownContainer(path: FilePath, ext: String, available: [String])
    /// The container is encoded by a program (ffmpeg) that is not on PATH.
    case encoderMissing(path: FilePath, ext: String, program: String, available: [String])
    /// The codec takes only the sample rates `allowed`.
    case rate(codec: String, rate: Int, allowed: [Int])
    /// The container cannot hold `channels` channels at `rate` (`most`: its limit, if it has one).
    case channels(ext: String, channels: Int, rate: Int, most: Int?)
    /// The bit rate is outside what the codec takes at this rate and channel count.
    case bitrate(codec: String, kbps: Int, allowed: ClosedRange<Int>, rate: Int, channels: Int)
    /// The container's encoder takes no bit rate: Vorbis takes a quality, PCM and FLAC none.
    case noBitrate(ext: String, lossy: Bool)
    /// The container cannot hold samples in `format` bit for bit; `holding` lists those that can.
    case sampleFormat(ext: String, format: SampleFormat, holding: [String])
}
