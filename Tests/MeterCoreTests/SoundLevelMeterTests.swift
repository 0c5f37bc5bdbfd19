import Foundation
@testable import MeterCore
import Testing

/// The sound level meter against IEC 61672-1's own numbers, computed here: the analog A and C
/// weightings from the standard's formulas (its pole constants derived in the test, not taken
/// from the code), measured by running sines through the filters; toneburst responses
/// 10 log10(1 - exp(-Tb/tau)) for F and S; Leq, Lmax, Lmin and LCpeak of signals with known
/// levels.
@Suite struct SoundLevelMeterTests {
    /// The analog weightings of IEC 61672-1 (equations E.1-E.6): relative response in dB,
    /// normalized to 0 at 1 kHz.
    static func analog(_ w: FrequencyWeighting, _ f: Double) -> Double {
        let fr = 1000.0, fL = pow(10, 1.5), fH = pow(10, 3.9), d = sqrt(0.5), fA = pow(10, 2.45)
        let b = (1 / (1 - d)) * (fr * fr + fL * fL * fH * fH / (fr * fr) - d * (fL * fL + fH * fH))
        let c = fL * fL * fH * fH
        let f1 = sqrt((-b - sqrt(b * b - 4 * c)) / 2), f4 = sqrt((-b + sqrt(b * b - 4 * c)) / 2)
        let f2 = (3 - sqrt(5)) / 2 * fA, f3 = (3 + sqrt(5)) / 2 * fA
        func raw(_ f: Double) -> Double {
            switch w {
            case .z: return 0
            case .c: return 20 * log10(f4 * f4 * f * f / ((f * f + f1 * f1) * (f * f + f4 * f4)))
            case .a:
                return 20 * log10(f4 * f4 * pow(f, 4) / ((f * f + f1 * f1) * sqrt(f * f + f2 * f2)
                                                            * sqrt(f * f + f3 * f3) * (f * f + f4 * f4)))
            }
        }
        return raw(f) - raw(1000)
    }

    /// Class 1 limits (upper, lower) in dB at the 1/3-octave nominal frequencies 10 Hz..20 kHz:
    /// the tolerances of IEC 61672-1 (the 2002 edition's, the tighter ones: the 2013 edition's
    /// acceptance limits of Table 3 add an allowance for measurement uncertainty).
    static let classOne: [(nominal: Double, upper: Double, lower: Double)] = [
        (10, 3.5, -.infinity), (12.5, 3.0, -.infinity), (16, 2.0, -4.0), (20, 2.0, -2.0), (25, 2.0, -1.5),
        (31.5, 1.5, -1.5), (40, 1.0, -1.0), (50, 1.0, -1.0), (63, 1.0, -1.0), (80, 1.0, -1.0),
        (100, 1.0, -1.0), (125, 1.0, -1.0), (160, 1.0, -1.0), (200, 1.0, -1.0), (250, 1.0, -1.0),
        (315, 1.0, -1.0), (400, 1.0, -1.0), (500, 1.0, -1.0), (630, 1.0, -1.0), (800, 1.0, -1.0),
        (1000, 0.7, -0.7), (1250, 1.0, -1.0), (1600, 1.0, -1.0), (2000, 1.0, -1.0), (2500, 1.0, -1.0),
        (3150, 1.0, -1.0), (4000, 1.0, -1.0), (5000, 1.5, -1.5), (6300, 1.5, -2.0), (8000, 1.5, -2.5),
        (10000, 2.0, -3.0), (12500, 2.0, -5.0), (16000, 2.5, -16.0), (20000, 3.0, -.infinity),
    ]

    /// The gain in dB of `sections` at `hz`, measured: a unit sine through the filter, its RMS
    /// over whole periods after the start-up transient has died away.
    static func measuredGain(_ sections: [BiquadCascade.Section], hz: Double, rate: Int) -> Double {
        let fs = Double(rate)
        let settle = Int(0.6 * fs)
        let periods = max(1, (fs / (fs / hz)).rounded(.down))  // about one second of whole periods
        let measure = Int((periods * fs / hz).rounded())
        let n = settle + measure
        var x = [Float](repeating: 0, count: n)
        for i in 0..<n { x[i] = Float(sin(2 * Double.pi * hz * Double(i) / fs)) }
        let filter = BiquadCascade(sections)
        x.withUnsafeMutableBufferPointer { filter.process($0.baseAddress!, count: n, into: $0.baseAddress!) }
        var sum = 0.0
        for i in settle..<n { sum += Double(x[i]) * Double(x[i]) }
        return 10 * log10(sum / Double(measure) / 0.5)
    }

    @Test(arguments: [44100, 48000, 96000])
    func weightingsMeetClassOneAtEveryThirdOctave(rate: Int) {
        for weighting in [FrequencyWeighting.a, .c] {
            let sections = weighting.sections(rate: rate)
            for (n, limit) in Self.classOne.enumerated() {
                // The exact base-10 midband (the nominal frequency is its rounded name).
                let f = 1000 * pow(10, Double(n - 20) / 10)
                guard f < 0.98 * Double(rate) / 2 else { continue }
                let deviation = Self.measuredGain(sections, hz: f, rate: rate) - Self.analog(weighting, f)
                #expect(deviation <= limit.upper && deviation >= limit.lower,
                        "\(weighting.rawValue) at \(limit.nominal) Hz, \(rate) Hz: \(deviation) dB from the formula")
                // Well inside the limits: 0.2 dB up to 12.5 kHz, 1 dB above.
                #expect(abs(deviation) <= (f < 13000 ? 0.2 : 1.0),
                        "\(weighting.rawValue) at \(limit.nominal) Hz, \(rate) Hz: \(deviation) dB from the formula")
            }
        }
    }

    /// The A weighting reads its formula's -39.5 dB at 31.5 Hz and so on: the measured gain
    /// and the sections' own response agree (the design's arithmetic is what runs).
    @Test func sectionsResponseMatchesTheMeasurement() {
        let sections = FrequencyWeighting.a.sections(rate: 48000)
        for f in [31.5, 1000, 8000] {
            let computed = 10 * log10(BiquadCascade.powerGain(of: sections, atHz: f, rate: 48000))
            #expect(abs(computed - Self.measuredGain(sections, hz: f, rate: 48000)) < 0.02)
        }
        #expect(FrequencyWeighting.z.sections(rate: 48000).isEmpty)
    }

    /// Feeds `samples` (mono) to a meter in odd-sized blocks and returns it.
    static func run(_ samples: [Float], rate: Int, _ settings: SoundLevelSettings) -> SoundLevelMeter {
        let meter = SoundLevelMeter(settings: settings, rate: rate, channels: 1)
        samples.withUnsafeBufferPointer { buf in
            var done = 0, k = 0
            let sizes = [1000, 37, 4096, 5000]
            while done < buf.count {
                let n = min(sizes[k % sizes.count], buf.count - done)
                meter.push(buf.baseAddress! + done, channelStride: 0, count: n)
                done += n
                k += 1
            }
        }
        return meter
    }

    /// IEC 61672-1 Table 4: the maximum time-weighted level of a 4 kHz toneburst of Tb, relative
    /// to the steady level of the same tone, is 10 log10(1 - exp(-Tb/tau)); class 1 limits
    /// +-0.5 dB from 1 s to 200 ms, +-1 dB to 5 ms, then +1 and -1.5, -2, -2.5, -3 dB at 2, 1,
    /// 0.5 and 0.25 ms.
    @Test(arguments: [TimeWeighting.fast, .slow])
    func toneburstResponsesMeetTableFour(weighting: TimeWeighting) {
        let rate = 48000, f = 4000.0
        let bursts: [(ms: Double, lower: Double, upper: Double)] = [
            (1000, -0.5, 0.5), (500, -0.5, 0.5), (200, -0.5, 0.5), (100, -1, 1), (50, -1, 1), (20, -1, 1),
            (10, -1, 1), (5, -1, 1), (2, -1.5, 1), (1, -2, 1), (0.5, -2.5, 1), (0.25, -3, 1),
        ].filter { weighting == .fast || $0.ms >= 2 }
        func tone(_ n: Int) -> [Float] { (0..<n).map { Float(0.5 * sin(2 * Double.pi * f * Double($0) / Double(rate))) } }
        let settings = SoundLevelSettings(weighting: .a, timeWeighting: weighting)
        let steadyMeter = Self.run(tone(Int(12 * weighting.seconds * Double(rate))), rate: rate, settings)
        let steady = steadyMeter.reading().splDb[0]
        #expect(abs(steady - (20 * log10(0.5) - 3.0103 + Self.analog(.a, f))) < 0.1)
        for b in bursts {
            // Whole cycles from a zero crossing, with silence before and after.
            let n = Int((b.ms / 1000 * Double(rate)).rounded())
            let lead = [Float](repeating: 0, count: rate / 10)
            let tail = [Float](repeating: 0, count: Int(2 * weighting.seconds * Double(rate)))
            let meter = Self.run(lead + tone(n) + tail, rate: rate, settings)
            let response = meter.summary(rate: rate).lmaxDb[0] - steady
            let expected = 10 * log10(1 - exp(-b.ms / 1000 / weighting.seconds))
            let d = response - expected
            #expect(d >= b.lower && d <= b.upper, "\(weighting.rawValue) \(b.ms) ms: \(response) dB, expected \(expected)")
        }
    }

    /// A steady sine: Leq, Lmax, Lmin and the percentiles read its level; LCpeak its amplitude
    /// (C is 0 dB at 1 kHz); SEL is Leq + 10 log10(T); the calibration shifts every figure.
    /// The tone fades in over 20 ms: an abrupt onset rings in the weighting filters (as in any
    /// filter) and would raise the peak.
    @Test(arguments: [TimeWeighting.fast, .slow, .impulse])
    func steadyToneReadsItsLevel(weighting: TimeWeighting) {
        let rate = 48000, seconds = 8.0, amp = 0.25
        let n = Int(seconds * Double(rate)), fade = rate / 50
        let x = (0..<n).map { i in
            let g = i < fade ? 0.5 - 0.5 * cos(Double.pi * Double(i) / Double(fade)) : 1
            return Float(g * amp * sin(2 * Double.pi * 1000 * Double(i) / Double(rate)))
        }
        let level = 20 * log10(amp) - 3.0103
        for cal in [nil, 94.0] {
            let meter = SoundLevelMeter(settings: SoundLevelSettings(weighting: .a, timeWeighting: weighting, calibrationDb: cal),
                                        rate: rate, channels: 1)
            x.withUnsafeBufferPointer { buf in
                for k in stride(from: 0, to: n, by: 1600) {
                    meter.push(buf.baseAddress! + k, channelStride: 0, count: min(1600, n - k))
                    _ = meter.reading()
                }
            }
            let s = meter.summary(rate: rate)
            let off = cal ?? 0
            #expect(abs(s.leqDb[0] - level - off) < 0.05)
            #expect(abs(s.selDb[0] - (level + 10 * log10(seconds)) - off) < 0.05)
            #expect(abs(s.lmaxDb[0] - level - off) < 0.1)
            #expect(abs(s.lminDb[0] - level - off) < 0.1)
            #expect(abs(s.lpeakDb[0] - 20 * log10(amp) - off) < 0.05)
            for p in [s.ln[0].l10, s.ln[0].l50, s.ln[0].l90] { #expect(abs(p - level - off) < 0.1) }
        }
    }

    /// I: 35 ms rise, 1.5 s decay: after a loud tone stops, the level falls 10 log10(e)/1.5 =
    /// 2.9 dB a second.
    @Test func impulseDecaysAtItsTimeConstant() {
        let rate = 48000
        let x = (0..<rate).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / Double(rate))) }
            + [Float](repeating: 0, count: rate)
        let settings = SoundLevelSettings(weighting: .z, timeWeighting: .impulse)
        let atEnd = Self.run(Array(x.prefix(rate)), rate: rate, settings).reading().splDb[0]
        let after = Self.run(x, rate: rate, settings).reading().splDb[0]
        #expect(abs((atEnd - after) - 10 * log10(exp(1)) / 1.5) < 0.05)
    }

    @Test func percentilesOfAHistogram() {
        var h = LevelHistogram()
        #expect(h.exceeded(percent: 10) == nil)
        for i in 0..<100 { h.add(Double(i) - 100) }  // -100 ... -1
        #expect(abs(h.exceeded(percent: 10)! - -10) < 0.06)
        #expect(abs(h.exceeded(percent: 50)! - -50) < 0.06)
        #expect(abs(h.exceeded(percent: 90)! - -90) < 0.06)
        // Digital silence reads the floor, exactly.
        var silent = LevelHistogram()
        for _ in 0..<10 { silent.add(Decibels.floor) }
        #expect(silent.exceeded(percent: 50) == Decibels.floor)
    }
}
