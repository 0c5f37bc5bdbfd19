import MeterCore

/// `normalize`'s second pass over one file: every frame of `source` through the gain (and,
/// when given, the true-peak limiter) into the writer of a `FinishingFile`, in blocks.
public enum GainedCopy {
    /// How the copy ended.
    public enum Ending: Sendable, Equatable {
        case complete
        /// `cancellation` stopped it (a signal): the output is incomplete.
        case cancelled
    }

    static let blockFrames = 16384

    /// Copies `source` from its current position to its end. Throws what the reader or the
    /// writer throws (a damaged input, a full disk); the caller discards the output then.
    public static func run(_ source: any SampleBlockSource, into writer: any RecordingWriter,
                           quantizer: inout GainQuantizer, limiter: TruePeakLimiter?,
                           cancellation: Cancellation) throws -> Ending {
        let channels = source.channels
        let input = ScratchBuffer<Float>()
        let limited = ScratchBuffer<Float>()
        let bytes = ScratchBuffer<UInt8>()
        let capacity = blockFrames * channels
        let inBlock = input.pointer(count: capacity)
        let bytesPerFrame = channels * quantizer.format.bytesPerSample
        func emit(_ samples: UnsafePointer<Float>, frames: Int) throws {
            guard frames > 0 else { return }
            let out = bytes.pointer(count: frames * bytesPerFrame)
            quantizer.apply(samples, count: frames * channels, into: out)
            try writer.write(UnsafeRawBufferPointer(start: out, count: frames * bytesPerFrame))
        }
        while true {
            if cancellation.isCancelled { return .cancelled }
            let n = try source.read(into: inBlock, maxFrames: blockFrames)
            if n == 0 { break }
            if let limiter {
                let out = limited.pointer(count: capacity)
                try emit(out, frames: limiter.process(inBlock, frames: n, into: out))
            } else {
                try emit(inBlock, frames: n)
            }
        }
        if let limiter {
            let out = limited.pointer(count: limiter.lookAheadFrames * channels)
            try emit(out, frames: limiter.flush(into: out))
        }
        return .complete
    }

    /// The integrated loudness `limiter` gives `source` from its first frame to its end,
    /// nothing written (a trial of the limiter's gain: limiting lowers the loudness, so
    /// `normalize --limit` raises the gain until the limited output reaches the target). nil
    /// when `cancellation` stopped it.
    public static func loudness(_ source: any AudioFileSource, limiter: TruePeakLimiter,
                                cancellation: Cancellation) throws -> Double? {
        guard source.seek(toFrame: 0) else { return nil }
        let channels = source.channels
        let meter = LoudnessMeter(rate: source.rate, channels: channels)
        let input = ScratchBuffer<Float>(), limited = ScratchBuffer<Float>(), planar = ScratchBuffer<Float>()
        let block = TruePeakMeter.blockCapacity
        let inBlock = input.pointer(count: block * channels)
        let out = limited.pointer(count: max(block, limiter.latency) * channels)
        let planes = planar.pointer(count: max(block, limiter.latency) * channels)
        // At most a block or the latency (a few hundred frames) at a time: within what the
        // meter takes per call.
        func measure(_ frames: Int) {
            guard frames > 0 else { return }
            for c in 0..<channels {
                for i in 0..<frames { planes[c * frames + i] = out[i * channels + c] }
            }
            meter.push(planes, channelStride: frames, count: frames)
        }
        while true {
            if cancellation.isCancelled { return nil }
            let n = try source.read(into: inBlock, maxFrames: block)
            if n == 0 { break }
            measure(limiter.process(inBlock, frames: n, into: out))
        }
        measure(limiter.flush(into: out))
        return meter.summary(target: nil).integrated
    }
}
