/// Runs the hooks (`--exec`) in front of the run's output (`next`): each call goes on to `next`,
/// and the lines that hooks run for (`event`, `gap`, `file`, `device`; with `kinds` only those
/// named) become `HookLine`s handed to `submit`, which must not block (the hook runner queues
/// it). Called on the analysis's thread (the `FrameSink` rule).
///
/// At the end of the last stream it waits for the hooks (`settle`: the runner's `finish`, which
/// returns once every accepted hook ran, or after a stop once they were ended), so the end line
/// `next` writes then carries their totals (`hooks_run`, `hooks_dropped`, `hooks_killed`).
///
/// The line given to the hook is the NDJSON line the run writes (the same bytes, from the run's
/// `NDJSONLines`); the variables mirror its fields: PULSEMETER_TYPE its type, _EVENT its
/// `event` (event and file lines), _POS its position, _T that position in seconds, _SOURCE the
/// start line's source, _FILE the file of a `file` line, or the recording the line falls in
/// (`OpenRecordings`). With several sources each line's source, rate and recording are its
/// stream's.
public final class HookSink: FrameSink {
    private let next: any FrameSink
    private let kinds: Set<HookLine.Kind>
    private let submit: (HookLine) -> Void
    private let settle: () -> HookTotals
    private let lines: NDJSONLines
    private let number = JSONLineBuilder()
    /// Each stream's source and rate (index: the stream, 0 with one source).
    private var sources: [Int: String] = [:]
    private var rates: [Int: Int] = [:]
    /// Streams started and not yet ended.
    private var open = 0
    /// The file each stream's recording is writing (fed by the run's `file` lines before this).
    private let recordings: OpenRecordings

    public init(kinds: Set<HookLine.Kind> = Set(HookLine.Kind.allCases), next: any FrameSink,
                lines: NDJSONLines = NDJSONLines(), recordings: OpenRecordings = OpenRecordings(),
                submit: @escaping (HookLine) -> Void, settle: @escaping () -> HookTotals) {
        self.next = next
        self.recordings = recordings
        self.lines = lines
        self.kinds = kinds
        self.submit = submit
        self.settle = settle
    }

    public func start(_ info: StreamInfo) throws {
        try next.start(info)
        open += 1
        _ = lines.start(info)  // the lines' `t` needs the rate (the line itself is next's)
        sources[info.stream ?? 0] = info.source
        rates[info.stream ?? 0] = max(1, info.settings.rate)
    }

    public func frame(_ frame: MeterFrame) throws {
        try next.frame(frame)
        for e in frame.events { handEvent(e, ts: frame.ts, stream: frame.stream) }
    }

    public func gap(_ gap: StreamGap) throws {
        try next.gap(gap)
        guard kinds.contains(.gap) else { return }
        hand(.gap, lines.gap(gap), type: "gap", event: nil, pos: gap.pos, stream: gap.stream)
    }

    public func device(_ change: DeviceChange) throws {
        try next.device(change)
        guard kinds.contains(.device) else { return }
        hand(.device, lines.device(change), type: "device", event: nil, pos: change.pos, stream: change.stream)
    }

    public func file(_ event: RecordingFileEvent) throws {
        try next.file(event)
        if kinds.contains(.file) {
            hand(.file, lines.file(event), type: "file", event: event.kind == .open ? "open" : "close",
                 pos: event.pos, stream: event.stream, file: event.file)
        }
    }

    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {
        try next.event(event, ts: ts, stream: stream)
        handEvent(event, ts: ts, stream: stream)
    }

    public func idle(outage: Bool, stream: Int?) throws { try next.idle(outage: outage, stream: stream) }

    /// The end's events are handed over before `next` writes their lines: the last stream's
    /// end waits for their hooks too.
    public func flush() throws { try next.flush() }

    public func end(_ summary: StreamSummary) throws {
        for e in summary.events { handEvent(e, ts: nil, stream: summary.stream) }
        open -= 1
        var summary = summary
        if open == 0 { summary.hooks = settle() }
        try next.end(summary)
    }

    private func handEvent(_ e: MeterEvent, ts: Double?, stream: Int?) {
        guard let kind = HookLine.Kind(rawValue: e.name), kinds.contains(kind) else { return }
        hand(kind, lines.event(e, ts: ts, stream: stream), type: "event", event: e.name, pos: e.pos, stream: stream)
    }

    /// `file`: the file line's own; other lines get the recording their stream writes.
    private func hand(_ kind: HookLine.Kind, _ line: [UInt8], type: String, event: String?, pos: Int, stream: Int?,
                      file: String? = nil) {
        let k = stream ?? 0
        let file = file ?? recordings.writing(stream), source = sources[k] ?? ""
        let t = Double(pos) / Double(rates[k] ?? 1)
        number.reset()
        number.number(t, decimals: 5)
        var env = ["TYPE": type, "POS": String(pos), "T": String(decoding: number.bytes, as: UTF8.self), "SOURCE": source]
        if let event { env["EVENT"] = event }
        if let file { env["FILE"] = file }
        var named: [String: String] = [:]
        for (k, v) in env { named[HookLine.variablePrefix + k] = v }
        submit(HookLine(kind: kind, line: line, environment: named, t: t))
    }
}
