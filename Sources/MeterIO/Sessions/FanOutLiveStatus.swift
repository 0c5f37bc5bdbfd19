import MeterCore

/// A fan-out of a live run passes the session's idle calls (no audio arriving: show an
/// outage, follow a resize) to the sinks among its own that want them.
extension FanOutSink: LiveStatusSink {
    public func idle(outage: Bool, stream: Int?) throws {
        for case let s as any LiveStatusSink in sinks { try s.idle(outage: outage, stream: stream) }
    }
}

/// The sink behind a `WithoutEventsSink` (the terminal meter) gets the idle calls too.
extension WithoutEventsSink: LiveStatusSink {
    public func idle(outage: Bool, stream: Int?) throws {
        try (next as? any LiveStatusSink)?.idle(outage: outage, stream: stream)
    }
}
