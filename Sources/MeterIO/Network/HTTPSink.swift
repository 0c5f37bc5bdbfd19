import MeterCore

/// The sink behind `--listen`: every NDJSON line of the run, as `NDJSONSink` writes it, goes
/// to the `MonitorHTTPServer`'s streams, and each call updates the state its /metrics and
/// /status show. Runs on the analysis thread and never waits on a client.
public final class HTTPSink: FrameSink {
    public let server: MonitorHTTPServer
    private let lines = LineCollector()
    private let ndjson: NDJSONSink

    /// `levelFloorDb`: the floor of the frames' `level`, as the run's own NDJSON has it, so
    /// /events carries exactly the lines `-f ndjson` prints.
    public init(server: MonitorHTTPServer, levelFloorDb: Double? = nil) {
        self.server = server
        ndjson = NDJSONSink(output: lines, levelFloorDb: levelFloorDb)
    }

    public func start(_ info: StreamInfo) throws {
        try ndjson.start(info)
        let written = lines.take()
        server.publish(written, frame: false) { $0.start(info, line: written.first ?? []) }
    }

    public func frame(_ frame: MeterFrame) throws {
        try ndjson.frame(frame)
        let written = lines.take()
        server.publish(written, frame: true) { $0.frame(frame, line: written.first ?? []) }
    }

    public func gap(_ gap: StreamGap) throws {
        try ndjson.gap(gap)
        server.publish(lines.take(), frame: false) { $0.gap(gap) }
    }

    public func device(_ change: DeviceChange) throws {
        try ndjson.device(change)
        let written = lines.take()
        server.publish(written, frame: false) { $0.device(change, line: written.first ?? []) }
    }

    public func file(_ event: RecordingFileEvent) throws {
        try ndjson.file(event)
        server.publish(lines.take(), frame: false) { $0.file(event) }
    }

    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {
        try ndjson.event(event, ts: ts, stream: stream)
        server.publish(lines.take(), frame: false) { _ in }
    }

    public func end(_ summary: StreamSummary) throws {
        try ndjson.end(summary)
        server.publish(lines.take(), frame: false) { $0.end(summary) }
    }

    /// Nothing to do while idle: /metrics asks the session whether audio arrives.
    public func idle(outage: Bool, stream: Int?) throws {}
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
