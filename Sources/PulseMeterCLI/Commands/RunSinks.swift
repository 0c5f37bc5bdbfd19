import MeterCore
import MeterIO

/// The sinks of one run (analyze of one input, monitor, record), built from its options here
/// and nowhere else, in one order. From the output outwards, each in front of or beside what
/// was built before it:
///
/// 1. the output: NDJSON, CSV, or for a person the terminal's (monitor's live meter, analyze's
///    summary); the run's `NDJSONLines` encode each line once for every sink below;
/// 2. HTTP (`--listen`): /events, /status, /metrics beside the output (neither gets event
///    lines when events are detected for the silence gauge only);
/// 3. MQTT (`--mqtt`) in front of those: it adds `mqtt_dropped` to the end line;
/// 4. hooks (`--exec`) in front: they settle before the last end line goes on (their totals);
/// 5. periods (`--interval`, `--lden`) in front of all: their lines reach every sink;
/// 6. the report (`--report`) beside the rest (the end line as the hooks got it);
/// 7. a live run's recording status (`OpenRecordings`) first of all: which file is open, as
///    its `file` lines say, for the terminal, the hooks and HTTP.
///
/// analyze's progress line is the session's (`SessionDescription.progress`); a service
/// manager's notifier is handed to the session after `sink`, so its ping follows every sink.
/// `close` lets go of what the run holds, in this order: the HTTP server, the terminal, the
/// hooks (waited for when the end line was not written, its reader gone).
final class RunSinks {
    /// What a live run adds to a file's sinks.
    struct Live {
        var listening: ListeningSocket?
        /// The HTTP server on the bound socket (its /status reads the MQTT client's count).
        var serve: (ListeningSocket, MQTTClient?) throws -> MonitorHTTPServer
        /// The metered source's name (MQTT's default NAME).
        var source: String
        var alarms: [String]
        /// Each source's single recording by stream index (one file throughout, no `file` lines).
        var recordings: [Int: String]
    }

    /// The run's front sink.
    private(set) var sink: any FrameSink
    private let lines: NDJSONLines
    private var hooks: HookRunner?
    private var server: MonitorHTTPServer?
    private var restoreTerminal: () -> Void = {}

    private init(_ lines: NDJSONLines) {
        self.lines = lines
        sink = DiscardingSink()
    }

    /// `terminal`: the output for a person (reading the open recordings) and how to give the
    /// terminal back. `stop`: what ends the hooks rather than waits for them. `spl`: the run
    /// measures sound levels.
    static func build(_ a: ParsedArguments, format: MeterOptions.Format, output: FileDescriptorOutput,
                      levelFloorDb: Double? = nil,
                      terminal: (OpenRecordings) throws -> (any FrameSink, restore: () -> Void),
                      stop: Cancellation, spl: Bool, page: FilePath?, live: Live?) throws -> RunSinks {
        let run = RunSinks(NDJSONLines(levelFloorDb: levelFloorDb))
        do {
            try run.assemble(a, format: format, output: output, terminal: terminal, stop: stop, spl: spl, page: page, live: live)
        } catch {
            run.close()
            throw error
        }
        return run
    }

    private func assemble(_ a: ParsedArguments, format: MeterOptions.Format, output: FileDescriptorOutput,
                          terminal: (OpenRecordings) throws -> (any FrameSink, restore: () -> Void),
                          stop: Cancellation, spl: Bool, page: FilePath?, live: Live?) throws {
        // A file's output thread flushes gathered lines whenever it has written all that is queued.
        let gathering = live == nil
        let recordings = OpenRecordings(single: live?.recordings ?? [:])
        switch format {
        case .ndjson: sink = NDJSONSink(output: output, lines: lines, gathering: gathering)
        case .csv: sink = PeriodOptions.csvSink(a, output: output, gathering: gathering)
        case .ansi: (sink, restoreTerminal) = try terminal(recordings)
        }
        var mqtt: MQTTClient?
        if let live {
            mqtt = try MQTTOptions.client(a, source: live.source)
            if let listening = live.listening {
                try serve(a, listening, server: live.serve(listening, mqtt), recordings: recordings)
            }
            sink = try MQTTOptions.attach(a, to: sink, client: mqtt, source: live.source, periods: a.has("interval"),
                                          alarms: live.alarms, lines: lines)
        }
        (hooks, sink) = try HookOptions.attach(a, to: sink, stop: stop, lines: lines, recordings: recordings)
        sink = try PeriodOptions.attach(a, to: sink, live: live != nil, spl: spl)
        sink = ReportOptions.attach(a, to: sink, page: page, lines: lines)
        if live != nil { sink = FanOutSink([recordings, sink]) }
    }

    /// `--listen`: the HTTP sink beside the output.
    private func serve(_ a: ParsedArguments, _ listening: ListeningSocket, server: MonitorHTTPServer,
                       recordings: OpenRecordings) throws {
        self.server = server
        // Events detected only for the silence gauge reach no other sink.
        let eventLines = MeterOptions.eventLines(a)
        if !eventLines { sink = WithoutEventsSink(sink) }
        // HTTP first: a client that read a line on stdout and then asks /metrics or /status
        // finds the state that line reports.
        sink = FanOutSink([HTTPSink(server: server, lines: lines, eventLines: eventLines, recordings: recordings), sink])
        CLI.note(LiveCommands.serving(host: listening.host, port: listening.port))
    }

    func close() {
        server?.finish()
        restoreTerminal()
        hooks?.finish()
    }
}
