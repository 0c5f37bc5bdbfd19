/// Passes a run on to `next` as a run that detects no events shows it: the start without event
/// settings, frames without their events (but for alarms'), no `event` calls, and the end without its events,
/// silence figures and clip totals. A live run that serves its meter detects silence for the
/// `pulsemeter_silence` gauge even when no event lines were asked for; its other sinks (the
/// output, the hooks' event lines) see it through this, so they are as without detection.
public final class WithoutEventsSink: FrameSink {
    public let next: any FrameSink

    public init(_ next: any FrameSink) { self.next = next }

    public func start(_ info: StreamInfo) throws { try next.start(Self.strip(info)) }
    public func frame(_ frame: MeterFrame) throws { try next.frame(Self.strip(frame)) }
    public func gap(_ gap: StreamGap) throws { try next.gap(gap) }
    public func device(_ change: DeviceChange) throws { try next.device(change) }
    public func file(_ event: RecordingFileEvent) throws { try next.file(event) }
    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {}
    public func idle(outage: Bool, stream: Int?) throws { try next.idle(outage: outage, stream: stream) }
    public func flush() throws { try next.flush() }
    public func end(_ summary: StreamSummary) throws { try next.end(Self.strip(summary)) }

    public static func strip(_ info: StreamInfo) -> StreamInfo {
        var info = info
        info.settings.events = nil
        return info
    }

    public static func strip(_ frame: MeterFrame) -> MeterFrame {
        guard !frame.events.isEmpty else { return frame }
        var frame = frame
        frame.events.removeAll { !$0.isAlarm }  // `--alarm` lines come without `--events`
        return frame
    }

    public static func strip(_ summary: StreamSummary) -> StreamSummary {
        var summary = summary
        summary.events = []
        summary.silenceSeconds = nil
        summary.silences = nil
        summary.clippedSamples = nil
        return summary
    }
}
