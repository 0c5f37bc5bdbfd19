import Foundation
import Testing
import TestSupport
@testable import MeterCore

/// True peak against the exact peak of the band-limited signal (`ExactPeak`): tones to 0.45
/// of the rate and pink noise, and the same peak however the input is split into blocks.
@Suite struct TruePeakAccuracyTests {
    /// The meter's true peak of one channel, fed in blocks of `block` frames.
    static func measured(_ x: [Float], rate: Int, block: Int = 4096) -> Double {
        let meter = TruePeakMeter(rate: rate, channels: 1)
        x.withUnsafeBufferPointer { p in
            var done = 0
            while done < x.count {
                let m = min(block, x.count - done, TruePeakMeter.blockCapacity)
                meter.push(p.baseAddress! + done, channelStride: m, count: m)
                done += m
            }
        }
        return meter.truePeakDb[0]
    }

    /// A sine of amplitude 0.5 faded in and out (Hann, 512 samples each) around 2048 steady
    /// samples, with 64 zeros either side.
    static func fadedTone(hz: Double, rate: Int, phase: Double) -> [Float] {
        let fade = 512, steady = 2048, margin = 64
        let n = 2 * margin + 2 * fade + steady
        return (0..<n).map { i in
            let k = i - margin
            let env: Double
            if k < 0 || k >= 2 * fade + steady { env = 0 }
            else if k < fade { env = 0.5 - 0.5 * cos(Double.pi * Double(k) / Double(fade)) }
            else if k < fade + steady { env = 1 }
            else { env = 0.5 + 0.5 * cos(Double.pi * Double(k - fade - steady) / Double(fade)) }
            return Float(0.5 * env * sin(2 * Double.pi * hz * Double(i) / Double(rate) + phase))
        }
    }

    /// Tones from 100 Hz to 0.45 of the rate, at 44.1, 48 and 96 kHz, two phases each: within
    /// 0.1 dB of the exact peak (BS.1770-4 Annex 2's interpolation alone reads up to 2.6 dB
    /// low at 0.45 of the rate and up to 0.2 dB high below).
    @Test(arguments: [44100, 48000, 96000])
    func fadedTonesWithinATenthOfTheExactPeak(rate: Int) {
        let fs = Double(rate)
        let frequencies = [100, 997, 5000, 10000, fs / 8, fs / 6, fs / 4, 0.3 * fs, 0.35 * fs, 0.4 * fs, 0.42 * fs, 0.45 * fs]
        for hz in frequencies {
            for phase in [0.3, 1.9] {
                let x = Self.fadedTone(hz: hz, rate: rate, phase: phase)
                let exact = ExactPeak.db(x), ours = Self.measured(x, rate: rate)
                #expect(abs(ours - exact) <= 0.1, "\(hz) Hz at \(rate) Hz: \(ours) dBTP, exact \(exact)")
            }
        }
    }

    /// Pink noise: white noise through Paul Kellet's filter (-3 dB an octave to within 0.05 dB
    /// above 10 Hz), faded in and out over 10 ms, 64 zeros either side; `rise`: its level
    /// grows by this factor from start to end.
    static func pinkNoise(rate: Int, count n: Int, seed: UInt64, rise: Double = 1) -> [Float] {
        var rng = LoudnessSignals.LCG(seed)
        let fade = rate / 100, margin = 64
        var b = [Double](repeating: 0, count: 7)
        var x = [Float](repeating: 0, count: n + 2 * margin)
        for i in 0..<n {
            let w = 2 * rng.unit() - 1
            b[0] = 0.99886 * b[0] + w * 0.0555179
            b[1] = 0.99332 * b[1] + w * 0.0750759
            b[2] = 0.96900 * b[2] + w * 0.1538520
            b[3] = 0.86650 * b[3] + w * 0.3104856
            b[4] = 0.55000 * b[4] + w * 0.5329522
            b[5] = -0.7616 * b[5] - w * 0.0168980
            let pink = b[0] + b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + w * 0.5362
            b[6] = w * 0.115926
            let edge = min(i, n - 1 - i)
            let env = edge < fade ? 0.5 - 0.5 * cos(Double.pi * Double(edge) / Double(fade)) : 1
            x[margin + i] = Float(0.1 * env * pink * (1 + (rise - 1) * Double(i) / Double(n)))
        }
        return x
    }

    /// Pink noise within 0.1 dB of the exact peak, which lies between samples.
    @Test(arguments: [44100, 48000, 96000])
    func pinkNoiseWithinATenthOfTheExactPeak(rate: Int) {
        let x = Self.pinkNoise(rate: rate, count: 12000, seed: UInt64(rate) + 7)
        let exact = ExactPeak.db(x), ours = Self.measured(x, rate: rate)
        #expect(abs(ours - exact) <= 0.1, "pink noise at \(rate) Hz: \(ours) dBTP, exact \(exact)")
        #expect(exact > 20 * log10(Double(x.map { abs($0) }.max()!)), "a peak between samples")
    }

    /// Fed in blocks of 1, 4, 13, 40, ... frames or all at once, the peak of rising pink noise
    /// (a new peak every so often) is the same: where a block ends changes neither the coarse
    /// values nor which of them are refined.
    @Test(arguments: [44100, 96000, 192000])
    func blocksDoNotChangeThePeak(rate: Int) {
        let x = Self.pinkNoise(rate: rate, count: 20000, seed: UInt64(rate), rise: 4)
        let whole = Self.measured(x, rate: rate)
        let meter = TruePeakMeter(rate: rate, channels: 1)
        x.withUnsafeBufferPointer { p in
            var done = 0, size = 1
            while done < x.count {
                let m = min(size, x.count - done, TruePeakMeter.blockCapacity)
                meter.push(p.baseAddress! + done, channelStride: m, count: m)
                done += m
                size = size * 3 + 1
            }
        }
        #expect(meter.truePeakDb[0] == whole)
        #expect(abs(whole - ExactPeak.db(x)) <= 0.1, "\(whole) dBTP, exact \(ExactPeak.db(x))")
    }
}
