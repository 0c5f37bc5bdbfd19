/// A run's NDJSON lines, each encoded once: every sink that writes or reads a line (stdout's
/// `NDJSONSink`, `/events`, hooks, MQTT, the report's figures) asks this one object, the first
/// to ask has the line encoded and the others get the same bytes. A line is the same line when
/// what it is made of is equal (the same gap, event, summary; a frame of the same stream,
/// position and time), so a sink that changed a value (hooks' totals on an end line) gets its
/// own line, and a line nobody asked for is never encoded.
///
/// One per run, shared by its sinks, used on the analysis thread (the `FrameSink` rule; a
/// `BackgroundSink`'s output thread for all of them): one call's sinks ask one after another,
/// so the last line of each kind is all it keeps (a frame's events: those since that frame).
public final class NDJSONLines {
    private var encoder: NDJSONEncoder
    private var start: (StreamInfo, [UInt8])?
    private var frame: (FrameKey, [UInt8])?
    private var events: [(EventKey, [UInt8])] = []
    private var gap: (StreamGap, [UInt8])?
    private var device: (DeviceChange, [UInt8])?
    private var file: (RecordingFileEvent, [UInt8])?
    private var period: (PeriodReport, [UInt8])?
    private var day: (DayReport, [UInt8])?
    private var end: (StreamSummary, [UInt8])?

    /// `levelFloorDb`: live frames carry `level` (see `NDJSONEncoder.levelFloorDb`).
    public init(levelFloorDb: Double? = nil) {
        encoder = NDJSONEncoder(levelFloorDb: levelFloorDb)
    }

    private struct FrameKey: Equatable {
        var stream: Int?, pos: Int, ts: Double?
    }

    private struct EventKey: Equatable {
        var event: MeterEvent, ts: Double?, stream: Int?
    }

    public func start(_ info: StreamInfo) -> [UInt8] {
        if let (i, line) = start, i == info { return line }
        // The encoder learns the stream's rate and calibration: lines kept before may differ now.
        let line = encoder.start(info)
        (frame, gap, device, file, period, day, end) = (nil, nil, nil, nil, nil, nil, nil)
        events.removeAll()
        start = (info, line)
        return line
    }

    public func frame(_ f: MeterFrame) -> [UInt8] {
        let key = FrameKey(stream: f.stream, pos: f.pos, ts: f.ts)
        if let (k, line) = frame, k == key { return line }
        let line = encoder.frame(f)
        frame = (key, line)
        events.removeAll()  // the events of the frame before are all asked for
        return line
    }

    /// A frame line no sink writes as it is: a `/history` slot's merged frames. Not kept.
    public func merged(_ f: MeterFrame) -> [UInt8] { encoder.frame(f) }

    public func event(_ e: MeterEvent, ts: Double?, stream: Int?) -> [UInt8] {
        let key = EventKey(event: e, ts: ts, stream: stream)
        if let line = events.first(where: { $0.0 == key })?.1 { return line }
        let line = encoder.event(e, ts: ts, stream: stream)
        if events.count >= 64 { events.removeAll() }  // events without frames (a live run's source lost)
        events.append((key, line))
        return line
    }

    public func gap(_ g: StreamGap) -> [UInt8] { kept(&gap, g) { $0.gap(g) } }

    public func device(_ c: DeviceChange) -> [UInt8] { kept(&device, c) { $0.device(c) } }

    public func file(_ e: RecordingFileEvent) -> [UInt8] { kept(&file, e) { $0.file(e) } }

    public func period(_ p: PeriodReport) -> [UInt8] { kept(&period, p) { $0.period(p) } }

    public func day(_ d: DayReport) -> [UInt8] { kept(&day, d) { $0.day(d) } }

    public func end(_ s: StreamSummary) -> [UInt8] { kept(&end, s) { $0.end(s) } }

    /// The line kept for `value`, or the one `encode` gives, kept.
    private func kept<V: Equatable>(_ memo: inout (V, [UInt8])?, _ value: V,
                                    _ encode: (inout NDJSONEncoder) -> [UInt8]) -> [UInt8] {
        if let (v, line) = memo, v == value { return line }
        let line = encode(&encoder)
        memo = (value, line)
        return line
    }
}
