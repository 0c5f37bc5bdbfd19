import MeterCore
import MeterIO

/// `COMMAND - --raw FMT -r HZ -c N` (analyze, waveform): raw PCM on stdin, its layout given on
/// the command line; and, for a file, the refusal of those options (the file has its own).
enum RawInput {
    /// The options waveform adds for stdin (analyze has -r and -c among its meter options).
    static let specs = [OptionSpec("--raw"), OptionSpec("-r", "--rate"), OptionSpec("-c", "--channels")]

    /// The layout of the PCM on stdin, from --raw, --rate and --channels.
    static func layout(_ a: ParsedArguments) throws -> (format: RawSampleFormat, rate: Int, channels: Int) {
        let command = a.command
        guard let rawName = try a.choice("raw", RawSampleFormat.allCases.map(\.rawValue)) else {
            throw PulsemeterError(.usage, "\(command) - reads raw PCM from stdin and needs --raw s16le|s24le|s32le|f32le with --rate and --channels")
        }
        guard a.has("rate"), a.has("channels") else {
            throw PulsemeterError(.usage, "\(command) - --raw \(rawName) needs --rate HZ and --channels N (the layout of the PCM on stdin)")
        }
        // The rate and channels as every command checks them (MeterSettings' rule).
        let s = try MeterOptions.settings(a)
        return (RawSampleFormat(rawValue: rawName)!, s.rate, s.channels)
    }

    /// Warns when raw stdin ended inside a frame: its last `trailingBytes` bytes were ignored.
    static func warnTrailing(_ trailingBytes: Int, format: RawSampleFormat, channels: Int) {
        guard trailingBytes > 0 else { return }
        CLI.warn("stdin ended inside a frame: ignored the last \(trailingBytes) bytes (a frame is \(format.bytesPerSample * channels) bytes)")
    }

    /// A file decodes by its own header: --raw, --rate and --channels do not apply. `file`
    /// names it in the message (a path, or "each file" in a many-file run).
    static func rejectLayout(_ a: ParsedArguments, file: String) throws(PulsemeterError) {
        if a.has("raw") {
            throw PulsemeterError(.usage, "--raw applies to stdin only (\(a.command) - --raw ...); \(file) is decoded by its own header")
        }
        if a.has("rate") || a.has("channels") {
            throw PulsemeterError(.usage, "--rate and --channels apply to live capture and raw stdin; \(file) has its own")
        }
    }

    /// What a file needs to be decoded by ffmpeg when ffmpeg is missing: our words, and the pipe
    /// (or, for play, the conversion) that works once ffmpeg is installed.
    static func decoderMissing(_ e: AudioFile.DecoderMissing, command: String) -> PulsemeterError {
        let p = shellQuoted(e.path.description)
        let workaround = command == "play"
            ? "or convert it first: ffmpeg -i \(p) voice.wav && pulsemeter play voice.wav"
            : "or pipe it: ffmpeg -i \(p) -f f32le -ac 2 -ar 48000 - | pulsemeter \(command) - --raw f32le -r 48000 -c 2"
        return PulsemeterError(.notDecodable, "\(e.path) is not a format libsndfile reads, and ffmpeg (which decodes m4a, AAC, mkv, webm and more) is not on PATH; install ffmpeg, \(workaround)")
    }

    /// `s` as one shell word.
    static func shellQuoted(_ s: String) -> String {
        let plain = !s.isEmpty && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._/-+,:@%=".contains($0)) }
        return plain && !s.hasPrefix("-") ? s : "'" + s.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
