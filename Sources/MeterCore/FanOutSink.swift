/// Hands every call to several sinks in turn (the terminal or NDJSON output and the network
/// server), so the live session still talks to one sink. The first error stops the call and
/// the run, as a single sink's would.
public final class FanOutSink: FrameSink {
    public let sinks: [any FrameSink]

    public init(_ sinks: [any FrameSink]) { self.sinks = sinks }

    public func start(_ info: StreamInfo) throws { for s in sinks { try s.start(info) } }
    public func frame(_ frame: MeterFrame) throws { for s in sinks { try s.frame(frame) } }
    public func gap(_ gap: StreamGap) throws { for s in sinks { try s.gap(gap) } }
    public func file(_ event: RecordingFileEvent) throws { for s in sinks { try s.file(event) } }
    public func end(_ summary: StreamSummary) throws { for s in sinks { try s.end(summary) } }
}
