/// What a live run has shown so far, for the network endpoints (metrics, status): the start
/// line, the latest frame and the run's counters. Fed the same calls a `FrameSink` gets, plus
/// the NDJSON lines as written, so /status quotes exactly what the NDJSON output says.
///
/// A value type updated by one writer under the HTTP server's lock and copied out to render.
public struct MonitorState: Sendable {
    /// The stream's description (nil until the start line).
    public private(set) var info: StreamInfo?
    /// The `start` line as written (without its newline).
    public private(set) var startLine: [UInt8]?
    /// The device metered now: the start line's source, then each `device` line's; and the
    /// latest `device` line as written (without its newline), nil before the first.
    public private(set) var source: String?
    public private(set) var deviceLine: [UInt8]?
    /// The latest frame, and its NDJSON line (without its newline).
    public private(set) var latest: MeterFrame?
    public private(set) var latestLine: [UInt8]?
    /// Clipped samples per channel so far (counted with or without `--events`).
    public private(set) var clippedSamples: [Int] = []
    /// True between a `silence_start` and its `silence_end` (`--events`).
    public private(set) var silent = false
    /// Seconds of the silences that ended, and where the current one began.
    private var endedSilenceSeconds = 0.0
    private var silenceStartPos: Int?
    /// The silence counter as last reported: it never goes down, even when a silence's final
    /// length (which ends where the quiet ended) is a little less than it looked while going on.
    public private(set) var silenceSeconds = 0.0
    /// The `--alarm`s on now: each by name and channel (nil for a whole-stream metric).
    public struct AlarmKey: Hashable, Sendable {
        public var name: String
        public var channel: Int?
    }
    public private(set) var alarmsOn: Set<AlarmKey> = []
    public private(set) var gaps = 0
    public private(set) var gapSeconds = 0.0
    /// Whether a file is being written: a single or split recording from the start to the end
    /// line (split files follow each other at once: no gap between a close and the next open),
    /// a triggered one while a take's file is open, as the run's `OpenRecordings` says.
    public var recording: Bool { !ended && (recordingKind == .continuous || takeOpen) }
    /// What `OpenRecordings` said after the latest `file` line: a file is open.
    private var takeOpen = false
    /// True once the `end` line was written.
    public private(set) var ended = false

    // Set by the server from the session when it renders.
    /// Frames written to the recording so far (nil: not recording).
    public var recordedFrames: Int?
    /// 1 while audio arrives: frames are coming and the source is not in an outage.
    public var up = false
    /// True while the source is lost (or not there yet at the start) and waited for.
    public var sourceLost = false
    /// Clients of the event stream dropped for falling behind.
    public var clientsDropped = 0
    /// With `--mqtt`: the messages for the broker dropped so far (nil: no MQTT).
    public var mqttDropped: Int?
    /// The process's own figures (nil: not read).
    public var process: ProcessFigures?

    /// The version the program prints (`pulsemeter_build_info`); nil: not said.
    public let version: String?

    /// What the run records: nothing, one file or split files (a file is open from the first
    /// frame), or voice-activated takes (a file is open while a take is).
    public enum Recording: Sendable { case none, continuous, takes }
    private let recordingKind: Recording

    public init(recording: Recording = .none, version: String? = nil) {
        recordingKind = recording
        self.version = version
    }

    public var framesTotal: Int { latest?.pos ?? 0 }
    public var dropped: Int { latest?.dropped ?? 0 }

    public mutating func start(_ info: StreamInfo, line: [UInt8]) {
        self.info = info
        startLine = Self.trimmed(line)
        source = info.source
        clippedSamples = Array(repeating: 0, count: info.settings.channels)
    }

    public mutating func frame(_ frame: MeterFrame, line: [UInt8]) {
        latest = frame
        latestLine = Self.trimmed(line)
        for (c, n) in frame.clipSamples.enumerated() where c < clippedSamples.count { clippedSamples[c] += n }
        for e in frame.events { event(e) }
        if let start = silenceStartPos, let rate = info?.settings.rate {
            silenceSeconds = max(silenceSeconds, endedSilenceSeconds + Double(max(0, frame.pos - start)) / Double(rate))
        }
    }

    /// The default device switched (or an application source's streams changed): the metrics
    /// are labelled with what is metered from now on.
    public mutating func device(_ change: DeviceChange, line: [UInt8]) {
        if !change.source.isEmpty { source = change.source }
        deviceLine = Self.trimmed(line)
    }

    public mutating func gap(_ gap: StreamGap) {
        gaps += 1
        gapSeconds += gap.seconds
    }

    /// After a `file` line: whether any source's recording has a file open now
    /// (`OpenRecordings.anyOpen`, which saw the line first).
    public mutating func file(anyOpen: Bool) {
        takeOpen = anyOpen
    }

    public mutating func end(_ summary: StreamSummary) {
        for e in summary.events { event(e) }
        ended = true
    }

    private mutating func event(_ e: MeterEvent) {
        switch e.kind {
        case .silenceStart:
            silent = true
            silenceStartPos = e.pos
        case .silenceEnd(let seconds):
            silent = false
            silenceStartPos = nil
            endedSilenceSeconds += seconds
            silenceSeconds = max(silenceSeconds, endedSilenceSeconds)
        case .alarm(let a):
            let key = AlarmKey(name: a.name, channel: a.channel)
            if a.on { alarmsOn.insert(key) } else { alarmsOn.remove(key) }
        case .clip, .sourceLost: break
        }
    }

    private static func trimmed(_ line: [UInt8]) -> [UInt8] {
        line.last == UInt8(ascii: "\n") ? Array(line.dropLast()) : line
    }
}
