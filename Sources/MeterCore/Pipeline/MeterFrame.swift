/// One meter reading: levels at sample position `pos` (one past the frame's last sample).
public struct MeterFrame: Sendable, Equatable {
    public var pos: Int
    /// Unix time when emitted; live sources only.
    public var ts: Double?
    public var rmsDb: [Double]
    public var peakDb: [Double]
    /// Band levels; nil when bands are off.
    public var bandsDb: [Double]?
    /// With `MeterPipeline.deferBands` and octave bands: this hop's mono mix, until
    /// `DeferredBands` runs it through its filter bank. Never reaches a sink.
    public var pendingOctaves: [Float]?
    /// Per channel, the samples of this hop at or above the clip level (the `--clip-db`
    /// threshold, else the 16-bit rail); counted whether or not events are on (the ANSI clip lamp).
    public var clipSamples: [Int]
    /// With `--events`: the events this frame brought, in order (most frames: none).
    public var events: [MeterEvent] = []
    /// With --loudness: momentary, short-term and integrated loudness at `pos`.
    public var loudness: LoudnessReading?
    /// With the sound level meter: the time-weighted level and Leq per channel.
    public var spl: SoundLevelReading?
    /// With a meter kind: its reading per channel, in its unit (`meter_db`).
    public var meterDb: [Double]?
    /// With two or more channels: the correlation of the first two over the window (-1..+1),
    /// and the right channel's RMS level minus the left's.
    public var correlation: Double?
    public var balanceDb: Double?
    /// Input frames skipped so far (the running `dropped` count), for live counters; not an
    /// NDJSON field of the frame line.
    public var dropped = 0
    /// With several sources in one session: which one (0-based, in the order given), the
    /// NDJSON `stream` field; nil with one source.
    public var stream: Int?
    /// With `--interval` / `--lden` (`PeriodSink`): the period and the day this frame closed,
    /// written before the frame's own line.
    @Boxed public var period: PeriodReport? = nil
    @Boxed public var day: DayReport? = nil
    /// A waveform run's min/max pixels this hop finished ((min, max) per output channel each,
    /// in order; `WaveformRequest.pixels`); empty otherwise. Not an NDJSON field.
    public var pixels: [Float] = []

    public init(pos: Int, ts: Double? = nil, rmsDb: [Double], peakDb: [Double], bandsDb: [Double]? = nil,
                clipSamples: [Int]? = nil) {
        self.pos = pos
        self.ts = ts
        self.rmsDb = rmsDb
        self.peakDb = peakDb
        self.bandsDb = bandsDb
        self.clipSamples = clipSamples ?? Array(repeating: 0, count: rmsDb.count)
    }
}

/// What a stream is, announced once before its frames (the NDJSON `start` line).
public struct StreamInfo: Sendable, Equatable {
    public var source: String
    public var settings: MeterSettings
    /// Band edges as used, when bands are on.
    public var bandsHz: [(Double, Double)]?
    /// True for live capture (frames carry `ts`).
    public var live: Bool
    /// With fractional-octave bands: each band's edges and midband (`bandsHz` holds the edges).
    public var octaveBands: [OctaveBands.Band]?
    /// With several sources in one session: which one (0-based, in the order given), the
    /// NDJSON `stream` field; nil with one source.
    public var stream: Int?
    /// One name per channel as PulseAudio spells positions (`ChannelNames`); by default (or
    /// when the names given are not one per channel) the WAVE order for the channel count.
    public var channelNames: [String]

    public init(source: String, settings: MeterSettings, bandsHz: [(Double, Double)]? = nil, live: Bool = false,
                channelNames: [String]? = nil) {
        self.source = source
        self.settings = settings
        self.channelNames = channelNames.flatMap { $0.count == settings.channels ? $0 : nil }
            ?? ChannelNames.waveDefault(channels: settings.channels)
        self.bandsHz = bandsHz
        self.live = live
    }

    public static func == (a: StreamInfo, b: StreamInfo) -> Bool {
        a.source == b.source && a.stream == b.stream && a.settings == b.settings && a.live == b.live
            && a.octaveBands == b.octaveBands && a.channelNames == b.channelNames
            && (a.bandsHz ?? []).elementsEqual(b.bandsHz ?? [], by: { $0 == $1 })
    }
}

/// Whole-stream figures (the NDJSON `end` line).
public struct StreamSummary: Sendable, Equatable {
    public var pos: Int
    public var rate: Int
    public var rmsDb: [Double]
    public var peakDb: [Double]
    public var dropped: Int
    /// With --loudness: the whole stream's loudness.
    @Boxed public var loudness: LoudnessSummary? = nil
    /// With the sound level meter: Leq, Lmax, Lmin, LCpeak, SEL and percentiles per channel.
    @Boxed public var spl: SoundLevelSummary? = nil
    /// Set when recording.
    public var recordedFrames: Int?
    public var file: String?
    /// With `--events`: clipped samples per channel over the whole stream.
    public var clippedSamples: [Int]?
    /// With `--events`: the silences' total length in seconds.
    public var silenceSeconds: Double?
    /// With `--events`: how many silences there were.
    public var silences: Int?
    /// With bands (FFT or fractional-octave): each band's mean power over the stream's
    /// frames, in dB.
    public var bandsDb: [Double]?
    /// Whether the input was read to its end (files and stdin: false when a stop signal cut
    /// the run short); nil for live runs, which have no end to reach.
    public var complete: Bool?
    /// Events at the very end (a silence that lasted to the last sample ends there); written
    /// before the end line.
    public var events: [MeterEvent]
    /// With several sources in one session: which one (0-based, in the order given), the
    /// NDJSON `stream` field; nil with one source.
    public var stream: Int?
    /// With `--exec`, on the run's last end line: what became of its hooks (`HookSink`).
    public var hooks: HookTotals?
    /// With `--mqtt`, on the end line: the messages for the broker that were dropped
    /// (`MQTTSink`).
    public var mqttDropped: Int?
    /// With `--interval` / `--lden` (`PeriodSink`): the last period and day, cut at the end,
    /// written before the end line.
    @Boxed public var period: PeriodReport? = nil
    @Boxed public var day: DayReport? = nil
    /// A waveform run's bars (`WaveformRequest.bars`), of the frames up to `pos`.
    @Boxed public var waveform: Waveform? = nil
    /// A waveform run's last min/max pixels, finished at the end (as `MeterFrame.pixels`).
    public var pixels: [Float] = []

    public var duration: Double { rate > 0 ? Double(pos) / Double(rate) : 0 }

    public init(pos: Int, rate: Int, rmsDb: [Double], peakDb: [Double], dropped: Int = 0,
                recordedFrames: Int? = nil, file: String? = nil, clippedSamples: [Int]? = nil,
                events: [MeterEvent] = []) {
        self.pos = pos
        self.rate = rate
        self.rmsDb = rmsDb
        self.peakDb = peakDb
        self.dropped = dropped
        self.recordedFrames = recordedFrames
        self.file = file
        self.clippedSamples = clippedSamples
        self.events = events
    }
}

/// Audio a live run did not get (the NDJSON `gap` line): an outage survived with
/// `--reconnect`, or what the server could not hold while the process was stopped (Ctrl-Z).
public struct StreamGap: Sendable, Equatable {
    public enum Reason: String, Sendable {
        /// The server or the device went away and came back (`--reconnect`).
        case sourceLost = "source_lost"
        /// The process was stopped (job control) longer than the server could buffer.
        case stopped
        /// The application metered (`app:NAME`) stopped delivering audio while it played, and
        /// delivered again.
        case underrun
    }
    /// The capture position where audio is missing (frames captured before it).
    public var pos: Int
    public var startTs: Double
    public var endTs: Double
    /// Seconds of audio missing: the outage's length, or for a stop what was measured lost
    /// (at most the time stopped; the server's buffer kept the rest).
    public var seconds: Double
    public var reason: Reason
    /// With several sources in one session: which one (0-based, in the order given), the
    /// NDJSON `stream` field; nil with one source.
    public var stream: Int?
    public init(pos: Int, startTs: Double, endTs: Double, seconds: Double? = nil, reason: Reason = .sourceLost) {
        self.pos = pos
        self.startTs = startTs
        self.endTs = endTs
        self.seconds = seconds ?? endTs - startTs
        self.reason = reason
    }
}

/// Where meter output goes: NDJSON, the ANSI meter, a summary, hooks, the HTTP server, or a
/// test's array.
///
/// Every call is explicit (no default does nothing), so a sink that wraps another forwards
/// each one. The threading rule, which every session keeps: all calls to a sink come from
/// one thread, the session's analysis thread, in order: start, then frames, gaps and file
/// events as they happen, then end. A sink that works on another thread (`BackgroundSink`)
/// hands the calls over itself. A sink throws to stop the run (e.g. its reader went away).
public protocol FrameSink: AnyObject {
    func start(_ info: StreamInfo) throws
    func frame(_ frame: MeterFrame) throws
    func gap(_ gap: StreamGap) throws
    /// What a live source meters changed (a default switched, a stream moved, an
    /// application's streams came or went).
    func device(_ change: DeviceChange) throws
    /// A file of a split or voice-activated recording opened or closed.
    func file(_ event: RecordingFileEvent) throws
    /// An event that comes with no frame, said at once: a live source lost (`source_lost`),
    /// at `ts` (Unix time); frames carry every other event.
    func event(_ event: MeterEvent, ts: Double, stream: Int?) throws
    /// A live run's analysis woke and no audio had arrived: a screen shows the outage
    /// (`outage`: the source is lost and being waited for) or follows a resize. `stream`: the
    /// source with no audio, as on its lines. A wrapper forwards it like every other call.
    func idle(outage: Bool, stream: Int?) throws
    func end(_ summary: StreamSummary) throws
    /// Writes out what the sink has gathered and not yet written (`NDJSONSink` gathering its
    /// lines into fewer writes); a sink that forwards lines forwards this too (no default: a
    /// wrapper that forgot it would hold `analyze`'s lines to the end). `analyze`'s output
    /// thread calls it each time it has written everything queued so far.
    func flush() throws
}
