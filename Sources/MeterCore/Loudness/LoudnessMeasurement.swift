/// `--loudness` as a part of the pipeline: `LoudnessMeter` over each block's channels; each
/// frame's momentary, short-term and integrated loudness with the range and true peaks so far,
/// the end line's whole-stream loudness (and verdict).
final class LoudnessMeasurement: Measurement {
    private let meter: LoudnessMeter
    private let target: Double?
    private let rules: DeliveryRules?

    /// `recentPeak`: also the true peak of the last 3 s, for live frames' `psr_db`.
    init(_ settings: MeterSettings, recentPeak: Bool) {
        meter = LoudnessMeter(rate: settings.rate, channels: settings.channels, hop: settings.hop,
                              recentPeak: recentPeak, framePeaks: settings.framePeaks, dualMono: settings.dualMono)
        target = settings.targetLufs
        rules = settings.delivery
    }

    var needs: SignalNeeds { .planar }

    func push(_ block: SignalBlock) {
        meter.push(block.planar!, channelStride: block.channelStride, count: block.count)
    }

    func expectEnd(at frames: Int) { meter.expectRead(at: frames) }

    func fill(_ frame: inout MeterFrame, hopStart: Int) {
        // The same fields live and from files: the range so far (`lra`), and for the screens
        // the true peak so far and whether the range has settled.
        var reading = meter.reading()
        reading.range = meter.range()
        reading.truePeakDb = meter.truePeakDb
        reading.recentTruePeakDb = meter.recentTruePeakDb
        reading.frameTruePeakDb = meter.takeFrameTruePeakDb()
        reading.rangeSettled = meter.rangeSettled
        frame.loudness = reading
    }

    func fill(_ summary: inout StreamSummary) {
        summary.loudness = meter.summary(target: target, rules: rules)
    }
}
