/// The pipeline's per-block channel work: splitting, mixing, the stereo sums and clip counts,
/// on the pipeline's own scratch buffers (no allocation per block).
extension MeterPipeline {
    /// L + R and L - R of the first two channels into the stereo sums.
    func pushStereo(_ channelData: UnsafePointer<Float>, frames n: Int,
                   into stereo: (sum: RollingSquareSum, difference: RollingSquareSum)) {
        let l = channelData, r = channelData + monoCapacity
        let s = stereoScratch, d = stereoScratch + monoCapacity
        for i in 0..<n {
            s[i] = l[i] + r[i]
            d[i] = l[i] - r[i]
        }
        _ = stereo.sum.push(s, count: n)
        _ = stereo.difference.push(d, count: n)
    }

    /// Samples among `n` whose magnitude reaches the clip level.
    func countClipped(_ p: UnsafePointer<Float>, _ n: Int) -> Int {
        var k = 0
        for i in 0..<n where abs(p[i]) >= clipAmplitude { k += 1 }
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
