/// Hands every line of a run to several sinks, in the order given (the meter's output first,
/// then hooks and whatever else watches the run): the one place where a run's lines fan out,
/// so a session or the analysis never knows how many consumers there are.
///
/// A sink that throws stops the call there (the sinks after it miss that line), and the error
/// goes to the caller as one sink's would: the run ends as it does when its output fails.
public final class FanOutSink: FrameSink {
    public let sinks: [any FrameSink]

    public init(_ sinks: [any FrameSink]) { self.sinks = sinks }

    public func start(_ info: StreamInfo) throws { for s in sinks { try s.start(info) } }
    public func frame(_ frame: MeterFrame) throws { for s in sinks { try s.frame(frame) } }
    public func gap(_ gap: StreamGap) throws { for s in sinks { try s.gap(gap) } }
    public func device(_ change: DeviceChange) throws { for s in sinks { try s.device(change) } }
    public func file(_ event: RecordingFileEvent) throws { for s in sinks { try s.file(event) } }
    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {
        for s in sinks { try s.event(event, ts: ts, stream: stream) }
    }
    public func idle(outage: Bool, stream: Int?) throws { for s in sinks { try s.idle(outage: outage, stream: stream) } }
    public func end(_ summary: StreamSummary) throws { for s in sinks { try s.end(summary) } }
    public func flush() throws { for s in sinks { try s.flush() } }
}
