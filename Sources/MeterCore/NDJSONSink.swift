/// Where encoded output bytes go (a file descriptor in MeterIO, an array in tests).
public protocol ByteOutput: AnyObject {
    /// Writes all of `bytes` at once; throws when the output is gone or failing.
    func write(_ bytes: [UInt8]) throws
}

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
