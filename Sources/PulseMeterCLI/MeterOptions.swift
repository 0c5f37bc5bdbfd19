import MeterCore

/// The options shared by monitor, record and analyze, and how they become `MeterSettings`.
enum MeterOptions {
    static let specs: [OptionSpec] = [
        OptionSpec("-r", "--rate"), OptionSpec("-c", "--channels"), OptionSpec("--fps"),
        OptionSpec("--window"), OptionSpec("--bands"), OptionSpec("--fft-size"),
        OptionSpec("--fmin"), OptionSpec("--fmax"), OptionSpec("-f", "--format"),
        OptionSpec("-o", "--output"), OptionSpec("--duration"),
        OptionSpec("-h", "--help", value: false),
    ]

    /// The meter settings for a stream of `rate` Hz and `channels` channels (when the source
    /// decides them) or from --rate/--channels (live capture, raw stdin).
    static func settings(_ a: ParsedArguments, rate: Int? = nil, channels: Int? = nil) throws -> MeterSettings {
        var s = MeterSettings()
        s.rate = try rate ?? a.int("rate", in: 1...MeterSettings.maxRate, what: "use a sample rate from 1 to \(MeterSettings.maxRate) Hz") ?? 48000
        s.channels = try channels ?? a.int("channels", in: 1...MeterSettings.maxChannels, what: "use 1 to \(MeterSettings.maxChannels) channels") ?? 2
        s.fps = try a.double("fps", what: "use a number of frames per second from 0.01 up to the sample rate", valid: { $0 >= 0.01 }) ?? 30
        s.windowMs = try a.double("window", what: "use a window in milliseconds above 0, at most 60000", valid: { $0 > 0 && $0 <= 60000 }) ?? 50
        s.bands = try a.int("bands", in: 0...1024, what: "use 0 (off) to 1024 bands") ?? 0
        s.fftSize = try a.int("fft-size", in: 64...65536, what: "--fft-size must be a power of two from 64 to 65536") ?? 2048
        s.fmin = try a.double("fmin", what: "use a frequency of at least 1 Hz", valid: { $0 >= 1 }) ?? 50
        s.fmax = try a.double("fmax", what: "use a frequency in Hz above --fmin", valid: { $0 >= 1 })
        try s.validate()
        return s
    }

    /// --duration in seconds, converted to frames at `rate` (counted in frames, not wall time).
    static func durationFrames(_ a: ParsedArguments, rate: Int) throws(PulsemeterError) -> Int? {
        // Bounded so that seconds x rate always fits in an Int (found by FuzzArguments).
        guard let d = try a.double("duration", what: "use a number of seconds above 0, at most 1000000000",
                                   valid: { $0 > 0 && $0 <= 1e9 }) else { return nil }
        return max(1, Int((d * Double(rate)).rounded()))
    }

    enum Format: String { case ansi, ndjson }

    static func format(_ a: ParsedArguments, outputIsTerminal: Bool) throws(PulsemeterError) -> Format {
        if let f = try a.choice("format", ["ansi", "ndjson"]) { return Format(rawValue: f)! }
        return outputIsTerminal ? .ansi : .ndjson
    }
}
