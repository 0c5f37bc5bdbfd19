import MeterCore

/// A sink that wants a call while no audio arrives (to show an outage or follow a resize).
public protocol LiveStatusSink: FrameSink {
    /// `stream`: the source that has no audio (several in one run), as on its lines.
    func idle(outage: Bool, stream: Int?) throws
}
