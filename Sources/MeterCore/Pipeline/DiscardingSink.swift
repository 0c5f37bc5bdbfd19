/// A sink that takes a run's lines and keeps none: for a measurement that reads only the
/// summary the session returns (`tag`), and the base of a sink that watches a few calls
/// (calibration, the tests' doubles), which overrides those.
open class DiscardingSink: FrameSink {
    public init() {}
    open func start(_ info: StreamInfo) throws {}
    open func frame(_ frame: MeterFrame) throws {}
    open func gap(_ gap: StreamGap) throws {}
    open func device(_ change: DeviceChange) throws {}
    open func file(_ event: RecordingFileEvent) throws {}
    open func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {}
    open func idle(outage: Bool, stream: Int?) throws {}
    open func flush() throws {}
    open func end(_ summary: StreamSummary) throws {}
}
