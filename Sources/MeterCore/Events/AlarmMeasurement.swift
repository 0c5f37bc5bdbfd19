/// `--alarm` as a part of the pipeline: `AlarmDetector` over each frame's readings; the
/// frame's `alarm_on`/`alarm_off` events. It compares the levels, loudness and sound level, so
/// it comes after every reading.
final class AlarmMeasurement: Measurement {
    private var detector: AlarmDetector

    init(_ settings: MeterSettings) {
        detector = AlarmDetector(specs: settings.alarms, rate: settings.rate, channels: settings.channels)
    }

    /// It reads frames, not samples.
    func push(_ block: SignalBlock) {}

    func fill(_ frame: inout MeterFrame, hopStart: Int) {
        var list = frame.events
        frame.events = []
        detector.observe(frame, into: &list)
        frame.events = list
    }
}
