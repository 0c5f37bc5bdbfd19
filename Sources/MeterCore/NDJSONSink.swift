/// Writes every start/frame/gap/end as one NDJSON line, each line one `write`.
public final class NDJSONSink: FrameSink {
    private let output: any ByteOutput
    private var encoder = NDJSONEncoder()

    public init(output: any ByteOutput) { self.output = output }

    public func start(_ info: StreamInfo) throws { try output.write(encoder.start(info)) }
    public func frame(_ frame: MeterFrame) throws { try output.write(encoder.frame(frame)) }
    public func gap(_ gap: StreamGap) throws { try output.write(encoder.gap(gap)) }
    public func end(_ summary: StreamSummary) throws { try output.write(encoder.end(summary)) }
}
