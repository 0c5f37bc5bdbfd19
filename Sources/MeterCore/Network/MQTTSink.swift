/// What an `MQTTSink` hands its messages to (MeterIO's `MQTTClient`): it never waits on the
/// broker. Called on the analysis thread.
public protocol MQTTPublisher: AnyObject {
    /// Sends `message` when connected, else keeps it for later (`MQTTOutbox`).
    func publish(_ message: MQTTMessage)
    /// The retained messages (discovery) sent on this and every later connection, before
    /// `online`.
    func announce(_ messages: [MQTTMessage])
    /// Says `offline`, disconnects, and returns how many messages were dropped in all.
    func finish() -> Int
}

/// `--mqtt`: in front of the run's output (`next`), publishes the meter to a broker: Home
/// Assistant discovery at the start, a state every `every` seconds of the frames' time, each
/// `period`, `day` and `event` line at once on the event topic (the NDJSON line's JSON, the
/// run's `NDJSONLines`), and at the end of the stream the count of what was dropped on the end
/// line (`mqtt_dropped`). Everything passes on to `next` unchanged otherwise.
public final class MQTTSink: FrameSink {
    private let next: any FrameSink
    private let publisher: any MQTTPublisher
    private let topics: MQTTTopics
    private let discovery: MQTTDiscovery
    private let every: Double
    private let periods: Bool
    private let events: Bool
    private let alarms: [String]
    private let lines: NDJSONLines
    private let state = MQTTState()
    private var info: StreamInfo?
    private var due: Double?
    private var lastPeriod: [UInt8]?

    /// `events` false: the run detects events for other sinks only, its lines have none but
    /// the alarms' (`--alarm` lines come without `--events`, as `WithoutEventsSink` passes them).
    /// `alarms`: the names of the run's alarms, a binary sensor each.
    public init(next: any FrameSink, publisher: any MQTTPublisher, topics: MQTTTopics, version: String,
                every: Double, periods: Bool, events: Bool, alarms: [String] = [],
                lines: NDJSONLines = NDJSONLines()) {
        self.next = next
        self.lines = lines
        self.publisher = publisher
        self.topics = topics
        discovery = MQTTDiscovery(topics: topics, version: version)
        self.every = every
        self.periods = periods
        self.events = events
        self.alarms = alarms
    }

    public func start(_ info: StreamInfo) throws {
        try next.start(info)
        self.info = info
        _ = lines.start(info)  // the lines' `t` needs the rate (the line itself is next's)
        publisher.announce(discovery.messages(info, periods: periods, alarms: alarms))
    }

    public func frame(_ frame: MeterFrame) throws {
        try next.frame(frame)
        publishLines(frame.period, frame.day)
        for e in frame.events where events || e.isAlarm { line(lines.event(e, ts: frame.ts, stream: frame.stream)) }
        guard let info else { return }
        let time = frame.ts ?? Double(frame.pos) / Double(max(1, info.settings.rate))
        if time >= (due ?? time) {
            let json = state.encode(frame, info: info, period: lastPeriod)
            publisher.publish(MQTTMessage(topic: topics.state, payload: json, latestOnly: true))
            due = (due ?? time) + every
            if due! <= time { due = time + every }  // after a stall, the next one an interval on
        }
    }

    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {
        try next.event(event, ts: ts, stream: stream)
        if events || event.isAlarm { line(lines.event(event, ts: ts, stream: stream)) }
    }

    public func end(_ summary: StreamSummary) throws {
        for e in summary.events where events || e.isAlarm { line(lines.event(e, ts: nil, stream: summary.stream)) }
        publishLines(summary.period, summary.day)
        var summary = summary
        summary.mqttDropped = publisher.finish()
        try next.end(summary)
    }

    private func publishLines(_ period: PeriodReport?, _ day: DayReport?) {
        if let period {
            lastPeriod = lines.period(period)
            line(lastPeriod!)
        }
        if let day { line(lines.day(day)) }
    }

    /// An NDJSON line on the event topic, without its newline.
    private func line(_ bytes: [UInt8]) {
        let json = bytes.last == UInt8(ascii: "\n") ? Array(bytes.dropLast()) : bytes
        publisher.publish(MQTTMessage(topic: topics.event, payload: json))
    }

    public func gap(_ gap: StreamGap) throws { try next.gap(gap) }
    public func device(_ change: DeviceChange) throws { try next.device(change) }
    public func file(_ event: RecordingFileEvent) throws { try next.file(event) }
    public func idle(outage: Bool, stream: Int?) throws { try next.idle(outage: outage, stream: stream) }
    public func flush() throws { try next.flush() }
}
