import MeterCore
import MeterIO

/// monitor, record and devices: the commands that capture from a PulseAudio server.
enum LiveCommands {
    static let liveSpecs = MeterOptions.specs + [
        OptionSpec("-d", "--device"), OptionSpec("--url"), OptionSpec("--reconnect", value: false),
        OptionSpec("--force", value: false), OptionSpec("--floor"), OptionSpec("--no-history", value: false),
    ] + ListenOptions.specs + MQTTOptions.specs + ReportOptions.specs

    static func specs(for command: String) -> [OptionSpec]? {
        switch command {
        case "monitor": return liveSpecs + [OptionSpec("--record"), OptionSpec("--bitrate"), OptionSpec("--bits")]
        case "record": return liveSpecs + [OptionSpec("--bitrate"), OptionSpec("--bits")] + RecordingOptions.specs
        case "devices":
            return [OptionSpec("--json", value: false), OptionSpec("--sinks", value: false),
                    OptionSpec("--apps", value: false), OptionSpec("-h", "--help", value: false)]
        case "play": return PlayCommand.specs
        case "calibrate": return CalibrateCommand.specs
        default: return nil
        }
    }

    static func run(_ command: String, _ a: ParsedArguments) throws -> Int32 {
        switch command {
        case "devices": return try devices(a)
        case "play": return try PlayCommand.run(a)
        case "calibrate": return try CalibrateCommand.run(a)
        case "record":
            _ = try a.requirePositionals(["FILE"])
            return try meter(a, record: a.positionalPaths[0])
        default:
            _ = try a.requirePositionals([])
            return try meter(a, record: a.path("record"))
        }
    }

    /// monitor / record: a session of live sources (`-d` given several times: side by side in
    /// one run) into the terminal or NDJSON sink, and the HTTP server and hooks when asked.
    static func meter(_ a: ParsedArguments, record: FilePath?) throws -> Int32 {
        // First, so that a stop while the server is first asked ends that wait at once (exit 0).
        let cancellation = try Signals.stopCancellation()  // a stop signal, q, or a failure of one source
        let stopSignal = try Signals.stopCancellation()    // a stop signal only: hooks are ended, not waited for
        let url = try streamURL(a)
        _ = try PeriodOptions.settings(a, live: true, spl: try MeterOptions.read(a).spl != nil)  // before any server
        let given = try LiveSources.devices(a)
        if given.count > 1 && a.has("listen") {
            throw PulsemeterError(.usage, "--listen serves one source: give -d once with --listen")
        }
        if given.count > 1 && a.has("mqtt") {
            throw PulsemeterError(.usage, "--mqtt publishes one source: give -d once with --mqtt")
        }
        _ = try MQTTOptions.address(a)  // before any server
        if given.count > 1 && a.has("report") {
            throw PulsemeterError(.usage, "--report draws one source: give -d once with --report")
        }
        let page = try ReportOptions.page(a, input: a.string("device") ?? a.command)
        let specified = url != nil || (a.string("rate") != nil && a.string("channels") != nil)
        // One server connection finds the native formats and then opens the streams.
        var devices = specified ? nil : try? PulseDevices(cancellation: cancellation)
        if cancellation.isCancelled { return 0 }  // stopped before anything started: nothing to say
        let found = LiveSources.resolve(given, on: devices)  // each name asked once
        try LiveSources.refuseSameSource(given, found: found)
        var all = try LiveSources.options(a, devices: given, found: specified ? nil : found, record: record)
        try checkRecordingOptions(a, record: record, url: url, options: all[0])
        for o in all { try refuseExisting(o.recordPath, mode: o.recordMode, force: a.flag("force")) }
        let levelFloor = try MeterOptions.levelFloor(a)
        // The port is bound before the server is asked anything, so a taken one fails first.
        let listening = try ListenOptions.bind(a)
        let output = try OutputChoice.open(a)
        let format = try MeterOptions.format(a, outputIsTerminal: output.isTerminal, csv: true)
        try PeriodOptions.checkFormat(a, format)
        // Read before anything starts a child (ffmpeg for --url, hooks), which then inherits none of it.
        let serviceManager = NotifySocket.fromEnvironment()
        if record != nil {
            // Space or p on the meter, SIGUSR1 / SIGUSR2 from scripts: every source's recording.
            let pause = PauseControl()
            try Signals.pauseOnSignals(pause)
            for k in all.indices { all[k].pause = pause }
        }
        for k in all.indices { all[k].url = url }
        // A stream keeps the connection it opens on: the first reuses this one, the others open their own.
        let session = try MeterSession(SessionDescription(sources: all.map { .init(live: $0) }), cancellation: cancellation,
                                       devices: devices, continuations: Signals.continuations)
        devices = nil  // the first stream holds the connection now
        for (source, reason) in session.waitingAtStart { CLI.note(ErrorWording.waiting(for: source, reason)) }
        let mode = all[0].recordMode
        let live = RunSinks.Live(
            listening: listening,
            serve: { try httpServer($0, record: record, mode: mode, session: session, mqtt: $1) },
            source: session.liveSourceNames.first ?? url?.shown ?? "default",
            alarms: all[0].settings.settings.alarms.map(\.name), recordings: singleRecordings(all))
        let sinks = try RunSinks.build(a, format: format, output: output, levelFloorDb: levelFloor, terminal: { recordings in
            let (ansi, keys) = try ansiSink(a, output: output, record: record, mode: mode, all: all, recordings: recordings,
                                            session: session, cancellation: cancellation)
            return (ansi, restore: {
                keys.stop()
                Signals.endJobControl()
                ansi.restore()
            })
        }, stop: stopSignal, spl: all[0].settings.settings.spl != nil, page: page, live: live)
        defer { sinks.close() }
        let notifier = serviceNotifier(serviceManager, stop: cancellation)
        // The run can end before the signal thread reaches the wake-up above: said before the exit.
        defer { if Signals.stopRequested { notifier?.stopping() } }
        do {
            try session.run(into: [sinks.sink] + (notifier.map { [$0] } ?? []))
        } catch is OutputClosed {
            return 0
        }
        return 0
    }

    /// Under a service manager (`NOTIFY_SOCKET` set, systemd's `Type=notify`): the sink that
    /// tells it READY, WATCHDOG, STATUS and, on a stop signal, STOPPING (as soon as the run's
    /// cancellation wakes, when a signal caused it); last of the run's sinks, so a ping follows
    /// a frame every other sink took. Without the variable, nothing.
    static func serviceNotifier(_ socket: NotifySocket?, stop: Cancellation) -> ServiceNotifySink? {
        guard let socket else { return nil }
        let notifier = ServiceNotifySink(watchdogInterval: socket.watchdogInterval, clock: monotonicSeconds,
                                         status: ServiceWording.status, send: { socket.send($0) })
        stop.onCancel { if Signals.stopRequested { notifier.stopping() } }
        return notifier
    }

    /// Each source's plain recording (not split, not triggered) by stream index: REC throughout.
    static func singleRecordings(_ all: [LiveOptions]) -> [Int: String] {
        var files: [Int: String] = [:]
        for (k, o) in all.enumerated() where o.recordMode == .single { files[k] = o.recordPath?.string }
        return files
    }

    /// --bits needs a recording and is for PulseAudio capture.
    static func checkRecordingOptions(_ a: ParsedArguments, record: FilePath?, url: StreamURL?,
                                      options: LiveOptions) throws(PulsemeterError) {
        if options.sampleFormat != .s16 && record == nil {
            throw PulsemeterError(.usage, "--bits sets the sample format of a recording; add --record FILE")
        }
        if options.sampleFormat != .s16 && url != nil {
            throw PulsemeterError(.usage, "--bits \(a.string("bits") ?? "") is for PulseAudio capture; a --url stream is decoded to 16-bit samples: drop --bits")
        }
    }

    /// An existing recording is never touched without --force: refused before the server is
    /// asked anything (the recorder's O_EXCL open covers a file appearing meanwhile; split and
    /// trigger number their files instead). A directory, FIFO, device or socket is never
    /// replaced: said as such with or without --force (never "exists; use --force" first).
    static func refuseExisting(_ record: FilePath?, mode: RecordingPlan.Mode, force: Bool) throws {
        guard let record, mode == .single else { return }
        if let kind = NewFile.unreplaceable(record) { throw ErrorWording.output(.cannotReplace(record, kind: kind)) }
        if !force, record.exists { throw PulsemeterError(.cannotCreate, "\(record) exists; use --force to replace it") }
    }

    /// The live meter on the terminal, and its keys beside it (stopped with the terminal's
    /// restore): q or Esc cancels as Ctrl-C does; Ctrl-Z gives the terminal back and stops, fg
    /// takes it again and redraws.
    static func ansiSink(_ a: ParsedArguments, output: FileDescriptorOutput, record: FilePath?, mode: RecordingPlan.Mode,
                         all: [LiveOptions], recordings: OpenRecordings, session: MeterSession,
                         cancellation: Cancellation) throws -> (AnsiLiveSink, KeyCommands) {
        let ansi = AnsiLiveSink(output: output, takeResize: Signals.takeResize, readsKeys: true)
        ansi.recordings = recordings
        ansi.pause = all[0].pause
        ansi.showsHistory = record != nil && !a.flag("no-history")
        if case .trigger = mode { ansi.recordingIdleStatus = "waiting for the trigger" }
        let keys = KeyCommands(screen: ansi.screen, pause: all[0].pause, quit: { cancellation.cancel() },
                               redraw: { [session] in session.nudge() })
        try keys.start()
        do {
            try Signals.handleJobControl(ansi.screen.jobControl(afterContinue: { [session] in session.nudge() }))
        } catch {
            keys.stop()
            throw error
        }
        return (ansi, keys)
    }

    /// The one stderr line of a run that serves, when it starts listening: where.
    static func serving(host: String, port: Int) -> String {
        "serving http://\(ListenOptions.display(host: host, port: port))/"
    }

    /// `--listen`: the HTTP server beside the run's other sinks, on the socket already bound.
    static func httpServer(_ listening: ListeningSocket, record: FilePath?, mode: RecordingPlan.Mode,
                           session: MeterSession, mqtt: MQTTClient? = nil) throws -> MonitorHTTPServer {
        let recording: MonitorState.Recording
        switch (record, mode) {
        case (nil, _): recording = .none
        case (_, .trigger): recording = .takes
        default: recording = .continuous
        }
        do {
            return try MonitorHTTPServer(socket: listening, recording: recording, version: CLI.version) { [session, mqtt] in
                var progress = session.liveProgress!
                progress.mqttDropped = mqtt?.dropped
                return progress
            }
        } catch {
            throw ListenOptions.unavailable(error)
        }
    }

    /// --url: the stream's address (no --device with it).
    static func streamURL(_ a: ParsedArguments) throws(PulsemeterError) -> StreamURL? {
        guard let text = a.string("url") else { return nil }
        if a.has("device") {
            throw PulsemeterError(.usage, "--url and --device do not go together: meter a network stream or a PulseAudio source")
        }
        guard let url = StreamURL(text) else {
            throw PulsemeterError(.usage, "--url \(SafeText.terminal(text)) is not allowed: use a stream address such as http://radio.example:8000/live.mp3")
        }
        return url
    }

    /// The source's own rate and channels, the capture spec unless -r/-c say otherwise (a
    /// 16 kHz mono microphone is metered as such, not resampled to 48 kHz stereo); nil (the
    /// defaults) when the server cannot say (the opening reports why, with its own error), and
    /// within the meter's limits.
    static func nativeSpec(of found: PulseDevice?) -> (rate: Int, channels: Int)? {
        guard let d = found, (1...MeterSettings.maxRate).contains(d.rate), d.channels >= 1 else { return nil }
        return (d.rate, min(d.channels, MeterSettings.maxChannels))
    }

    /// devices: sources (and sinks) with their specs, as a table or JSON.
    static func devices(_ a: ParsedArguments) throws -> Int32 {
        _ = try a.requirePositionals([])
        let pulse = try PulseDevices()
        let server = serverName(try pulse.serverInfo())
        if a.flag("apps") { return try AppListing.run(pulse, json: a.flag("json"), server: server) }
        var list = try pulse.sources()
        if a.flag("sinks") { list += try pulse.sinks() }
        let out = FileDescriptorOutput.standardOutput
        if a.flag("json") {
            try out.write(PulseDeviceList.json(list, server: server))
            return 0
        }
        try out.write(Array(table(list, server: server).utf8))
        return 0
    }

    /// The human listing: the server on the first line, then an aligned table, then how to
    /// use it. `#` is the source index `-d` takes as well as the name; sinks (whose indexes are
    /// another series, the one `play -d` takes) are listed by name with `-` there, so no two
    /// rows carry the same number. `*` marks the defaults; the legend says so only when one is.
    static func table(_ list: [PulseDevice], server: String) -> String {
        guard !list.isEmpty else { return "\(server)\nno sources\n" }
        let header = ["", "#", "NAME", "KIND", "FORMAT", "RATE", "CH", "DESCRIPTION"]
        let rows = [header] + list.map { d in
            [d.isDefault ? "*" : "", d.isSink ? "-" : String(d.index), d.name,
             d.isSink ? "sink" : (d.monitorOf != nil ? "monitor" : "source"),
             d.sampleFormat, String(d.rate), String(d.channels), d.description]
        }
        let text = "\(server)\n" + Listing.table(rows, rightAligned: [1, 5, 6])
        let sinks = list.contains { $0.isSink } ? "; play -d takes a sink's NAME" : ""
        let legend = "-d takes a source's NAME or #" + sinks
        return text + (list.contains { $0.isDefault } ? "* the default; " + legend : legend) + "\n"
    }

    /// "PulseAudio 16.1", or pipewire-pulse's own name, "PulseAudio (on PipeWire 0.3.65)".
    static func serverName(_ info: PulseServerInfo) -> String {
        if info.isPipeWire || info.name.contains("(") { return info.name }
        let name = info.name == "pulseaudio" ? "PulseAudio" : info.name
        return info.version.isEmpty ? name : "\(name) \(info.version)"
    }
}
