import Foundation
@testable import MeterCore
@testable import MeterIO

/// Test signals for loudness, defined by formula as EBU Tech 3341/3342 define them, and a
/// helpers that run samples through the one pipeline and through the references.
enum LoudnessSignals {
    /// The same sine (1 kHz unless told) on every channel, in segments of (seconds, dBFS
    /// amplitude per channel), phase continuous; `levels` overrides the level per channel.
    static func sine(_ segments: [(seconds: Double, dbfs: Double)], rate: Int = 48000, channels: Int = 2,
                     frequency: Double = 1000, channelOffsetDb: [Double]? = nil) -> [Float] {
        var out: [Float] = []
        var n = 0
        for seg in segments {
            let count = Int((seg.seconds * Double(rate)).rounded())
            out.reserveCapacity(out.count + count * channels)
            for _ in 0..<count {
                let x = sin(2 * Double.pi * frequency * Double(n) / Double(rate))
                for c in 0..<channels {
                    let db = seg.dbfs + (channelOffsetDb?[c] ?? 0)
                    out.append(Float(pow(10, db / 20) * x))
                }
                n += 1
            }
        }
        return out
    }

    /// Programme-like material: noise shaped like speech (syllables at about 4 per second,
    /// words and pauses, phrases at levels spread over `spreadDb` under -8 dB), different on
    /// each channel.
    static func programme(seconds: Double, rate: Int = 48000, channels: Int = 2, spreadDb: Double = 22,
                          seed: UInt64 = 7) -> [Float] {
        var rng = LCG(seed)
        let frames = Int(seconds * Double(rate))
        var out = [Float](repeating: 0, count: frames * channels)
        var lp = [Double](repeating: 0, count: channels)
        var phraseGain = 0.3, syllablePhase = 0.0, inPause = false, untilChange = 0
        for i in 0..<frames {
            if untilChange <= 0 {
                inPause = rng.unit() < 0.25
                untilChange = Int(Double(rate) * (inPause ? 0.2 + 0.8 * rng.unit() : 1 + 3 * rng.unit()))
                if !inPause { phraseGain = pow(10, (-8 - spreadDb * (1 - rng.unit())) / 20) }
            }
            untilChange -= 1
            syllablePhase += 2 * Double.pi * 4.2 / Double(rate)
            let env = inPause ? 0.002 : phraseGain * (0.25 + 0.75 * max(0, sin(syllablePhase)))
            for c in 0..<channels {
                // One-pole low-pass over white noise: more energy low, as in speech.
                lp[c] = 0.7 * lp[c] + 0.3 * (2 * rng.unit() - 1)
                out[i * channels + c] = Float(env * lp[c] * (c == 0 ? 1 : 0.8) * 2.5)
            }
        }
        return out
    }

    /// Not TestSupport's `SeededRNG`, on purpose: the loudness and true-peak cases' bounds
    /// were measured on this sequence's material ("the exact peak exceeds the largest sample
    /// by 0.6 dB at most", "a peak between samples" at each tested rate, libebur128's spread
    /// against the exact peak), so the material stays the same, sample for sample.
    struct LCG {
        var state: UInt64
        init(_ seed: UInt64) { state = seed &* 6364136223846793005 &+ 1442695040888963407 }
        mutating func unit() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
    }

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
