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
}
