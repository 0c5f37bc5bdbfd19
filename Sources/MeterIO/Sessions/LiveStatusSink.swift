import MeterCore

/// A sink that wants a call while no audio arrives (to show an outage or follow a resize).
public protocol LiveStatusSink: FrameSink {
    func idle(outage: Bool) throws
}
