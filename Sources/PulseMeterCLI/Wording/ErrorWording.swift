import MeterCore
import MeterIO

/// Words the typed errors of MeterCore and MeterIO for the user: one line saying what went
/// wrong and what to do, naming this command line's options and commands (the layers below
/// never do), with its exit code (README.md "Exit codes").
enum ErrorWording {
    /// The user-facing error for `error`, or nil when it is none of the typed errors.
    static func userError(_ error: Error) -> PulsemeterError? {
        switch error {
        case let e as PulsemeterError: return e
        case let e as SettingError: return setting(e)
        case let e as PulseError: return pulse(e)
        case let e as RecordingError: return recording(e)
        case let e as InputError: return input(e)
        case let e as OutputError: return output(e)
        case let e as TagFileError: return tagFile(e)
        case let e as NetworkStreamError: return stream(e)
        case let e as OSThread.StartError: return PulsemeterError(.io, "cannot start a thread for \(e.role): \(e.reason)")
        default: return nil
        }
    }

    /// The option that sets `setting`, as the user types it.
    static func option(_ setting: SettingError.Setting) -> String { "--" + SettingOption.key(setting) }

    /// A usage error: "--OPTION VALUE is not allowed: what is". `raw` is the value as typed.
    /// `isDefault`: the user did not type the value (it is the option's default).
    static func setting(_ e: SettingError, raw: String? = nil, isDefault: Bool = false) -> PulsemeterError {
        let value = (raw.map { $0.isEmpty ? "''" : SafeText.terminal($0) } ?? number(e.value)) + (isDefault ? " (the default)" : "")
        if e.setting == .loudnessRate, case .range(let lo, _) = e.allowed {
            return PulsemeterError(.usage, "--loudness cannot measure a rate of \(value) Hz: it needs at least \(number(lo)) Hz")
        }
        if e.setting == .splRate, case .range(let lo, _) = e.allowed {
            return PulsemeterError(.usage, "--spl cannot measure a rate of \(value) Hz: its frequency weightings need at least \(number(lo)) Hz")
        }
        let allowed: String
        switch (e.setting, e.allowed) {
        case (.bands, .bandsWithinBins(let bins, let fftSize)):
            allowed = "only \(bins) FFT bins lie between --fmin and --fmax at --fft-size \(fftSize); use at most that many bands, a larger --fft-size or a wider range"
        case (_, .range(let lo, let hi)):
            switch e.setting {
            case .rate: allowed = "use a sample rate from \(number(lo)) to \(number(hi)) Hz"
            case .channels: allowed = "use \(number(lo)) to \(number(hi)) channels"
            case .fps: allowed = "use a number of frames per second from \(number(lo)) up to the sample rate (\(number(hi)))"
            case .bands: allowed = "use \(number(lo)) (off) to \(number(hi)) bands"
            case .target: allowed = "use a loudness from \(number(lo)) to \(number(hi)) LUFS (e.g. -23 broadcast, -16 podcasts, -14 streaming)"
            case .maxTruePeak: allowed = "use a true peak ceiling from \(number(lo)) to \(number(hi)) dBTP (-1 for most deliveries, -2 ATSC A/85)"
            case .vuReference: allowed = "use the dBFS peak level of the sine that reads 0 VU, from \(number(lo)) to \(number(hi)) (-18 EBU, -20 SMPTE)"
            case .calibration: allowed = "use the dB SPL that reads as 0 dBFS, from \(number(lo)) to \(number(hi)) (pulsemeter calibrate measures it)"
            case .silenceDb, .clipDb, .triggerLevel:
                // A calibrated run reads the silence and trigger levels in its unit (the range
                // moved by the calibration); clipping stays in dBFS.
                let unit = e.setting == .clipDb || hi == 0 ? "dBFS" : "the calibrated unit (dBFS plus \(number(hi)) dB)"
                allowed = "use a level in \(unit) from \(number(lo)) to \(number(hi))"
            case .silenceMin, .hold, .preRoll: allowed = "use a number of seconds from \(number(lo)) to \(number(hi))"
            case .calibratorLevel:
                allowed = "use the calibrator's level in dB SPL, from \(number(lo)) to \(number(hi)) (94 or 114 as a rule)"
            default: allowed = "use a number from \(number(lo)) to \(number(hi))"
            }
        case (.window, .positiveUpTo(let hi)):
            allowed = "use a window in milliseconds above 0, at most \(number(hi))"
        case (.tolerance, .positiveUpTo(let hi)):
            allowed = "use a tolerance in LU above 0, at most \(number(hi)) (±0.5 EBU R128, ±1 streaming, ±2 ATSC A/85)"
        case (.duration, .positiveUpTo(let hi)), (.split, .positiveUpTo(let hi)):
            allowed = "use a number of seconds above 0, at most \(number(hi))"
        case (_, .positiveUpTo(let hi)):
            allowed = "use a number above 0, at most \(number(hi))"
        case (_, .powerOfTwo(let lo, let hi)):
            allowed = "\(option(e.setting)) must be a power of two from \(lo) to \(hi)"
        case (_, .frequencyBelow(let lo, let nyquist)):
            allowed = "use a frequency of at least \(number(lo)) Hz and below Nyquist (\(number(nyquist)) Hz)"
        case (_, .frequencyAbove(let fmin, let nyquist)):
            allowed = "use a frequency above --fmin (\(number(fmin)) Hz) and at most Nyquist (\(number(nyquist)) Hz)"
        case (_, .bandsWithinBins(let bins, _)):
            allowed = "use at most \(bins)"
        case (_, .oneOf(let values)):
            allowed = "use " + values.map(number).joined(separator: " or ")
        case (_, .notWithBands):
            allowed = "octave bands replace the FFT bands; drop --bands"
        case (_, .negativeFrom(let lo)):
            allowed = "use a negative dB value from \(number(lo)) up to below 0, e.g. \(number(Decibels.defaultLevelFloor))"
        }
        return PulsemeterError(.usage, "\(option(e.setting)) \(value) is not allowed: \(allowed)")
    }

    /// A default (the frame rate, the band edges) that the sample rate cannot carry: the user
    /// typed neither it nor the rate's match, so the message names the rate and the default,
    /// and both ways out.
    static func rateTooLow(for e: SettingError, rate: Int, typed: Bool, fminTyped: Bool) -> PulsemeterError {
        let given = typed ? "--rate \(rate)" : "a sample rate of \(rate) Hz"
        var fmin = e.value
        switch (e.setting, e.allowed) {
        case (.fmax, .frequencyAbove(let lowest, _)): fmin = lowest
        case (.fmin, _): break
        default:
            return PulsemeterError(.usage, "\(given) is too low for the default frame rate (--fps \(number(e.value))): the rate must be at least the frame rate; use --rate \(number(e.value.rounded(.up))) or more, or --fps \(rate) or less")
        }
        let top = number((0.95 * Double(rate) / 2 * 10).rounded() / 10)
        return PulsemeterError(.usage, "\(given) is too low for bands from --fmin \(number(fmin)) Hz\(fminTyped ? "" : " (the default)") up to the default --fmax (0.95 x Nyquist: \(top) Hz); use --rate \(Int(2 * fmin / 0.95) + 1) or more, or a lower --fmin")
    }

    static func stream(_ e: NetworkStreamError) -> PulsemeterError {
        switch e {
        case .decoderMissing(let program, let reason):
            return PulsemeterError(.unavailable, "--url reads network streams through ffmpeg, and \(program) cannot run (\(reason)); install ffmpeg")
        case .cannotOpen(let url, let reason):
            return PulsemeterError(.unavailable, "cannot open the stream \(url): \(reason)")
        case .lost(let url, let reason):
            return PulsemeterError(.io, "lost the stream \(url) (\(reason)); the recording holds every frame received before; use --reconnect to wait for it instead")
        }
    }

    static func pulse(_ e: PulseError) -> PulsemeterError {
        switch e {
        case .noSuchDevice(let direction, let name, let server):
            let what = direction == .record ? "source" : "sink"
            return PulsemeterError(.unavailable, "no PulseAudio \(what) named \(name) on \(server); run pulsemeter devices\(direction == .playback ? " --sinks" : "") to list them")
        case .wrongKind(.record, let name, let server):
            return PulsemeterError(.unavailable, "no PulseAudio source named \(name) on \(server); \(name) is a sink: to meter what it plays use its monitor, -d \(name).monitor")
        case .wrongKind(.playback, let name, let server):
            return PulsemeterError(.unavailable, "no PulseAudio sink named \(name) on \(server); \(name) is a source; run pulsemeter devices --sinks to list the sinks")
        case .streamNeverStarted(let server):
            return PulsemeterError(.unavailable, "connected to \(server) but the stream never started; is a session manager (WirePlumber) running?")
        case .cannotConnect(let server, let reason):
            return PulsemeterError(.unavailable, "cannot connect to \(server) (\(reason)); start PulseAudio or PipeWire's pulse server, or set PULSE_SERVER")
        case .cannotOpen(let direction, let device, let reason):
            let what = direction == .record ? "source" : "sink"
            return PulsemeterError(.unavailable, "cannot open a PulseAudio \(what)\(device.map { " on \($0)" } ?? "") (\(reason)); run pulsemeter devices to check it")
        case .noAnswer(let server):
            return PulsemeterError(.unavailable, "\(server) did not answer in time; check that it is running")
        case .cannotStart(let what):
            return PulsemeterError(.unavailable, "cannot start \(what)")
        case .streamLost(let reason):
            return PulsemeterError(.io, "lost the PulseAudio stream (\(reason))")
        case .sourceLost(let source, let server, let reason):
            return PulsemeterError(.io, "lost the PulseAudio source \(source) on \(server) (\(reason)); the recording holds every frame captured before; use --reconnect to wait for it instead")
        }
    }

    /// The one stderr line of a run that waits for its source from the start (`--reconnect`).
    static func waiting(for source: String, _ e: PulseError) -> String {
        let fact: String
        switch e {
        case .cannotConnect(let server, let reason): fact = "cannot connect to \(server) (\(reason))"
        case .noSuchDevice(_, let name, let server): fact = "no source named \(name) on \(server) yet"
        case .noAnswer(let server): fact = "\(server) did not answer"
        default: fact = pulse(e).message
        }
        return "waiting for \(source) (--reconnect): \(fact); metering starts when it is there"
    }

    /// An input that cannot be read: 66 missing or unreadable, 65 not decodable, 74 a failed
    /// read, 73 no room to hold stdin.
    static func input(_ e: InputError) -> PulsemeterError {
        let formats = "give a WAV, FLAC, AIFF, Ogg, Opus or MP3 file"
        switch e {
        case .cannotOpen(let path, let reason):
            return PulsemeterError(.missingInput, "cannot open \(path): \(reason); check the path")
        case .isDirectory(let path):
            return PulsemeterError(.missingInput, "\(path) is a directory; give an audio file")
        case .noPermission(let path, let reason):
            return PulsemeterError(.missingInput, "cannot read \(path): \(reason); check its permissions")
        case .notDecodable(let path, let reason):
            return PulsemeterError(.notDecodable, "\(path) is not decodable audio (\(reason)); \(formats)")
        case .channels(let path, let count, let most):
            return PulsemeterError(.notDecodable, "\(path) has \(count) channels; pulsemeter reads 1 to \(most)")
        case .rate(let path, let hz, let most):
            return PulsemeterError(.notDecodable, "\(path) has a sample rate of \(hz) Hz; pulsemeter reads 1 to \(most) Hz")
        case .decoderDidNotStart(let path, let program, let reason):
            return PulsemeterError(.notDecodable, "cannot run \(program) to decode \(path): \(reason)")
        case .notAudio(let path):
            return PulsemeterError(.notDecodable, "\(path) is not audio that libsndfile or ffmpeg can decode")
        case .noAudioStream(let path):
            return PulsemeterError(.notDecodable, "\(path) has no audio stream")
        case .decoderFailed(let path, let reason):
            return PulsemeterError(.notDecodable, "ffmpeg could not decode \(path): \(reason)")
        case .decoderKilled(let path, let signal):
            return PulsemeterError(.notDecodable, "ffmpeg was killed by signal \(signal) while decoding \(path)")
        case .listCannotOpen(let path, let reason):
            return PulsemeterError(.missingInput, "cannot open the list \(path): \(reason); check the path")
        case .listRead(let path, let reason):
            return PulsemeterError(.io, "cannot read the list \(path): \(reason)")
        case .readFailed(let name, let reason):
            return PulsemeterError(.io, "cannot read \(name): \(reason)")
        case .spoolCannotCreate(let directory, let reason):
            return PulsemeterError(.cannotCreate, "cannot create a temporary file in \(directory) to hold stdin: \(reason); set TMPDIR to a writable directory")
        case .spoolWrite(let name, let directory, let reason):
            return PulsemeterError(.io, "cannot hold \(name) in a temporary file in \(directory): \(reason)")
        case .tooLarge(let path, let limit):
            return PulsemeterError(.notDecodable, "\(path) is over \(limit >> 20) MiB: not a microphone calibration file")
        }
    }

    /// An output that cannot be made (73) or written (74).
    /// A file `tag` cannot tag: one that TagLib does not take is not audio it can tag (65), a
    /// failed save cannot write the output (73).
    static func tagFile(_ e: TagFileError) -> PulsemeterError {
        switch e {
        case .notTaggable(let path):
            return PulsemeterError(.notDecodable, "cannot tag \(path): TagLib does not read it as a file it can tag (FLAC, Ogg Vorbis, Opus, MP3, M4A, WavPack and others); it was left as it is")
        case .cannotHold(let path, let key):
            return PulsemeterError(.notDecodable, "cannot tag \(path): its tag format has no room for \(key); it was left as it is")
        case .cannotSave(let path):
            return PulsemeterError(.cannotCreate, "cannot write the tags into \(path); check that the file and its directory are writable and the disk has room")
        }
    }

    static func output(_ e: OutputError) -> PulsemeterError {
        let writable = "check that the directory exists and is writable"
        switch e {
        case .cannotCreateOutput(let path, let reason):
            return PulsemeterError(.cannotCreate, "cannot create output file \(path): \(reason); \(writable)")
        case .cannotWriteOutput(let name, let reason):
            return PulsemeterError(.io, "cannot write meter output to \(name): \(reason)")
        case .cannotCreateRecording(let path, let reason):
            return PulsemeterError(.cannotCreate, "cannot create recording \(path): \(reason); \(writable)")
        case .cannotWriteRecording(let path, let reason, let frames):
            return PulsemeterError(.io, "cannot write the recording \(path) (\(reason)); it holds the \(frames) frames written before the error")
        case .cannotFinishRecording(let path, let reason):
            return PulsemeterError(.io, "cannot finish the recording \(path) (\(reason))")
        case .recordingExists(let path):
            return PulsemeterError(.cannotCreate, "\(path) exists; it was left as it is (use --force to replace it)")
        case .cannotReplace(let path, let kind):
            return PulsemeterError(.cannotCreate, "\(path) is \(ErrorWording.kind(kind)), which pulsemeter never replaces nor writes into; it was left as it is (give the name of a file)")
        case .noFreeName(let pattern):
            return PulsemeterError(.cannotCreate, "cannot find a free file name for \(pattern): a million names are taken")
        case .recordingOverflow(let lost, let written):
            return PulsemeterError(.io, "the recording lost \(lost) frames: the disk did not keep up for over 10 s; \(written) frames were written")
        case .encoderDidNotStart(let path, let program, let reason):
            return PulsemeterError(.cannotCreate, "cannot start the AAC encoder \(program) for \(path): \(reason)")
        case .encoderStopped(let path, let report):
            return PulsemeterError(.io, "the AAC encoder (ffmpeg) stopped while recording \(path): it \(report); the file holds what it wrote before")
        case .encoderDidNotFinish(let path, let report):
            return PulsemeterError(.io, "the AAC encoder (ffmpeg) failed to finish \(path): it \(report); the file holds what it wrote before")
        }
    }

    /// What is at a name that cannot be replaced, as "X is ...".
    static func kind(_ kind: NewFile.Kind) -> String {
        switch kind {
        case .directory: "a directory"
        case .fifo: "a FIFO (named pipe)"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        case .unknown: "not a regular file"
        }
    }

    static func recording(_ e: RecordingError) -> PulsemeterError {
        func list(_ a: [String]) -> String { a.joined(separator: ", ") }
        let message: String
        switch e {
        case .unknownContainer(let path, let ext, let available):
            message = "cannot record to \(path): unknown container \(ext.isEmpty ? "(no extension)" : "." + SafeText.terminal(ext)); use one of \(list(available))"
        case .encoderMissing(let path, let ext, let program, let available):
            message = "cannot record to \(path): .\(ext) (AAC) is encoded by \(program), which is not on PATH; install \(program), or record one of \(list(available))"
        case .rate(let codec, let rate, let allowed):
            let nearest = allowed.min { abs($0 - rate) < abs($1 - rate) } ?? 48000
            message = "--rate \(rate) is not allowed for \(codec): it takes \(list(allowed.map(String.init))) Hz; use --rate \(nearest) or another container"
        case .channels(let ext, let channels, let rate, let most):
            let limit = most.map { ": it holds at most \($0); use --channels \($0), or record" } ?? " at \(rate) Hz; record"
            message = "--channels \(channels) is not allowed for a .\(ext) file\(limit) .wav or .w64"
        case .bitrate(let codec, let kbps, let allowed, let rate, let channels):
            message = "--bitrate \(kbps) is not allowed: \(codec) at \(rate) Hz with \(channels) channel\(channels == 1 ? "" : "s") takes \(allowed.lowerBound) to \(allowed.upperBound) kbps"
        case .noBitrate(let ext, let lossy):
            message = lossy
                ? "--bitrate does not apply to .\(ext): the Vorbis encoder takes a quality, not a bit rate; record .opus, .mp3 or .m4a for a set bit rate"
                : "--bitrate does not apply to .\(ext): it is uncompressed or lossless; a bit rate applies to .opus, .mp3, .m4a and .aac"
        case .sampleFormat(let ext, let format, let holding):
            let what = format == .float ? "32-bit float" : "\(format.bitsName)-bit"
            message = "--bits \(format.bitsName) is not allowed for a .\(ext) file: it cannot hold \(what) samples bit for bit; record one of \(list(holding)), or drop --bits"
        }
        return PulsemeterError(.usage, message)
    }

    /// A microphone calibration file that does not read: exit 65, naming the line.
    static func micCalibration(_ e: MicCalibration.ParseError, path: FilePath) -> PulsemeterError {
        PulsemeterError(.notDecodable, "\(path) line \(e.line): \(e.reason); a calibration file holds an optional \"Sens Factor =XdB\" line, then rows of frequency (Hz) and dB")
    }

    /// A number as a user would type it: integers without ".0".
    static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}
