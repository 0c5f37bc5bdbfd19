/// Writes every start/frame/event/gap/end as one NDJSON line; a frame's events follow its line.
///
/// Each line is one `write`, or, `gathering`, whole lines are gathered and written together
/// when `flush` is called, when 64 KB are waiting, and with the end line (`analyze` of a file,
/// whose output thread flushes whenever it has written all that is queued: a write per batch
/// of lines instead of one per line). Every write holds whole lines only.
public final class NDJSONSink: FrameSink {
    private let output: any ByteOutput
    private var encoder: NDJSONEncoder
    /// Lines gathered and not yet written (only when gathering).
    private var gathered: [UInt8]?
    private static let gatherLimit = 65536

    /// `levelFloorDb`: live frames carry `level` (see `NDJSONEncoder.levelFloorDb`).
    public init(output: any ByteOutput, levelFloorDb: Double? = nil, gathering: Bool = false) {
        self.output = output
        encoder = NDJSONEncoder(levelFloorDb: levelFloorDb)
        if gathering {
            gathered = []
            gathered!.reserveCapacity(Self.gatherLimit + 4096)
        }
    }

    private func write(_ line: [UInt8]) throws {
        guard gathered != nil else { return try output.write(line) }
        gathered!.append(contentsOf: line)
        if gathered!.count >= Self.gatherLimit { try flush() }
    }

    public func flush() throws {
        guard let lines = gathered, !lines.isEmpty else { return }
        gathered!.removeAll(keepingCapacity: true)
        try output.write(lines)
    }

    public func start(_ info: StreamInfo) throws { try write(encoder.start(info)) }
    public func frame(_ frame: MeterFrame) throws {
        try writePeriodLines(frame.period, frame.day)
        try write(encoder.frame(frame))
        for e in frame.events { try write(encoder.event(e, ts: frame.ts, stream: frame.stream)) }
    }
    /// A period and a day that ended (`PeriodSink`), before the line that follows them.
    private func writePeriodLines(_ period: PeriodReport?, _ day: DayReport?) throws {
        if let period { try write(encoder.period(period)) }
        if let day { try write(encoder.day(day)) }
    }

    public func gap(_ gap: StreamGap) throws { try write(encoder.gap(gap)) }
    public func device(_ change: DeviceChange) throws { try write(encoder.device(change)) }
    public func file(_ event: RecordingFileEvent) throws { try write(encoder.file(event)) }
    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {
        try write(encoder.event(event, ts: ts, stream: stream))
    }
    /// No line while no audio arrives: the outage is a `gap` line once the audio is back.
    public func idle(outage: Bool, stream: Int?) throws {}
    public func end(_ summary: StreamSummary) throws {
        for e in summary.events { try write(encoder.event(e, ts: nil, stream: summary.stream)) }
        try writePeriodLines(summary.period, summary.day)
        try write(encoder.end(summary))
        try flush()
    }
}
