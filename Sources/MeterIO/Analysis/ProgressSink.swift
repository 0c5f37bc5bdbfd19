import MeterCore

/// Forwards everything to `base` and keeps a progress line current while frames go by (analyze
/// on a terminal): audio read and speed, and with a known length the percent and time left.
/// The line is erased before the end is forwarded, so the summary takes its place.
public final class ProgressSink: FrameSink {
    private let base: any FrameSink
    private let line: ProgressLine
    private let label: String
    private let totalFrames: Int?
    private var rate = 1

    /// `totalFrames`: the input's length when known (a file's header, --duration).
    public init(_ base: any FrameSink, line: ProgressLine, label: String, totalFrames: Int?) {
        self.base = base
        self.line = line
        self.label = label
        self.totalFrames = totalFrames
    }

    public func start(_ info: StreamInfo) throws {
        rate = max(1, info.settings.rate)
        try base.start(info)
        draw(pos: 0, force: true)
    }

    public func frame(_ frame: MeterFrame) throws {
        try base.frame(frame)
        draw(pos: frame.pos, force: false)
    }

    public func gap(_ gap: StreamGap) throws { try base.gap(gap) }
    public func device(_ change: DeviceChange) throws { try base.device(change) }
    public func file(_ event: RecordingFileEvent) throws { try base.file(event) }
    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws { try base.event(event, ts: ts, stream: stream) }
    public func idle(outage: Bool, stream: Int?) throws { try base.idle(outage: outage, stream: stream) }

    public func flush() throws { try base.flush() }

    public func end(_ summary: StreamSummary) throws {
        line.clear()
        try base.end(summary)
    }

    private func draw(pos: Int, force: Bool) {
        line.update(force: force) { elapsed, columns in
            ProgressRenderer(width: columns).line(label: label, position: Double(pos) / Double(rate),
                                                  total: totalFrames.map { Double($0) / Double(rate) }, elapsed: elapsed)
        }
    }
}
