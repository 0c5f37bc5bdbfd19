import MeterCore
import MeterIO

/// The options shared by monitor, record and analyze, and how they become `MeterSettings`.
enum MeterOptions {
    static let specs: [OptionSpec] = [
        OptionSpec("-r", "--rate"), OptionSpec("-c", "--channels"), OptionSpec("--fps"),
        OptionSpec("--window"), OptionSpec("--bands"), OptionSpec("--fft-size"),
        OptionSpec("--fmin"), OptionSpec("--fmax"), OptionSpec("-f", "--format"),
        OptionSpec("-o", "--output"), OptionSpec("--duration"),
        OptionSpec("--events", value: false), OptionSpec("--silence-db"), OptionSpec("--silence-min"),
        OptionSpec("--clip-db"), OptionSpec("--octaves"), OptionSpec("--meter"), OptionSpec("--vu-ref"),
        OptionSpec("-h", "--help", value: false),
    ] + loudnessSpecs + soundLevelSpecs + HookOptions.specs + PeriodOptions.specs + AlarmOptions.specs

    /// The sound level meter's options.
    static let soundLevelSpecs: [OptionSpec] = [
        OptionSpec("--spl", value: false), OptionSpec("--weighting"), OptionSpec("--time-weighting"),
        OptionSpec("--calibration"), OptionSpec("--mic-cal"),
    ]

    /// --spl and its settings, each of which implies it; the rule for the calibration is
    /// `MeterSettings.allowed`'s.
    static func readSoundLevel(_ a: ParsedArguments, into s: inout MeterSettings) throws(PulsemeterError) {
        guard a.flag("spl") || soundLevelSpecs.dropFirst().contains(where: { a.has($0.key) }) else { return }
        var spl = SoundLevelSettings()
        if let w = try a.choice("weighting", FrequencyWeighting.allCases.map(\.rawValue)) {
            spl.weighting = FrequencyWeighting(rawValue: w)!
        }
        if let t = try a.choice("time-weighting", TimeWeighting.allCases.map(\.rawValue)) {
            spl.timeWeighting = TimeWeighting(rawValue: t)!
        }
        spl.calibrationDb = try value(a, .calibration, s, as: Double.self)
        if let path = a.path("mic-cal") {
            let bytes: [UInt8]
            do {
                bytes = try SmallFileReader.read(path)
            } catch {
                throw ErrorWording.input(error)
            }
            do {
                spl.micCalibration = try MicCalibration.parse(bytes)
            } catch {
                throw ErrorWording.micCalibration(error, path: path)
            }
        }
        s.spl = spl
    }

    /// --loudness, --target and the delivery rules (also taken by play).
    static let loudnessSpecs: [OptionSpec] = [OptionSpec("--loudness", value: false), OptionSpec("--target"),
                                              OptionSpec("--dual-mono", value: false)] + DeliveryOptions.specs

    /// Reads --target LUFS (or a preset's), the rules a verdict judges by and --loudness
    /// (which each of them implies) into `s`; the rules for the values are
    /// `MeterSettings.allowed`'s. Monitor and record judge by a preset's live tolerance.
    static func readLoudness(_ a: ParsedArguments, into s: inout MeterSettings) throws(PulsemeterError) {
        s.targetLufs = try DeliveryOptions.target(a)
        s.delivery = try DeliveryOptions.rules(a, live: ["monitor", "record"].contains(a.command))
        s.dualMono = a.flag("dual-mono")
        s.loudness = a.flag("loudness") || s.targetLufs != nil || s.delivery != nil || s.dualMono
        s.framePeaks = s.loudness && a.has("interval")  // each period's true peak
    }

    /// `s` validated, its error worded with the option's value as typed, or, for a default the
    /// user never typed, as the rate being too low for that default.
    static func validated(_ s: MeterSettings, _ a: ParsedArguments) throws(PulsemeterError) -> ValidSettings {
        do {
            return try ValidSettings(s)
        } catch {
            let raw = a.string(SettingOption.key(error.setting))
            if raw == nil, error.setting == .fps || error.setting == .fmax || (error.setting == .fmin && !a.has("fmax")) {
                throw ErrorWording.rateTooLow(for: error, rate: s.rate, typed: a.has("rate"), fminTyped: a.has("fmin"))
            }
            // A default the user did not type is said to be one (--fmin 50 with a typed --fmax).
            throw ErrorWording.setting(error, raw: raw, isDefault: raw == nil && [.fps, .fmin, .fmax].contains(error.setting))
        }
    }

    /// The meter settings for a stream of `rate` Hz and `channels` channels (when the source
    /// decides them) or from --rate/--channels (live capture, raw stdin), which default to
    /// `native` (a live source's own spec; `MeterSettings.defaults` when unknown), validated.
    static func settings(_ a: ParsedArguments, rate: Int? = nil, channels: Int? = nil,
                         native: (rate: Int, channels: Int)? = nil) throws(PulsemeterError) -> ValidSettings {
        try validated(read(a, rate: rate, channels: channels, native: native), a)
    }

    /// The same, not yet validated (for a command that adds settings of its own first). Here
    /// only the spelling of each value is read; the defaults are `MeterSettings.defaults`, and
    /// what is allowed is `MeterSettings.allowed`'s rule, worded by `ErrorWording`.
    static func read(_ a: ParsedArguments, rate: Int? = nil, channels: Int? = nil,
                     native: (rate: Int, channels: Int)? = nil) throws(PulsemeterError) -> MeterSettings {
        var s = MeterSettings.defaults
        s.rate = try value(a, .rate, s, as: Int.self) ?? native?.rate ?? s.rate
        s.channels = try value(a, .channels, s, as: Int.self) ?? native?.channels ?? s.channels
        if let rate { s.rate = rate }
        if let channels { s.channels = channels }
        s.fps = try value(a, .fps, s, as: Double.self) ?? s.fps
        s.windowMs = try value(a, .window, s, as: Double.self) ?? s.windowMs
        s.bands = try value(a, .bands, s, as: Int.self) ?? s.bands
        s.fftSize = try value(a, .fftSize, s, as: Int.self) ?? s.fftSize
        s.fmin = try value(a, .fmin, s, as: Double.self) ?? s.fmin
        s.fmax = try value(a, .fmax, s, as: Double.self)
        s.octaves = try value(a, .octaves, s, as: Int.self) ?? s.octaves
        if let m = try a.choice("meter", MeterKind.allCases.map(\.rawValue)) { s.meter = MeterKind(rawValue: m) }
        // --vu-ref implies --meter vu, and goes with no other meter.
        if let ref = try value(a, .vuReference, s, as: Double.self) {
            if s.meter == nil { s.meter = .vu }
            guard s.meter == .vu else {
                throw PulsemeterError(.usage, "--vu-ref sets the level of 0 VU; it does not apply to --meter \(s.meter!.rawValue)")
            }
            s.vuReference = ref
        }
        // The calibration first: the silence level is read in its unit.
        try readSoundLevel(a, into: &s)
        s.events = try events(a, s)
        _ = try HookOptions.kinds(a)
        try readLoudness(a, into: &s)
        s.alarms = try AlarmOptions.read(a, s)
        return s
    }

    /// The option's value read as a `T`; an unreadable value is refused like a bad one.
    private static func value<T: LosslessStringConvertible>(_ a: ParsedArguments, _ setting: SettingError.Setting,
                                                          _ s: MeterSettings, as: T.Type) throws(PulsemeterError) -> T? {
        guard let raw = a.string(SettingOption.key(setting)) else { return nil }
        guard let v = T(raw) else {
            throw ErrorWording.setting(SettingError(setting, value: .nan, allowed: s.allowed(setting)), raw: raw)
        }
        return v
    }

    /// A value the command line takes outside `MeterSettings` (a duration, record's
    /// thresholds, the level floor), read and checked against its rule in `MeterSettings`:
    /// that of `s`, the run's settings where the rule depends on them (a trigger level is read
    /// in the calibrated unit).
    static func checked(_ a: ParsedArguments, _ setting: SettingError.Setting,
                        in s: MeterSettings = .defaults) throws(PulsemeterError) -> Double? {
        guard let v = try value(a, setting, s, as: Double.self) else { return nil }
        do {
            try s.check(setting, v)
        } catch {
            throw ErrorWording.setting(error, raw: a.string(SettingOption.key(setting)))
        }
        return v
    }

    /// True when the run's lines include events: `--events`, or `--exec-on` naming one.
    static func eventLines(_ a: ParsedArguments) -> Bool {
        a.flag("events") || HookOptions.impliesEvents(a)
    }

    /// --events and its thresholds; the thresholds alone are a mistake (they would do nothing).
    /// `--exec-on` naming an event turns events on as --events does; `--listen` detects them
    /// too, for the `pulsemeter_silence` gauge, by the same thresholds (its lines then have
    /// no events: `eventLines`).
    static func events(_ a: ParsedArguments, _ s: MeterSettings) throws(PulsemeterError) -> EventSettings? {
        guard eventLines(a) || a.has("listen") else {
            for key in ["silence-db", "silence-min", "clip-db"] where a.has(key) {
                throw PulsemeterError(.usage, "--\(key) sets a threshold of --events; add --events to get event lines")
            }
            return nil
        }
        // The thresholds' rules are `MeterSettings.allowed`'s. The silence level is in the
        // calibrated unit, so is its default: the same level relative to full scale.
        var e = EventSettings()
        e.silenceDb = try value(a, .silenceDb, s, as: Double.self) ?? e.silenceDb + s.levelOffsetDb
        e.silenceMinSeconds = try value(a, .silenceMin, s, as: Double.self) ?? e.silenceMinSeconds
        e.clipDb = try value(a, .clipDb, s, as: Double.self)
        return e
    }

    /// --floor DB: the level that reads 0 in `levels` (waveform) and `level` (live frames).
    static func levelFloor(_ a: ParsedArguments) throws(PulsemeterError) -> Double {
        try checked(a, .levelFloor) ?? Decibels.defaultLevelFloor
    }

    /// --duration in seconds, converted to frames at `rate` (counted in frames, not wall time).
    static func durationFrames(_ a: ParsedArguments, rate: Int) throws(PulsemeterError) -> Int? {
        try checked(a, .duration).map { MeterSettings.frames(seconds: $0, rate: rate) }
    }

    enum Format: String { case ansi, ndjson, csv }

    /// `csv`: whether the command writes CSV (monitor, record, analyze, tag).
    static func format(_ a: ParsedArguments, outputIsTerminal: Bool, csv: Bool = false) throws(PulsemeterError) -> Format {
        if let f = try a.choice("format", ["ansi", "ndjson"] + (csv ? ["csv"] : [])) { return Format(rawValue: f)! }
        return outputIsTerminal ? .ansi : .ndjson
    }
}
