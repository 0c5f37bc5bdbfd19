@testable import MeterCore
import Testing

/// normalize's DSP: the gain chosen, the quantizer (float exact, 16-bit TPDF dither of
/// ±1 LSB), and the true-peak limiter against `TruePeakMeter` on its output.
@Suite struct NormalizationTests {
    @Test func theGainIsTargetMinusLoudnessCappedByTheCeiling() {
        let free = NormalizationGain(integrated: -20, truePeakDb: -8, target: -16, ceiling: -1, limiter: false)
        #expect(free.gainDb == 4 && !free.limitedByTruePeak && !free.needsLimiter)
        let capped = NormalizationGain(integrated: -20, truePeakDb: -3, target: -16, ceiling: -1, limiter: false)
        #expect(capped.gainDb == 2 && capped.limitedByTruePeak && capped.wantedDb == 4)
        let limited = NormalizationGain(integrated: -20, truePeakDb: -3, target: -16, ceiling: -1, limiter: true)
        #expect(limited.gainDb == 4 && !limited.limitedByTruePeak && limited.needsLimiter)
        #expect(abs(Double(free.linear) - 1.584893) < 1e-6)
    }

    @Test func floatOutputIsTheProductAndSixteenBitIsDithered() {
        let input: [Float] = (0..<10000).map { Float(PureMath.sin(Double($0) * 0.01)) * 0.25 }
        var q = GainQuantizer(gain: 1.5, format: .float, noise: DitherNoise(seed: 1))
        var out = [Float](repeating: 0, count: input.count)
        out.withUnsafeMutableBytes { o in input.withUnsafeBufferPointer { q.apply($0.baseAddress!, count: input.count, into: o.baseAddress!) } }
        #expect(out == input.map { $0 * 1.5 })
        var q16 = GainQuantizer(gain: 1.5, format: .s16, noise: DitherNoise(seed: 2))
        var shorts = [Int16](repeating: 0, count: input.count)
        shorts.withUnsafeMutableBytes { o in input.withUnsafeBufferPointer { q16.apply($0.baseAddress!, count: input.count, into: o.baseAddress!) } }
        let errors = zip(shorts, input).map { Double($0.0) - Double($0.1 * 1.5 * 32768) }
        #expect(errors.allSatisfy { abs($0) < 1.5 }, "within the dither and the rounding")
        let mean = errors.reduce(0, +) / Double(errors.count)
        let power = errors.map { $0 * $0 }.reduce(0, +) / Double(errors.count)
        // TPDF of ±1 LSB (variance 1/6) plus rounding (1/12): 1/4 LSB².
        #expect(abs(mean) < 0.02 && abs(power - 0.25) < 0.02, "mean \(mean), power \(power)")
    }

    @Test func theDitherIsTriangular() {
        var n = DitherNoise(seed: 3)
        let v = (0..<100_000).map { _ in n.triangular() }
        #expect(v.allSatisfy { $0 > -1 && $0 < 1 })
        let inner = v.filter { abs($0) < 0.5 }.count
        #expect(abs(Double(inner) / 100_000 - 0.75) < 0.01, "P(|d| < 1/2) of a triangle over (-1, 1) is 3/4")
    }

    /// Stereo: a 1 kHz tone at -20 dBFS with a burst of 0.45-of-the-rate tone at 0 dBFS,
    /// through the limiter with 12 dB of gain and a -1 dBTP ceiling.
    static func limited(gain: Float, ceilingDb: Double) -> (input: [Float], output: [Float], limiter: TruePeakLimiter) {
        let rate = 48000, frames = 48000
        var input = [Float](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let t = Double(i) / Double(rate)
            var v = 0.1 * PureMath.sin(2 * .pi * 1000 * t)
            if (20000..<22000).contains(i) { v += 0.5 * PureMath.sin(2 * .pi * 0.45 * Double(i) + 0.3) * min(1, Double(i - 20000) / 200) }
            input[2 * i] = Float(v)
            input[2 * i + 1] = Float(-v)
        }
        let limiter = TruePeakLimiter(rate: rate, channels: 2, ceilingDb: ceilingDb, gain: gain)
        var output: [Float] = []
        var buffer = [Float](repeating: 0, count: TruePeakLimiter.blockCapacity * 2)
        var at = 0
        while at < frames {
            let n = min(5000, frames - at)
            let got = input.withUnsafeBufferPointer { i in buffer.withUnsafeMutableBufferPointer { limiter.process(i.baseAddress! + at * 2, frames: n, into: $0.baseAddress!) } }
            output += buffer[0..<(got * 2)]
            at += n
        }
        let got = buffer.withUnsafeMutableBufferPointer { limiter.flush(into: $0.baseAddress!) }
        output += buffer[0..<(got * 2)]
        return (input, output, limiter)
    }

    @Test func theLimiterHoldsTheTruePeakAndPassesTheRest() {
        let (input, output, limiter) = Self.limited(gain: 4, ceilingDb: -1)
        #expect(output.count == input.count, "every frame out, none twice")
        let meter = TruePeakMeter(rate: 48000, channels: 2)
        var planar = [Float](repeating: 0, count: 2 * 4096)
        var at = 0
        while at < output.count / 2 {
            let n = min(4096, output.count / 2 - at)
            for i in 0..<n { planar[i] = output[2 * (at + i)]; planar[4096 + i] = output[2 * (at + i) + 1] }
            planar.withUnsafeBufferPointer { meter.push($0.baseAddress!, channelStride: 4096, count: n) }
            at += n
        }
        #expect(meter.truePeakDb.allSatisfy { $0 <= -1 + 0.01 && $0 > -1.5 }, "true peak \(meter.truePeakDb)")
        // Away from the burst (past the release), the tone is the input times the gain.
        #expect(abs(output[2 * 5000] - input[2 * 5000] * 4) < 1e-5)
        // The release (150 ms) recovers: 25000 frames after the burst, within 5 %.
        let late = (46000..<47000).map { abs(output[2 * $0]) }.max()!, full = (46000..<47000).map { abs(input[2 * $0] * 4) }.max()!
        #expect(late > 0.95 * full && late <= full, "\(late) of \(full)")
        #expect(limiter.deepestReduction < 0.5)
        // Attack within the look-ahead: untouched until L + a frame before the burst.
        let before = 20000 - limiter.lookAheadFrames - 100
        #expect(abs(output[2 * before] - input[2 * before] * 4) < 1e-5)
    }

    @Test func underTheCeilingTheLimiterIsTheGain() {
        let (input, output, limiter) = Self.limited(gain: 0.5, ceilingDb: -1)
        #expect(output == input.map { $0 * 0.5 })
        #expect(limiter.deepestReduction == 1)
    }
}
