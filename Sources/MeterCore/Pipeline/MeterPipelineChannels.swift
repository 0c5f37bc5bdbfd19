/// The pipeline's per-block channel work: the levels, splitting, mixing and clip counts, on
/// the pipeline's own scratch buffers (no allocation per block).
extension MeterPipeline {
    /// The levels of `n` frames, `block` interleaved and `planar` the same split into channels
    /// (or `block` itself when nothing needs them split): one pass of `levels` over them,
    /// from the interleaved frames for one or two channels.
    func pushLevels(_ block: UnsafePointer<Float>, planar: UnsafePointer<Float>, frames n: Int) {
        switch channels {
        case 1:
            var kernel = ChannelSquares(block)
            levels.push(&kernel, count: n)
            notePeak(kernel.peak, channel: 0, block, stride: 1, frames: n)
        case 2:
            var kernel = StereoSquares(interleaved: block)
            levels.push(&kernel, count: n)
            notePeak(kernel.peaks.left, channel: 0, block, stride: 2, frames: n)
            notePeak(kernel.peaks.right, channel: 1, block + 1, stride: 2, frames: n)
        default:
            blockPeaks.initialize(repeating: 0, count: channels)
            var kernel = PlanarSquares(planar: planar, channels: channels, channelStride: monoCapacity, peaks: blockPeaks)
            levels.push(&kernel, count: n)
            for c in 0..<channels {
                notePeak(blockPeaks[c], channel: c, planar + c * monoCapacity, stride: 1, frames: n)
            }
        }
    }

    /// Channel c's peak of a block; its clipped samples counted, at a pass only over blocks
    /// whose peak reached the clip level.
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

    /// Splits interleaved frames into one contiguous run per channel (in `planar`), so the
    /// per-channel statistics run over contiguous memory.
    func deinterleave(_ block: UnsafePointer<Float>, frames n: Int) -> UnsafePointer<Float> {
        if channels == 1 { return block }
        if channels == 2 {
            let l = planar, r = planar + monoCapacity
            for i in 0..<n {
                l[i] = block[2 * i]
                r[i] = block[2 * i + 1]
            }
        } else {
            for c in 0..<channels {
                let dst = planar + c * monoCapacity
                for i in 0..<n { dst[i] = block[i * channels + c] }
            }
        }
        return UnsafePointer(planar)
    }

    /// The mono mix (mean of the channels), for the spectrum and the octave bands.
    func monoMix(_ channelData: UnsafePointer<Float>, frames n: Int) -> UnsafePointer<Float> {
        if channels == 1 { return channelData }
        mono.update(from: channelData, count: n)
        for c in 1..<channels {
            let src = channelData + c * monoCapacity
            for i in 0..<n { mono[i] += src[i] }
        }
        let inv = 1 / Float(channels)
        for i in 0..<n { mono[i] *= inv }
        return UnsafePointer(mono)
    }
}
