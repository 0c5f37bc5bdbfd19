/// Writes every start/frame/event/gap/end as one NDJSON line, each line one `write`; a frame's
/// events follow its line.
public final class NDJSONSink: FrameSink {
    private let output: any ByteOutput
    private var encoder: NDJSONEncoder

    /// `levelFloorDb`: live frames carry `level` (see `NDJSONEncoder.levelFloorDb`).
    public init(output: any ByteOutput, levelFloorDb: Double? = nil) {
        self.output = output
        encoder = NDJSONEncoder(levelFloorDb: levelFloorDb)
    }

    public func start(_ info: StreamInfo) throws { try output.write(encoder.start(info)) }
    public func frame(_ frame: MeterFrame) throws {
        try output.write(encoder.frame(frame))
        for e in frame.events { try output.write(encoder.event(e, ts: frame.ts, stream: frame.stream)) }
    }
    public func gap(_ gap: StreamGap) throws { try output.write(encoder.gap(gap)) }
    public func device(_ change: DeviceChange) throws { try output.write(encoder.device(change)) }
    public func file(_ event: RecordingFileEvent) throws { try output.write(encoder.file(event)) }
    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {
        try output.write(encoder.event(event, ts: ts, stream: stream))
    }
    /// No line while no audio arrives: the outage is a `gap` line once the audio is back.
    public func idle(outage: Bool, stream: Int?) throws {}
    public func end(_ summary: StreamSummary) throws {
        for e in summary.events { try output.write(encoder.event(e, ts: nil, stream: summary.stream)) }
        try output.write(encoder.end(summary))
    }
}
