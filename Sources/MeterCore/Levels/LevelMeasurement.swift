/// The levels as a part of the pipeline, always on: each frame's RMS over the window, peak and
/// clipped samples over the hop per channel, and with two or more channels the correlation and
/// balance of the first two, from the same window sums; the end line's whole-stream RMS and peak.
final class LevelMeasurement: Measurement {
    private let channels: Int
    /// `MeterSettings.levelOffsetDb`: every level is reported shifted by it.
    private let offsetDb: Double
    /// The window sums: channel c's squares in series c and, with two or more channels, the
    /// product of the first two (L R, for the correlation) in series `channels`.
    private let sums: RollingSums
    /// The window sums of the last frame, one per series of `sums`.
    private var windowSums: [Double]
    /// Each channel's peak in the block being pushed (three or more channels).
    private let blockPeaks: UnsafeMutablePointer<Float>
    private var hopPeak: [Float]
    private var hopClips: [Int]
    private var totalPeak: [Float]
    /// Clipped samples are counted in dBFS, on the samples.
    private let clipAmplitude: Float

    init(_ settings: MeterSettings) {
        channels = settings.channels
        offsetDb = settings.levelOffsetDb
        let series = channels >= 2 ? channels + 1 : 1
        sums = RollingSums(series: series, window: settings.window, hop: settings.hop)
        windowSums = Array(repeating: 0, count: series)
        blockPeaks = .allocate(capacity: channels)
        hopPeak = Array(repeating: 0, count: channels)
        hopClips = Array(repeating: 0, count: channels)
        totalPeak = Array(repeating: 0, count: channels)
        clipAmplitude = settings.events?.clipAmplitude ?? EventSettings.railAmplitude
    }

    deinit { blockPeaks.deallocate() }

    /// One or two channels are read interleaved, more split into channels.
    var needs: SignalNeeds { channels > 2 ? .planar : [] }

    /// One pass of the window sums over the block; its peaks, and clipped samples of a
    /// channel whose peak reached the clip level.
    func push(_ block: SignalBlock) {
        let n = block.count
        switch channels {
        case 1:
            var kernel = ChannelSquares(block.interleaved)
            sums.push(&kernel, count: n)
            notePeak(kernel.peak, channel: 0, block.interleaved, stride: 1, frames: n)
        case 2:
            var kernel = StereoSquares(interleaved: block.interleaved)
            sums.push(&kernel, count: n)
            notePeak(kernel.peaks.left, channel: 0, block.interleaved, stride: 2, frames: n)
            notePeak(kernel.peaks.right, channel: 1, block.interleaved + 1, stride: 2, frames: n)
        default:
            let planar = block.planar!
            blockPeaks.initialize(repeating: 0, count: channels)
            var kernel = PlanarSquares(planar: planar, channels: channels, channelStride: block.channelStride,
                                       peaks: blockPeaks)
            sums.push(&kernel, count: n)
            for c in 0..<channels {
                notePeak(blockPeaks[c], channel: c, planar + c * block.channelStride, stride: 1, frames: n)
            }
        }
    }

    @inline(__always)
    private func notePeak(_ peak: Float, channel c: Int, _ samples: UnsafePointer<Float>, stride: Int, frames n: Int) {
        hopPeak[c] = max(hopPeak[c], peak)
        if peak >= clipAmplitude { hopClips[c] += countClipped(samples, stride: stride, n) }
    }

    /// Samples among `n`, `stride` apart, whose magnitude reaches the clip level.
    private func countClipped(_ p: UnsafePointer<Float>, stride: Int, _ n: Int) -> Int {
        var k = 0
        for i in 0..<n where abs(p[i * stride]) >= clipAmplitude { k += 1 }
        return k
    }

    func skip(_ frames: Int) { sums.skip(frames) }

    func expectEnd(at frames: Int) { sums.expectRead(at: frames) }

    func fill(_ frame: inout MeterFrame, hopStart: Int) {
        let n = sums.windowCount
        sums.windowSums(into: &windowSums)
        for c in 0..<channels {
            frame.rmsDb[c] = calibrated(n > 0 ? Decibels.fromPower(windowSums[c] / Double(n)) : Decibels.floor)
            frame.peakDb[c] = calibrated(Decibels.fromAmplitude(Double(hopPeak[c])))
            totalPeak[c] = max(totalPeak[c], hopPeak[c])
            hopPeak[c] = 0
            frame.clipSamples[c] = hopClips[c]
            hopClips[c] = 0
        }
        if channels >= 2 {
            // Over the window: sum L R / sqrt(sum L^2 sum R^2); 0 when either side is silent.
            let ll = windowSums[0], rr = windowSums[1], lr = windowSums[channels]
            frame.correlation = ll > 0 && rr > 0 ? max(-1, min(1, lr / (ll * rr).squareRoot())) : 0
            frame.balanceDb = frame.rmsDb[1] - frame.rmsDb[0]
        }
    }

    func fill(_ summary: inout StreamSummary) {
        let n = sums.received
        summary.rmsDb = (0..<channels).map { c in
            calibrated(n > 0 ? Decibels.fromPower(sums.total(c) / Double(n)) : Decibels.floor)
        }
        summary.peakDb = totalPeak.map { calibrated(Decibels.fromAmplitude(Double($0))) }
    }

    /// A dBFS level in the unit every level is reported in (`Decibels.calibrated`).
    private func calibrated(_ dbfs: Double) -> Double { Decibels.calibrated(dbfs, offset: offsetDb) }
}
