import Foundation

/// Test signals for loudness, defined by formula as EBU Tech 3341/3342 define them. In
/// TestSupport, which debug builds optimize as they do MeterCore: made unoptimized, minutes of
/// these signals were most of the loudness tests' CPU time. The helpers that run them through
/// the pipeline and through libebur128 extend this in MeterIOTests.
public enum LoudnessSignals {
    /// The same sine (1 kHz unless told) on every channel, in segments of (seconds, dBFS
    /// amplitude per channel), phase continuous; `levels` overrides the level per channel.
    public static func sine(_ segments: [(seconds: Double, dbfs: Double)], rate: Int = 48000, channels: Int = 2,
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
    public static func programme(seconds: Double, rate: Int = 48000, channels: Int = 2, spreadDb: Double = 22,
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
    public struct LCG {
        public var state: UInt64
        public init(_ seed: UInt64) { state = seed &* 6364136223846793005 &+ 1442695040888963407 }
        public mutating func unit() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
    }
}
