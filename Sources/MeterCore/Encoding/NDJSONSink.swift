/// Writes every start/frame/event/gap/end as one NDJSON line (encoded once, `NDJSONLines`); a
/// frame's events follow its line.
///
/// Each line is one `write`, or, `gathering`, whole lines are gathered and written together
/// when `flush` is called, when 64 KB are waiting, and with the end line (`analyze` of a file,
/// whose output thread flushes whenever it has written all that is queued: a write per batch
/// of lines instead of one per line). Every write holds whole lines only.
public final class NDJSONSink: FrameSink {
    private let output: any ByteOutput
    private let lines: NDJSONLines
    /// Lines gathered and not yet written (only when gathering).
    private var gathered: [UInt8]?
    private static let gatherLimit = 65536

    /// `lines`: the run's lines, shared with its other sinks that write or read them.
    public init(output: any ByteOutput, lines: NDJSONLines = NDJSONLines(), gathering: Bool = false) {
        self.output = output
        self.lines = lines
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
        guard let batch = gathered, !batch.isEmpty else { return }
        gathered!.removeAll(keepingCapacity: true)
        try output.write(batch)
    }

    public func start(_ info: StreamInfo) throws { try write(lines.start(info)) }
    public func frame(_ frame: MeterFrame) throws {
        try writePeriodLines(frame.period, frame.day)
        try write(lines.frame(frame))
        for e in frame.events { try write(lines.event(e, ts: frame.ts, stream: frame.stream)) }
    }
    /// A period and a day that ended (`PeriodSink`), before the line that follows them.
    private func writePeriodLines(_ period: PeriodReport?, _ day: DayReport?) throws {
        if let period { try write(lines.period(period)) }
        if let day { try write(lines.day(day)) }
    }

    public func gap(_ gap: StreamGap) throws { try write(lines.gap(gap)) }
    public func device(_ change: DeviceChange) throws { try write(lines.device(change)) }
    public func file(_ event: RecordingFileEvent) throws { try write(lines.file(event)) }
    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {
        try write(lines.event(event, ts: ts, stream: stream))
    }
    /// No line while no audio arrives: the outage is a `gap` line once the audio is back.
    public func idle(outage: Bool, stream: Int?) throws {}
    public func end(_ summary: StreamSummary) throws {
        for e in summary.events { try write(lines.event(e, ts: nil, stream: summary.stream)) }
        try writePeriodLines(summary.period, summary.day)
        try write(lines.end(summary))
        try flush()
    }
}
