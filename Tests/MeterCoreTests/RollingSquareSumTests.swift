import Testing
import TestSupport
@testable import MeterCore

@Suite struct RollingSquareSumTests {
    /// (window, blockSize) pairs: multiples, non-multiples, window < block, window == 1, long.
    static let shapes: [(Int, Int)] = [
        (1, 1), (1, 64), (2, 3), (3, 8), (7, 7), (8, 3), (37, 8), (64, 64), (65, 64),
        (100, 64), (130, 64), (128, 16), (200, 1), (50, 200),
        // 128 blocks or more: read partly in groups of blocks (`BlockSums`).
        (512, 4), (1001, 3),
    ]

    /// The relative error a window sum may have against the plain Double sum: within a block
    /// the squares are summed in eight Float lanes, each of at most 256 / 8 = 32 terms, so a
    /// lane is off by at most 33 roundings of 2^-24 (2.0e-6) of its positive sum; bounded
    /// here at 5e-6 (2e-5 dB).
    static let tolerance = 5e-6

    /// Naive sum of squares of samples [max(0, n - w), n).
    static func naive(_ x: [Float], upTo n: Int, window w: Int) -> Double {
        var s = 0.0
        for i in max(0, n - w)..<n { s += Double(x[i]) * Double(x[i]) }
        return s
    }

    static func signal(count: Int, seed: UInt64) -> [Float] {
        var rng = SeededRNG(seed: seed)
        // Noise with bursts and silent stretches, so the window crosses loud/quiet boundaries.
        return (0..<count).map { i in
            let gain: Double = (i / 97) % 3 == 0 ? 0 : ((i / 97) % 3 == 1 ? 1 : 1e-3)
            return Float(rng.signed() * gain)
        }
    }

    static func check(_ r: RollingSquareSum, _ x: [Float], n: Int, window: Int,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = naive(x, upTo: n, window: window)
        let got = r.windowSum()
        #expect(abs(got - expected) <= tolerance * expected,
                "window \(window) block \(r.blockSize) at \(n): \(got) vs naive \(expected)",
                sourceLocation: sourceLocation)
        #expect(r.windowCount == min(n, window), sourceLocation: sourceLocation)
        #expect(r.count == n, sourceLocation: sourceLocation)
    }

    @Test func windowSumMatchesNaiveAtEveryPosition() {
        for (w, b) in Self.shapes {
            let x = Self.signal(count: max(6 * w, 700), seed: UInt64(w * 1000 + b))
            let r = RollingSquareSum(window: w, hop: 1, blockSize: b)
            #expect(r.windowSum() == 0)
            #expect(r.windowCount == 0)
            x.withUnsafeBufferPointer { buf in
                for i in 0..<x.count {
                    let pk = r.push(buf.baseAddress! + i, count: 1)
                    #expect(pk == abs(x[i]))
                    Self.check(r, x, n: i + 1, window: w)
                }
            }
            var total = 0.0
            for v in x { total += Double(v) * Double(v) }
            #expect(abs(r.totalSquares - total) <= Self.tolerance * total)
        }
    }

    @Test func oddPushSizes() {
        let pushSizes = [1, 3, 7, 13, 64, 129, 2, 5, 31, 250, 11, 1, 1, 17]
        for (w, b) in Self.shapes {
            let frames = max(8 * w, 1500)
            let x = Self.signal(count: frames, seed: UInt64(77 + w + b))
            let r = RollingSquareSum(window: w, hop: 1, blockSize: b)
            var n = 0
            var call = 0
            x.withUnsafeBufferPointer { buf in
                while n < frames {
                    let k = min(pushSizes[call % pushSizes.count], frames - n)
                    call += 1
                    let pk = r.push(buf.baseAddress! + n, count: k)
                    #expect(pk == x[n..<(n + k)].map { abs($0) }.max()!)
                    n += k
                    Self.check(r, x, n: n, window: w)
                }
            }
        }
    }

    @Test func silenceAfterLoudNoiseIsExactlyZero() {
        for (w, b) in Self.shapes {
            for loudCount in [1, w - 1, w, w + 3, 5 * w + 7] where loudCount > 0 {
                var rng = SeededRNG(seed: UInt64(loudCount * 31 + w))
                // Loud, with values whose squares do not add up exactly in binary.
                let loud = (0..<loudCount).map { _ in Float(rng.signed() * 0.999) + 1e-4 }
                let r = RollingSquareSum(window: w, hop: 1, blockSize: b)
                loud.withUnsafeBufferPointer { _ = r.push($0.baseAddress!, count: loudCount) }
                let zeros = [Float](repeating: 0, count: 3 * w + 5)
                var pushed = 0
                zeros.withUnsafeBufferPointer { z in
                    for size in [1, 2, 5, 3, 7, 11, 64, 100, 1000] {
                        let k = min(size, zeros.count - pushed)
                        if k == 0 { break }
                        _ = r.push(z.baseAddress!, count: k)
                        pushed += k
                        if pushed >= w {
                            #expect(r.windowSum() == 0, "window \(w) block \(b) loud \(loudCount) zeros \(pushed)")
                            #expect(Decibels.fromPower(r.windowSum() / Double(r.windowCount)) == -160.0)
                        } else {
                            #expect(r.windowSum() > 0)
                        }
                    }
                }
            }
        }
    }

    @Test func silentPipelineFramesAfterNoiseRead160() throws {
        // Through the pipeline: 1 s of full-scale noise, then 1 s of digital silence.
        let rate = 8000
        var rng = SeededRNG(seed: 5)
        var x = (0..<rate).map { _ in Float(rng.signed()) }
        x += [Float](repeating: 0, count: rate)
        let settings = MeterSettings(rate: rate, channels: 1, fps: 50, windowMs: 50)
        let p = try MeterPipeline(settings: ValidSettings(settings))
        var frames: [MeterFrame] = []
        x.withUnsafeBufferPointer { buf in
            p.process(buf.baseAddress!, frames: x.count) { frames.append($0) }
        }
        #expect(frames.count == 100)
        for f in frames where f.pos >= rate + settings.window {
            #expect(f.rmsDb == [-160.0])
        }
        for f in frames where f.pos > rate + settings.hop {
            #expect(f.peakDb == [-160.0])
        }
        for f in frames where f.pos <= rate {
            #expect(f.rmsDb[0] > -10 && f.rmsDb[0] < -3)
        }
    }
}
