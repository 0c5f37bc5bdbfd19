/// What a `waveform` run draws (`MeterSettings.waveform`). A waveform run measures its picture
/// and nothing else: no levels per hop, which nothing of it would read.
public enum WaveformRequest: Sendable, Equatable {
    /// `count` bars of the mono mix's RMS and peak over the stream's `frames`, a length known
    /// before the first sample (a bar's boundaries depend on it); the end line carries them
    /// (`StreamSummary.waveform`), with `floorDb` for their levels.
    case bars(count: Int, frames: Int, floorDb: Double)
    /// Min/max pixels (`MinMaxAccumulator`), each carried by the frame whose hop finished it
    /// and the last ones by the end line (`pixels`), so memory stays flat however long the
    /// stream.
    case pixels(split: Bool, layout: MinMaxAccumulator.Layout)
    /// Nothing drawn: the stream's length (its end line's `pos`), for a picture that must
    /// state it before its first pixel.
    case length

    /// The frames a second of audio (`MeterSettings.fps`) its run hands on: one for bars and a
    /// length, whose frames carry nothing (each frame costs a little), and for pixels enough
    /// that a frame carries at most 1,024 of them.
    public func framesPerSecond(rate: Int) -> Double {
        guard case .pixels(_, let layout) = self else { return 1 }
        return min(Double(rate), max(1, Double(rate) / Double(layout.samplesPerPixel * 1024)))
    }
}

/// The waveform as one of the pipeline's measurements: each block into the accumulator the
/// request names, read from the interleaved samples (the accumulators mix to mono themselves,
/// as the pictures always have).
final class WaveformMeasurement: Measurement {
    private let rate: Int
    /// The bars' level floor.
    private var floorDb = Decibels.defaultLevelFloor
    private var bars: WaveformAccumulator?
    private var pixels: MinMaxAccumulator?
    /// Pixels finished since the last frame, (min, max) per output channel each.
    private var finished: [Float] = []

    init(_ request: WaveformRequest, _ s: MeterSettings) {
        rate = s.rate
        switch request {
        case .bars(let count, let frames, let floor):
            floorDb = floor
            bars = WaveformAccumulator(totalFrames: frames, bars: count, channels: s.channels)
        case .pixels(let split, let layout):
            pixels = MinMaxAccumulator(channels: s.channels, split: split, layout: layout)
        case .length:
            break
        }
    }

    func push(_ block: SignalBlock) {
        bars?.push(block.interleaved, frames: block.count)
        pixels?.push(block.interleaved, frames: block.count, into: &finished)
    }

    /// The pipeline reuses its frame: one that finished no pixel carries none.
    func fill(_ frame: inout MeterFrame, hopStart: Int) {
        frame.pixels = finished
        if !finished.isEmpty { finished = [] }
    }

    /// The last pixels: the partial one, and in the bar layout the empty ones left.
    func finish(at pos: Int) {
        pixels?.finish(into: &finished)
    }

    func fill(_ summary: inout StreamSummary) {
        summary.waveform = bars?.result(rate: rate, floorDb: floorDb)
        summary.pixels = finished
    }
}
