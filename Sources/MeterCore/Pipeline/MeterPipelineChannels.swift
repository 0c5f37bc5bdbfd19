/// The pipeline's shared signals: each block split into channels and mixed to mono at most once,
/// for every measurement that needs it (`SignalNeeds`), on the pipeline's own scratch buffers
/// (no allocation per block).
extension MeterPipeline {
    /// `n` interleaved frames at `block` in the forms `signalNeeds` asks for.
    func signals(_ block: UnsafePointer<Float>, frames n: Int) -> SignalBlock {
        let planar = signalNeeds.contains(.planar) ? deinterleave(block, frames: n) : nil
        let mono = signalNeeds.contains(.mono) ? monoMix(block, frames: n) : nil
        return SignalBlock(interleaved: block, planar: planar, channelStride: channels == 1 ? 0 : monoCapacity,
                           mono: mono, count: n)
    }

    /// Splits interleaved frames into one contiguous run per channel (in `planar`), so the
    /// per-channel statistics run over contiguous memory.
    private func deinterleave(_ block: UnsafePointer<Float>, frames n: Int) -> UnsafePointer<Float> {
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

    /// The mono mix (mean of the channels), for the spectrum and the octave bands: in one pass
    /// over the interleaved frames, each frame's channels summed in order and scaled (the same
    /// operations, so the same bits, as summing the split channels run by run).
    private func monoMix(_ block: UnsafePointer<Float>, frames n: Int) -> UnsafePointer<Float> {
        if channels == 1 { return block }
        let inv = 1 / Float(channels)
        if channels == 2 {
            for i in 0..<n { mono[i] = (block[2 * i] + block[2 * i + 1]) * inv }
        } else {
            for i in 0..<n {
                let frame = block + i * channels
                var sum = frame[0]
                for c in 1..<channels { sum += frame[c] }
                mono[i] = sum * inv
            }
        }
        return UnsafePointer(mono)
    }
}
