import MeterCore
import MeterIO

/// monitor, record and devices: the commands that capture from a PulseAudio server.
enum LiveCommands {
    static let liveSpecs = MeterOptions.specs + [
        OptionSpec("-d", "--device"), OptionSpec("--reconnect", value: false),
    ]

    static func specs(for command: String) -> [OptionSpec]? {
        switch command {
        case "monitor": return liveSpecs + [OptionSpec("--record"), OptionSpec("--bitrate")]
        case "record": return liveSpecs + [OptionSpec("--bitrate")] + RecordingOptions.specs
        case "devices":
            return [OptionSpec("--json", value: false), OptionSpec("--sinks", value: false),
                    OptionSpec("-h", "--help", value: false)]
        case "play": return PlayCommand.specs
        default: return nil
        }
    }

    static func run(_ command: String, _ a: ParsedArguments) throws -> Int32 {
        switch command {
        case "devices": return try devices(a)
        case "play": return try PlayCommand.run(a)
        case "record":
            _ = try a.requirePositionals(["FILE"])
            return try meter(a, record: a.positionalPaths[0])
        default:
            _ = try a.requirePositionals([])
            return try meter(a, record: a.path("record"))
        }
    }

    /// monitor / record: live capture through the shared pipeline.
    static func meter(_ a: ParsedArguments, record: FilePath?) throws -> Int32 {
        let settings = try MeterOptions.settings(a)
        let limit = try MeterOptions.durationFrames(a, rate: settings.rate)
        let mode = try RecordingOptions.mode(a, rate: settings.rate)
        if let device = a.string("device"), device.isEmpty {
            throw PulsemeterError(.usage, "--device needs a source name; run pulsemeter devices to list them")
        }
        let bitrate = try a.int("bitrate", in: 1...100_000, what: "use a bit rate in kbps, e.g. 32 or 128")
        if bitrate != nil && record == nil {
            throw PulsemeterError(.usage, "--bitrate sets the encoder of a recording; add --record FILE")
        }
        let output = try OutputChoice.open(a)
        let format = try MeterOptions.format(a, outputIsTerminal: output.isTerminal)
        Signals.installStopHandlers()
        let cancellation = Cancellation()
        try Signals.cancelOnStop(cancellation)
        let session = try LiveMeterSession(options: LiveOptions(
            device: a.string("device"), settings: settings, durationFrames: limit,
            recordPath: record, reconnect: a.flag("reconnect"), bitrateKbps: bitrate, recordMode: mode),
            cancellation: cancellation)
        let sink: any FrameSink
        var ansi: AnsiLiveSink?
        switch format {
        case .ndjson: sink = NDJSONSink(output: output)
        case .ansi:
            ansi = AnsiLiveSink(output: output, takeResize: Signals.takeResize)
            if case .trigger = mode { ansi!.recordingIdleStatus = "waiting for the trigger" }
            sink = ansi!
        }
        defer { ansi?.restore() }
        let transform = settings.bands > 0 ? FFTWPowerSpectrum(size: settings.fftSize) : nil
        do {
            try session.run(sink: sink, transform: transform)
        } catch is OutputClosed {
            return 0
        }
        return 0
    }

    /// devices: sources (and sinks) with their specs, as a table or JSON.
    static func devices(_ a: ParsedArguments) throws -> Int32 {
        _ = try a.requirePositionals([])
        let pulse = try PulseDevices()
        let server = serverName(try pulse.serverInfo())
        var list = try pulse.sources()
        if a.flag("sinks") { list += try pulse.sinks() }
        let out = FileDescriptorOutput.standardOutput
        if a.flag("json") {
            let b = JSONLineBuilder()
            b.raw("[")
            for (i, d) in list.enumerated() {
                if i > 0 { b.raw(",") }
                b.byte(UInt8(ascii: "{"))
                b.field("name", d.name)
                b.field("kind", d.isSink ? "sink" : "source")
                b.field("description", d.description)
                b.field("rate", d.rate)
                b.field("channels", d.channels)
                b.field("sample_format", d.sampleFormat)
                b.field("monitor", d.monitorOf != nil)
                if let m = d.monitorOf { b.field("monitor_of", m) }
                b.field("default", d.isDefault)
                b.field("index", d.index)
                b.field("server", server)
                b.raw("}")
            }
            b.raw("]\n")
            try out.write(b.bytes)
            return 0
        }
        var text = "\(server)\n"
        for d in list {
            let mark = d.isDefault ? "*" : " "
            let kind = d.isSink ? "sink   " : (d.monitorOf != nil ? "monitor" : "source ")
            text += "\(mark) \(kind)  \(d.name)  (\(d.sampleFormat) \(d.rate) Hz \(d.channels) ch)  \(d.description)\n"
        }
        if list.isEmpty { text += "no sources\n" }
        try out.write(Array(text.utf8))
        return 0
    }

    /// "PulseAudio 16.1", or pipewire-pulse's own name, "PulseAudio (on PipeWire 0.3.65)".
    static func serverName(_ info: PulseServerInfo) -> String {
        if info.isPipeWire || info.name.contains("(") { return info.name }
        let name = info.name == "pulseaudio" ? "PulseAudio" : info.name
        return info.version.isEmpty ? name : "\(name) \(info.version)"
    }
}
