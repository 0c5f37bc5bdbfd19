/// Measures periods and Lden days over the frames that pass (`PeriodAccumulator`,
/// `DayAccumulator`, one of each per stream) and hands each frame on to `next` carrying the
/// period and day it closed (`MeterFrame.period`, `.day`); the end of a stream carries its
/// last period and day (`StreamSummary.period`, `.day`). Live outages (`gap`) count in the
/// period going on. Everything else passes unchanged.
public final class PeriodSink: FrameSink {
    public let next: any FrameSink
    private let settings: PeriodSettings
    private var streams: [Int: Stream] = [:]

    private struct Stream {
        var clock: FrameClock
        var period: PeriodAccumulator?
        var day: DayAccumulator?
        /// Samples before the sound level meter's detector settles: their levels are left out.
        let settle: Int
        let spl: Bool
    }

    public init(_ next: any FrameSink, settings: PeriodSettings) {
        self.next = next
        self.settings = settings
    }

    public func start(_ info: StreamInfo) throws {
        let m = info.settings
        streams[info.stream ?? 0] = Stream(
            clock: FrameClock(settings: settings, rate: m.rate),
            period: settings.interval.map { PeriodAccumulator(settings: settings, interval: $0, meter: m) },
            day: settings.lden ? DayAccumulator(settings: settings, meter: m) : nil,
            settle: m.spl?.timeWeighting.settlingSamples(rate: m.rate) ?? 0, spl: m.spl != nil)
        try next.start(info)
    }

    public func frame(_ frame: MeterFrame) throws {
        guard var s = streams[frame.stream ?? 0] else { return try next.frame(frame) }
        var frame = frame
        let (time, audio) = s.clock.place(frame)
        let levels = s.spl ? (frame.pos >= s.settle ? frame.spl?.splDb : nil) : frame.rmsDb
        frame.period = s.period?.add(frame, levels: levels, time: time, audio: audio, origin: s.clock.origin ?? time)
        let stream = frame.stream
        frame.period?.stream = stream
        frame.day = s.day?.add(levels: levels, time: time, audio: audio)
        frame.day?.stream = stream
        streams[frame.stream ?? 0] = s
        try next.frame(frame)
    }

    public func gap(_ gap: StreamGap) throws {
        streams[gap.stream ?? 0]?.period?.gap(seconds: gap.seconds)
        try next.gap(gap)
    }

    public func end(_ summary: StreamSummary) throws {
        var summary = summary
        if let s = streams[summary.stream ?? 0] {
            summary.period = s.period?.finish()
            let stream = summary.stream
            summary.period?.stream = stream
            summary.day = s.day?.finish()
            summary.day?.stream = stream
        }
        try next.end(summary)
    }

    public func device(_ change: DeviceChange) throws { try next.device(change) }
    public func file(_ event: RecordingFileEvent) throws { try next.file(event) }
    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {
        try next.event(event, ts: ts, stream: stream)
    }
    public func idle(outage: Bool, stream: Int?) throws { try next.idle(outage: outage, stream: stream) }
    public func flush() throws { try next.flush() }
}
