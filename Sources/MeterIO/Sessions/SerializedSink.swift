import MeterCore

/// One sink shared by several threads, each call made under one `Locked`, so the sink sees
/// one caller at a time (the `FrameSink` rule) and every line whole: the analyses of a run
/// with several live sources, each on its own thread, write through it.
final class SerializedSink: FrameSink, Sendable {
    /// The sink, reached only under the lock.
    private let sink: Locked<any FrameSink>

    init(_ sink: any FrameSink) { self.sink = Locked(sink) }

    private func serially(_ body: (any FrameSink) throws -> Void) throws {
        try sink.withLock { (s: inout any FrameSink) throws in try body(s) }
    }

    func start(_ info: StreamInfo) throws { try serially { try $0.start(info) } }
    func frame(_ frame: MeterFrame) throws { try serially { try $0.frame(frame) } }
    func gap(_ gap: StreamGap) throws { try serially { try $0.gap(gap) } }
    func device(_ change: DeviceChange) throws { try serially { try $0.device(change) } }
    func file(_ event: RecordingFileEvent) throws { try serially { try $0.file(event) } }
    func event(_ event: MeterEvent, ts: Double, stream: Int?) throws { try serially { try $0.event(event, ts: ts, stream: stream) } }
    func end(_ summary: StreamSummary) throws { try serially { try $0.end(summary) } }
    func flush() throws { try serially { try $0.flush() } }
    func idle(outage: Bool, stream: Int?) throws {
        try serially { try $0.idle(outage: outage, stream: stream) }
    }
}
