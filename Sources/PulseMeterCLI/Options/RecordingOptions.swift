import MeterCore
import MeterIO

/// `--split`, `--trigger`, `--hold` and `--pre-roll`: how `record` cuts its recording into
/// files. Only `record` takes them; elsewhere they are unknown options (exit 64). Their
/// rules and defaults are `MeterSettings.allowed`'s and `TriggerSettings`'.
enum RecordingOptions {
    static let specs = [OptionSpec("--split"), OptionSpec("--trigger"), OptionSpec("--hold"), OptionSpec("--pre-roll"),
                        OptionSpec("--keep")]
    static let keys = ["split", "trigger", "hold", "pre-roll"]

    /// `--keep N` (with --split or --trigger): the newest files kept; nil: all.
    static func keep(_ a: ParsedArguments) throws(PulsemeterError) -> Int? {
        guard let n = try a.count("keep", .keepFiles, unit: "files") else { return nil }
        guard a.has("split") || a.has("trigger") else {
            throw PulsemeterError(.usage, "--keep applies to the files of --split or --trigger; add one of them")
        }
        return n
    }

    /// `--bitrate KBPS` (record, monitor --record): the lossy encoder's bit rate; nil: its own.
    static func bitrate(_ a: ParsedArguments, record: FilePath?) throws(PulsemeterError) -> Int? {
        let bitrate = try a.count("bitrate", .bitrateKbps, unit: "kbps, e.g. 32 or 128")
        if bitrate != nil && record == nil {
            throw PulsemeterError(.usage, "--bitrate sets the encoder of a recording; add --record FILE")
        }
        return bitrate
    }

    /// `--split` given with `--trigger`: takes longer than the split length go on in a new file.
    static func takeSplitFrames(_ a: ParsedArguments, rate: Int) throws(PulsemeterError) -> Int? {
        guard a.has("trigger"), let split = try MeterOptions.checked(a, .split) else { return nil }
        return MeterSettings.frames(seconds: split, rate: rate)
    }

    /// `--bits 16|24|32|float` (record, monitor --record): the capture's and the file's sample
    /// format; s16 when not given.
    static func sampleFormat(_ a: ParsedArguments) throws(PulsemeterError) -> SampleFormat {
        guard let raw = a.string("bits") else { return .s16 }
        guard let f = SampleFormat(bits: raw) else {
            throw PulsemeterError(.usage, "--bits \(SafeText.terminal(raw)) is not allowed: use 16, 24, 32 or float")
        }
        return f
    }

    /// The recording mode for a stream metered with `settings` (its rate; the trigger level is
    /// in its calibrated unit); `.single` when none of the options is given.
    static func mode(_ a: ParsedArguments, settings: MeterSettings) throws(PulsemeterError) -> RecordingPlan.Mode {
        let rate = settings.rate
        let given = keys.filter { a.has($0) }
        guard let first = given.first else { return .single }
        func frames(_ seconds: Double) -> Int { MeterSettings.frames(seconds: seconds, rate: rate) }
        if let split = try MeterOptions.checked(a, .split), !a.has("trigger") {
            if let other = given.first(where: { $0 != "split" }) {
                throw PulsemeterError(.usage, "--\(other) applies to voice-activated recording; add --trigger DB (--split goes with it too: a take longer than SECONDS is split)")
            }
            return .split(frames: frames(split))
        }
        guard let level = try MeterOptions.checked(a, .triggerLevel, in: settings) else {
            throw PulsemeterError(.usage, "--\(first) applies to voice-activated recording; add --trigger DB")
        }
        let hold = try MeterOptions.checked(a, .hold) ?? TriggerSettings.defaultHoldSeconds
        let preRoll = try MeterOptions.checked(a, .preRoll) ?? TriggerSettings.defaultPreRollSeconds
        return .trigger(TriggerSettings(levelDb: level, holdFrames: frames(hold), preRollFrames: frames(preRoll)))
    }
}
