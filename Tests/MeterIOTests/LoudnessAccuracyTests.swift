import CEBUR128
import Foundation
import Testing
@testable import MeterCore
@testable import MeterIO

/// EBU R128 accuracy: the EBU Tech 3341 and 3342 cases that are defined by formula,
/// synthesized here; true peak between samples; per-frame momentary and short-term against
/// libebur128's own; threads against a single thread.
@Suite struct LoudnessAccuracyTests {
    /// BS.1770 loudness of 1 kHz sines of these per-channel dBFS amplitudes: at 1 kHz the
    /// K-weighting's gain cancels the -0.691 of the definition, so the loudness is the
    /// weighted sum of the channels' mean squares (A^2 / 2), times 2.
    static func expectedLufs(_ dbfs: [Double], channels: Int) -> Double {
        let roles = LoudnessChannel.roles(channels: channels)
        var sum = 0.0
        for c in 0..<channels { sum += roles[c].weight * pow(10, dbfs[c] / 10) }
        return 10 * log10(sum / 2)
    }

    /// M and S over the steady part (from 3 s on, before the last 0.5 s) and the end's I.
    static func checkSteady(_ r: (frames: [MeterFrame], summary: StreamSummary), rate: Int, until seconds: Double,
                            expected: Double, tolerance: Double = 0.1, sourceLocation: SourceLocation = #_sourceLocation) {
        let steady = r.frames.filter { Double($0.pos) >= 3.0 * Double(rate) && Double($0.pos) <= (seconds - 0.5) * Double(rate) }
        #expect(!steady.isEmpty, sourceLocation: sourceLocation)
        for f in steady {
            #expect(abs(f.loudness!.momentary - expected) <= tolerance, "M \(f.loudness!.momentary) at \(f.pos)", sourceLocation: sourceLocation)
            #expect(abs(f.loudness!.shortTerm - expected) <= tolerance, "S \(f.loudness!.shortTerm) at \(f.pos)", sourceLocation: sourceLocation)
        }
        #expect(abs(r.summary.loudness!.integrated - expected) <= tolerance, "I \(r.summary.loudness!.integrated)", sourceLocation: sourceLocation)
    }

    @Test(arguments: [(-23.0, 1), (-33.0, 2)])
    func tech3341SteadySine(dbfs: Double, caseNumber: Int) throws {
        // Cases 1 and 2: stereo 1 kHz at -23 / -33 dBFS for 20 s: M, S, I = -23 / -33 +-0.1.
        let r = try LoudnessSignals.measure(LoudnessSignals.sine([(20, dbfs)]))
        let expected = Self.expectedLufs([dbfs, dbfs], channels: 2)
        #expect(abs(expected - dbfs) < 0.001)
        Self.checkSteady(r, rate: 48000, until: 20, expected: expected)
        #expect(abs(r.frames.last!.loudness!.integrated - expected) <= 0.1)
        #expect(r.summary.loudness!.range < 1)
    }

    @Test func tech3341GatedCases() throws {
        // Case 3: -36, -23, -36 dBFS for 10, 60, 10 s; case 4 adds -72 dBFS (under the
        // absolute gate) at both ends; case 5: -26, -20, -26 for 20, 20.1, 20 s. I = -23 +-0.1.
        let cases: [[(seconds: Double, dbfs: Double)]] = [
            [(10, -36), (60, -23), (10, -36)],
            [(10, -72), (10, -36), (60, -23), (10, -36), (10, -72)],
            [(20, -26), (20.1, -20), (20, -26)],
        ]
        for segments in cases {
            let r = try LoudnessSignals.measure(LoudnessSignals.sine(segments), fps: 2)
            #expect(abs(r.summary.loudness!.integrated - (-23)) <= 0.1, "\(segments): I \(r.summary.loudness!.integrated)")
            #expect(abs(r.frames.last!.loudness!.integrated - r.summary.loudness!.integrated) <= 0.01)
        }
    }

    @Test func tech3341FiveChannels() throws {
        // Case 6: 5.0 (L R C Ls Rs) at -28, -28, -24, -30, -30 dBFS for 20 s: I = -23 +-0.1
        // (surrounds weigh 1.41).
        let levels = [-28.0, -28, -24, -30, -30]
        let samples = LoudnessSignals.sine([(20, 0)], channels: 5, channelOffsetDb: levels)
        let r = try LoudnessSignals.measure(samples, channels: 5)
        let expected = Self.expectedLufs(levels, channels: 5)
        #expect(abs(expected - (-23)) < 0.05)
        Self.checkSteady(r, rate: 48000, until: 20, expected: expected)
    }

    @Test func tech3341ShortTermCase9() throws {
        // Case 9: 1.34 s at -20 dBFS and 1.66 s at -30 dBFS, repeated: every 3 s window holds
        // the same energy, so S = -23 +-0.1 from 3 s on.
        var segments: [(seconds: Double, dbfs: Double)] = []
        for _ in 0..<5 { segments += [(1.34, -20), (1.66, -30)] }
        let r = try LoudnessSignals.measure(LoudnessSignals.sine(segments), fps: 10)
        let expected = 10 * log10((1.34 * pow(10, -2.0) + 1.66 * pow(10, -3.0)) / 3)
        #expect(abs(expected - (-23)) < 0.05)
        let steady = r.frames.filter { $0.pos >= 3 * 48000 }
        #expect(steady.count > 100)
        for f in steady { #expect(abs(f.loudness!.shortTerm - expected) <= 0.1, "S \(f.loudness!.shortTerm) at \(f.pos)") }
    }

    @Test func tech3342LoudnessRange() throws {
        // Cases 1-4: level steps of a stereo 1 kHz sine; LRA = 10, 5, 20, 15 +-1 LU.
        let cases: [([(seconds: Double, dbfs: Double)], Double)] = [
            ([(20, -20), (20, -30)], 10),
            ([(20, -20), (20, -15)], 5),
            ([(20, -40), (20, -20)], 20),
            ([(20, -50), (20, -35), (20, -20), (20, -35), (20, -50)], 15),
        ]
        // The range is libebur128's alone: measured on the reference directly (the pipeline
        // around it is covered above), which keeps this test short.
        for (segments, lra) in cases {
            let samples = LoudnessSignals.sine(segments)
            let reference = try EBUR128Loudness(rate: 48000, channels: 2)
            samples.withUnsafeBufferPointer { reference.add($0.baseAddress!, frames: samples.count / 2) }
            let range = reference.finish().range
            #expect(abs(range - lra) <= 1, "\(segments): LRA \(range)")
        }
    }

    @Test(arguments: [48000, 44100])
    func truePeakBetweenSamples(rate: Int) throws {
        // fs/4 at 45 degrees: every sample sits at A*sqrt(1/2), 3 dB under the peak. Faded in
        // over 0.5 s (an abrupt onset rings in any oversampler).
        let amplitude = 0.5
        let frames = 3 * rate
        var samples = [Float](repeating: 0, count: frames * 2)
        for n in 0..<frames {
            let fade = min(1, Double(n) / (0.5 * Double(rate)))
            let x = amplitude * (0.5 - 0.5 * cos(Double.pi * fade)) * sin(Double.pi / 2 * Double(n) + Double.pi / 4)
            samples[2 * n] = Float(x)
            samples[2 * n + 1] = Float(x)
        }
        let r = try LoudnessSignals.measure(samples, rate: rate)
        let truePeak = 20 * log10(amplitude)
        for tp in r.summary.loudness!.truePeakDb {
            #expect(tp <= truePeak + 0.2 && tp >= truePeak - 0.4, "true peak \(tp) against \(truePeak)")
        }
        // The sample peak is unchanged: 3.01 dB under.
        let samplePeak = 20 * log10(amplitude * sqrt(0.5))
        for p in r.summary.peakDb { #expect(abs(p - samplePeak) < 0.01) }
    }

    /// Momentary and short-term at every frame against libebur128's own, asked at the same
    /// positions, to 0.01 LU, for every channel layout the roles distinguish.
    @Test(arguments: [1, 2, 5, 6, 8])
    func momentaryAndShortTermMatchLibebur128(channels: Int) throws {
        let rate = 44100
        let samples = LoudnessSignals.programme(seconds: 8, rate: rate, channels: channels)
        let settings = MeterSettings(rate: rate, channels: channels, fps: 30, loudness: true)
        let pipeline = try MeterPipeline(settings: settings)
        let st = try #require(ebur128_init(UInt32(channels), UInt(rate), Int32(EBUR128_MODE_S.rawValue)))
        defer { var p: UnsafeMutablePointer<ebur128_state>? = st; ebur128_destroy(&p) }
        for (c, role) in LoudnessChannel.roles(channels: channels).enumerated() {
            let code: channel = switch role {
            case .left: EBUR128_LEFT
            case .right: EBUR128_RIGHT
            case .center, .other: EBUR128_CENTER
            case .lfe: EBUR128_UNUSED
            case .leftSurround: EBUR128_LEFT_SURROUND
            case .rightSurround: EBUR128_RIGHT_SURROUND
            }
            _ = ebur128_set_channel(st, UInt32(c), Int32(code.rawValue))
        }
        let hop = settings.hop
        var compared = 0
        var worst = 0.0
        samples.withUnsafeBufferPointer { buf in
            var done = 0
            let total = samples.count / channels
            while done + hop <= total {
                var frame: MeterFrame?
                pipeline.process(buf.baseAddress! + done * channels, frames: hop) { frame = $0 }
                _ = ebur128_add_frames_float(st, buf.baseAddress! + done * channels, hop)
                done += hop
                var m = 0.0, s = 0.0
                _ = ebur128_loudness_momentary(st, &m)
                _ = ebur128_loudness_shortterm(st, &s)
                guard let l = frame?.loudness else { continue }
                for (ours, ref) in [(l.momentary, m), (l.shortTerm, s)] where ref.isFinite && ref > -100 {
                    worst = max(worst, abs(ours - ref))
                    compared += 1
                }
            }
        }
        #expect(compared > 300)
        #expect(worst <= 0.01, "largest difference \(worst) LU over \(compared) values, \(channels) channels")
    }

    @Test func threadsGiveTheSingleThreadedResult() throws {
        let samples = LoudnessSignals.programme(seconds: 20)
        let a = try LoudnessSignals.measure(samples, block: 16384, threaded: true)
        let b = try LoudnessSignals.measure(samples, block: 1000, threaded: false)
        #expect(a.summary == b.summary)
        #expect(a.frames == b.frames)
        // The per-frame integrated loudness (the core's gating) agrees with libebur128's.
        #expect(abs(a.frames.last!.loudness!.integrated - a.summary.loudness!.integrated) <= 0.01)
        #expect(a.summary.loudness!.integrated > -40 && a.summary.loudness!.range > 1)
    }

    @Test func silenceReadsTheFloor() throws {
        let r = try LoudnessSignals.measure([Float](repeating: 0, count: 2 * 48000), target: -16)
        let l = try #require(r.summary.loudness)
        #expect(l.integrated == -160 && l.range == 0 && l.maxMomentary == -160 && l.maxShortTerm == -160)
        #expect(l.truePeakDb == [-160, -160])
        #expect(l.gainDb == 144)
        for f in r.frames {
            #expect(f.loudness == LoudnessReading(momentary: -160, shortTerm: -160, integrated: -160))
        }
    }
}
