/// `--events` as a part of the pipeline: `EventDetector` over each frame's clip counts and
/// levels; the frame's `clip` and silence events, the end line's clipped samples and silences
/// and the events of the end (a silence lasting to the last sample). It reads the levels, so it
/// comes after them.
final class EventMeasurement: Measurement {
    private var detector: EventDetector
    /// Events of the end of the stream, set by `finish`.
    private var trailing: [MeterEvent] = []

    init(_ events: EventSettings, _ settings: MeterSettings) {
        detector = EventDetector(settings: events, rate: settings.rate, channels: settings.channels,
                                 window: settings.window)
    }

    /// It reads frames, not samples (the levels count the clipped ones).
    func push(_ block: SignalBlock) {}

    func fill(_ frame: inout MeterFrame, hopStart: Int) {
        var list = frame.events
        frame.events = []
        detector.observe(frame, hopStart: hopStart, into: &list)
        frame.events = list
    }

    func finish(at pos: Int) {
        trailing.removeAll()
        detector.finish(at: pos, into: &trailing)
    }

    func fill(_ summary: inout StreamSummary) {
        summary.clippedSamples = detector.clippedTotal
        summary.silenceSeconds = detector.silenceSeconds
        summary.silences = detector.silenceCount
        summary.events = trailing
    }
}
