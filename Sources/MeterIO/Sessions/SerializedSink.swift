import MeterCore

/// One sink shared by several threads, each call made under one `Locked`, so the sink sees
/// one caller at a time (the `FrameSink` rule) and every line whole: the analyses of a run
/// with several live sources, each on its own thread, write through it.
final class SerializedSink: LiveStatusSink, @unchecked Sendable {
    // Invariant for @unchecked Sendable: `sink` is reached only inside `lock.withLock`.
    private let sink: any FrameSink
    private let lock = Locked(())

    init(_ sink: any FrameSink) { self.sink = sink }

    private func serially(_ body: (any FrameSink) throws -> Void) throws {
        try lock.withLock { (_: inout Void) throws in try body(sink) }
    }

    func start(_ info: StreamInfo) throws { try serially { try $0.start(info) } }
    func frame(_ frame: MeterFrame) throws { try serially { try $0.frame(frame) } }
    func gap(_ gap: StreamGap) throws { try serially { try $0.gap(gap) } }
    func device(_ change: DeviceChange) throws { try serially { try $0.device(change) } }
    func file(_ event: RecordingFileEvent) throws { try serially { try $0.file(event) } }
    func end(_ summary: StreamSummary) throws { try serially { try $0.end(summary) } }
    func idle(outage: Bool, stream: Int?) throws {
        try serially { try ($0 as? any LiveStatusSink)?.idle(outage: outage, stream: stream) }
    }
}
