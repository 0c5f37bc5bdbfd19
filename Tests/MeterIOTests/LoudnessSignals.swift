import Foundation
import TestSupport
@testable import MeterCore
@testable import MeterIO

/// The loudness signals (TestSupport) through the one pipeline and through the references.
extension LoudnessSignals {
    /// Runs interleaved samples through `MeterPipeline` with loudness on, fed in blocks of
    /// `block` frames; returns every frame and the summary.
    static func measure(_ samples: [Float], rate: Int = 48000, channels: Int = 2, fps: Double = 10,
                        block: Int = 16384, target: Double? = nil)
        throws -> (frames: [MeterFrame], summary: StreamSummary) {
        let settings = MeterSettings(rate: rate, channels: channels, fps: fps, loudness: true, targetLufs: target)
        let pipeline = try MeterPipeline(settings: ValidSettings(settings))
        var frames: [MeterFrame] = []
        let total = samples.count / channels
        samples.withUnsafeBufferPointer { buf in
            var done = 0
            while done < total {
                let n = min(block, total - done)
                pipeline.process(buf.baseAddress! + done * channels, frames: n) { frames.append($0) }
                done += n
            }
            pipeline.finish { frames.append($0) }
        }
        return (frames, pipeline.summary())
    }

    /// The same samples through libebur128.
    static func reference(_ samples: [Float], rate: Int = 48000, channels: Int = 2) -> LibEBUR128 {
        let r = LibEBUR128(rate: rate, channels: channels)
        r.add(samples)
        return r
    }

    /// Loudness range per EBU Tech 3342 (2016) computed here from a list: libebur128's
    /// short-term loudness asked every 100 ms (from 3 s on), the -70 LUFS and -20 LU gates,
    /// and the 10th and 95th percentiles of the sorted values that pass (by rank, index
    /// round((n - 1) * p)).
    static func range10Hz(_ samples: [Float], rate: Int = 48000, channels: Int = 2) -> Double {
        let r = LibEBUR128(rate: rate, channels: channels)
        let step = (rate + 5) / 10
        var values: [Double] = []
        samples.withUnsafeBufferPointer { buf in
            var done = 0
            let total = samples.count / channels
            while done + step <= total {
                r.add(buf.baseAddress! + done * channels, frames: step)
                done += step
                if done >= 30 * step { values.append(r.shortTerm) }
            }
        }
        let energy = { (l: Double) in pow(10, l / 10) }
        let loud = values.filter { $0 >= -70 }
        guard !loud.isEmpty else { return 0 }
        let mean = loud.map(energy).reduce(0, +) / Double(loud.count)
        let gate = 10 * log10(mean) - 20
        let kept = loud.filter { $0 >= gate }.sorted()
        guard !kept.isEmpty else { return 0 }
        let at = { (p: Double) in kept[Int(Double(kept.count - 1) * p + 0.5)] }
        return at(0.95) - at(0.10)
    }
}
