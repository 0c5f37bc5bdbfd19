import MeterCore

/// The sink behind `--listen`: every NDJSON line of the run, as `NDJSONSink` writes it, goes
/// to the `MonitorHTTPServer`'s streams, and each call updates the state its /metrics and
/// /status show and the history /history serves (`HistorySlots` into `FrameHistory`). Runs on
/// the analysis thread and never waits on a client.
public final class HTTPSink: FrameSink {
    public let server: MonitorHTTPServer
    private let lines = LineCollector()
    /// The lines are written as the run's output writes them: without event lines when the
    /// events are detected for the silence gauge only (`WithoutEventsSink`).
    private let ndjsonLines: any FrameSink
    /// The frames merged into /history's slots.
    private var slots: HistorySlots
    /// The run's open recordings, a sink before this one (the state's `recording`).
    private let recordings: OpenRecordings

    /// `lines`: the run's lines, shared with its output, so /events carries exactly the bytes
    /// `-f ndjson` prints. `eventLines` false: the run detects events for /metrics and /status
    /// only; its lines (and /events) have none. `recordings`: the run's, fed the `file` lines
    /// before this sink.
    public init(server: MonitorHTTPServer, lines shared: NDJSONLines, eventLines: Bool = true, recordings: OpenRecordings) {
        self.server = server
        self.recordings = recordings
        let ndjson = NDJSONSink(output: lines, lines: shared)
        slots = HistorySlots(lines: shared)
        ndjsonLines = eventLines ? ndjson : WithoutEventsSink(ndjson)
    }

    public func start(_ info: StreamInfo) throws {
        try ndjsonLines.start(info)
        let written = lines.take()
        server.publish(written, frame: false) { $0.start(info, line: written.first ?? []) }
        if slots.start(info) { server.history { $0 = FrameHistory(rate: info.settings.rate) } }
    }

    public func frame(_ frame: MeterFrame) throws {
        try ndjsonLines.frame(frame)
        let written = lines.take()
        server.publish(written, frame: true) { $0.frame(frame, line: written.first ?? []) }
        // The period and day lines that ended come first, the frame's events after it.
        let at = (frame.period == nil ? 0 : 1) + (frame.day == nil ? 0 : 1)
        guard at < written.count else { return }
        let closed = slots.frame(frame, line: written[at])
        server.history { h in
            if let closed { h.append(closed.line, pos: closed.pos) }
            for (e, line) in zip(frame.events, written.dropFirst(at + 1)) { h.note(line, pos: e.pos, stream: frame.stream) }
        }
    }

    public func gap(_ gap: StreamGap) throws {
        try ndjsonLines.gap(gap)
        let written = lines.take()
        server.publish(written, frame: false) { $0.gap(gap) }
        server.history { h in for line in written { h.note(line, pos: gap.pos, stream: gap.stream) } }
    }

    public func device(_ change: DeviceChange) throws {
        try ndjsonLines.device(change)
        let written = lines.take()
        server.publish(written, frame: false) { $0.device(change, line: written.first ?? []) }
    }

    public func file(_ event: RecordingFileEvent) throws {
        try ndjsonLines.file(event)
        let anyOpen = recordings.anyOpen
        server.publish(lines.take(), frame: false) { $0.file(anyOpen: anyOpen) }
    }

    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {
        try ndjsonLines.event(event, ts: ts, stream: stream)
        let written = lines.take()
        server.publish(written, frame: false) { _ in }
        server.history { h in for line in written { h.note(line, pos: event.pos, stream: stream) } }
    }

    public func end(_ summary: StreamSummary) throws {
        try ndjsonLines.end(summary)
        server.publish(lines.take(), frame: false) { $0.end(summary) }
    }

    /// Nothing to do while idle: /metrics asks the session whether audio arrives.
    public func idle(outage: Bool, stream: Int?) throws {}
    /// Each line is published as it comes.
    public func flush() throws {}
}

/// The lines an `NDJSONSink` wrote during one call.
private final class LineCollector: ByteOutput {
    private var list: [[UInt8]] = []
    func write(_ bytes: [UInt8]) throws { list.append(bytes) }
    func take() -> [[UInt8]] {
        defer { list.removeAll(keepingCapacity: true) }
        return list
    }
}
