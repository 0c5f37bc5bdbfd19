/// The true peak of the last 3 s of a stream, for the peak-to-short-term-loudness ratio of
/// live frames (`psr_db`): its own `TruePeakMeter`, whose peak is taken at every 100 ms
/// gating step into a ring of the last 30 steps' peaks. A reading covers those 30 steps and
/// the part of the step under way (3 to 3.1 s).
final class RecentTruePeak {
    private let meter: TruePeakMeter
    private var steps: [Float]
    private var next = 0

    init(rate: Int, channels: Int) {
        meter = TruePeakMeter(rate: rate, channels: channels)
        steps = Array(repeating: 0, count: 30)
    }

    func push(_ planar: UnsafePointer<Float>, channelStride: Int, count n: Int) {
        meter.push(planar, channelStride: channelStride, count: n)
    }

    /// A gating step ends: its peak goes into the ring.
    func step() {
        steps[next] = meter.takePeak()
        next = (next + 1) % steps.count
    }

    /// The largest true peak over the channels in the last 3 s (dBTP, floored at -160).
    var peakDb: Double {
        Decibels.fromAmplitude(Double(max(steps.max() ?? 0, meter.currentPeak)))
    }
}
