import MeterCore
import MeterIO

/// The sources of a live run: `-d` given once, several times (metered side by side, each its
/// own session), or not at all (the server's default); each source's options, and the name
/// of its recording.
enum LiveSources {
    /// The most sources one run meters side by side.
    static let maxSources = 8

    /// The devices `-d` names, in order; `[nil]` without `-d`. Checked before the server is
    /// asked anything: an empty name, the same name twice, more than `maxSources`.
    static func devices(_ a: ParsedArguments) throws(PulsemeterError) -> [String?] {
        let given = a.strings("device")
        guard !given.isEmpty else { return [nil] }
        try refuseEmpty(given, sink: false)
        if given.count > maxSources {
            throw PulsemeterError(.usage, "-d is given \(given.count) times: at most \(maxSources) sources are metered at once")
        }
        try refuseRepeated(given.map { $0 })
        return given
    }

    /// The one device of a command that takes one (`play`'s sink, `calibrate`'s source):
    /// `-d` given twice is refused rather than the last one taken, as monitor would meter both;
    /// an empty name is refused as `devices` refuses it.
    static func single(_ a: ParsedArguments) throws(PulsemeterError) -> String? {
        let given = a.strings("device")
        let sink = a.command == "play"
        if given.count > 1 {
            let what = sink ? "plays to one sink" : "measures one source"
            throw PulsemeterError(.usage, "-d is given \(given.count) times: \(a.command) \(what); give -d once")
        }
        try refuseEmpty(given, sink: sink)
        return given.first
    }

    /// An empty `-d` among `given`: a usage error asking for a source (or sink) name.
    private static func refuseEmpty(_ given: [String], sink: Bool) throws(PulsemeterError) {
        guard given.contains(where: \.isEmpty) else { return }
        throw PulsemeterError(.usage, sink ? "--device needs a sink name; run pulsemeter devices --sinks to list them"
                                           : "--device needs a source name; run pulsemeter devices to list them")
    }

    /// Two `-d` naming the same device (as given, or resolved to the same source).
    static func refuseRepeated(_ names: [String?]) throws(PulsemeterError) {
        for (k, name) in names.enumerated() {
            guard let name, names[..<k].contains(name) else { continue }
            throw PulsemeterError(.usage, "-d \(SafeText.terminal(name)) is given twice: name each source once")
        }
    }

    /// The sources `given` names, each resolved once on `devices`: nil where it cannot be (no
    /// connection, an unknown name; opening its stream then says why).
    static func resolve(_ given: [String?], on devices: PulseDevices?) -> [PulseDevice?] {
        given.map { d in try? devices?.resolve(d, direction: .record) }
    }

    /// The same, once the server resolved the names (`-d 1` and `-d NAME` of the same source).
    static func refuseSameSource(_ given: [String?], found: [PulseDevice?]) throws(PulsemeterError) {
        guard given.count > 1 else { return }
        try refuseRepeated(zip(given, found).map { d, f in f?.name ?? d })
    }

    /// The recording of source `position` (0-based) of `count`: the name itself with one
    /// source; with several, `-1`, `-2`, ... (1-based) before the extension (x.wav -> x-1.wav;
    /// a split or trigger pattern x.wav -> x-1-001.wav).
    static func recordPath(_ record: FilePath?, position: Int, count: Int) -> FilePath? {
        guard let record, count > 1 else { return record }
        return FileNamer.perSource(record, position: position + 1)
    }

    /// Each source's options: its own native spec (rate, channels; from `found`, nil: the
    /// options' or the defaults), the duration and the recording's timing in its own frames,
    /// its own recording name, its stream index. What does not depend on the rate is read once.
    static func options(_ a: ParsedArguments, devices given: [String?], found: [PulseDevice?]?,
                        record: FilePath?) throws -> [LiveOptions] {
        let bitrate = try RecordingOptions.bitrate(a, record: record)
        let sampleFormat = try RecordingOptions.sampleFormat(a)
        let keep = try RecordingOptions.keep(a)
        return try given.enumerated().map { k, device in
            let settings = try MeterOptions.settings(a, native: found.flatMap { LiveCommands.nativeSpec(of: $0[k]) })
            let rate = settings.rate
            var o = LiveOptions(device: device, settings: settings, durationFrames: try MeterOptions.durationFrames(a, rate: rate),
                                recordPath: recordPath(record, position: k, count: given.count),
                                reconnect: a.flag("reconnect"), bitrateKbps: bitrate,
                                recordMode: try RecordingOptions.mode(a, settings: settings.settings))
            o.replaceRecording = a.flag("force")
            o.sampleFormat = sampleFormat
            o.takeSplitFrames = try RecordingOptions.takeSplitFrames(a, rate: rate)
            o.keepFiles = keep
            o.stream = given.count > 1 ? k : nil
            return o
        }
    }
}
