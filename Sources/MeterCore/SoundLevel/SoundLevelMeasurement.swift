/// The sound level meter (`--spl`) as a part of the pipeline: `SoundLevelMeter` over each
/// block's channels; each frame's weighted level and Leq, the end line's Leq, Lmax, Lmin,
/// LCpeak, SEL and percentiles.
final class SoundLevelMeasurement: Measurement {
    private let meter: SoundLevelMeter
    private let rate: Int

    init(_ spl: SoundLevelSettings, _ settings: MeterSettings) {
        meter = SoundLevelMeter(settings: spl, rate: settings.rate, channels: settings.channels)
        rate = settings.rate
    }

    var needs: SignalNeeds { .planar }

    func push(_ block: SignalBlock) {
        meter.push(block.planar!, channelStride: block.channelStride, count: block.count)
    }

    func fill(_ frame: inout MeterFrame, hopStart: Int) { frame.spl = meter.reading() }

    func fill(_ summary: inout StreamSummary) { summary.spl = meter.summary(rate: rate) }
}
