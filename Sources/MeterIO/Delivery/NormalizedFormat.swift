import MeterCore

extension RecordingFormat {
    /// The format of `normalize`'s output at `path`: the container from its extension, the
    /// input's rate and channels, and its sample format where the container holds it:
    /// - PCM containers (wav, aiff, caf, w64, rf64, au) keep it (16, 24, 32-bit or float); an
    ///   input with none (MP3, Vorbis, Opus, AAC) is written as 24-bit;
    /// - FLAC keeps 16 and 24 bits and takes 32-bit and float inputs as 24;
    /// - the lossy encoders (ogg, opus, mp3) are fed floats at their best quality (compression
    ///   level 0: 320 kbps MP3, Vorbis quality 10, 256 kbps a channel Opus), so that their low-pass
    ///   takes as little of the loudness as it can; AAC (m4a, aac) 16-bit.
    public static func normalized(path: FilePath, rate: Int, channels: Int,
                                  input: SampleFormat?) throws(RecordingError) -> RecordingFormat {
        var format = try choose(path: path, rate: rate, channels: channels)
        switch format.kind {
        case .lossyStream:
            format = RecordingFormat(code: format.code, kind: format.kind, fileExtension: format.fileExtension, rate: rate,
                                     channels: channels, compressionLevel: 0, bitrateKbps: nil)
            format.sampleFormat = .float
        case .ffmpegAAC:
            break
        case .headerPCM:
            format = try choose(path: path, rate: rate, channels: channels, sampleFormat: input ?? .s24)
        case .losslessStream:
            format = try choose(path: path, rate: rate, channels: channels, sampleFormat: input == .s16 ? .s16 : .s24)
        }
        return format
    }
}
