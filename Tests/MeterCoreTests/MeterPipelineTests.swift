import Foundation
import Testing
import TestSupport
@testable import MeterCore

@Suite struct MeterPipelineTests {
    /// How close "the same computation" must agree, in dB. The pipeline may sum squares in
    /// Float within short blocks (SIMD), so not bit-exact; 1e-4 dB is still 100x finer than the
    /// 0.01 dB the output shows.
    static let exact = 1e-4

    static func run(_ x: [Float], settings: MeterSettings, blockSizes: [Int] = [16384],
                    transform: (any PowerSpectrumTransform)? = nil) throws -> CollectingSink {
        let p = try MeterPipeline(settings: ValidSettings(settings), transform: transform)
        let sink = CollectingSink()
        let source = ArraySource(rate: settings.rate, channels: settings.channels, samples: x, blockSizes: blockSizes)
        try p.run(source: source, sink: sink)
        return sink
    }

    /// The definitions of README.md "Levels: exact definitions", computed naively for every frame position.
    static func expectedFrame(_ x: [Float], channels: Int, pos: Int, hopStart: Int, window: Int) -> (rms: [Double], peak: [Double]) {
        var rms: [Double] = [], peak: [Double] = []
        for c in 0..<channels {
            var ss = 0.0
            let lo = max(0, pos - window)
            for i in lo..<pos { ss += Double(x[i * channels + c]) * Double(x[i * channels + c]) }
            rms.append(db(power: ss / Double(pos - lo)))
            var pk: Float = 0
            for i in hopStart..<pos { pk = max(pk, abs(x[i * channels + c])) }
            peak.append(db(amplitude: Double(pk)))
        }
        return (rms, peak)
    }

    @Test func framePositionsAreMultiplesOfHopWithTruePartialLast() throws {
        var rng = SeededRNG(seed: 1)
        for (rate, fps) in [(8000, 30.0), (1000, 30.0), (44100, 30.0), (48000, 25.0), (100, 7.0), (10, 10.0), (1000, 1000.0)] {
            let settings = MeterSettings(rate: rate, channels: 2, fps: fps, windowMs: 50)
            let hop = settings.hop
            #expect(hop == max(1, Int((Double(rate) / fps).rounded())))
            for total in [0, 1, hop - 1, hop, hop + 1, 2 * hop, 5 * hop + 3, 3 * rate / 2 + 1] where total >= 0 {
                let x = (0..<(total * 2)).map { _ in Float(rng.signed() * 0.5) }
                for blocks in [[16384], [1], [7, 3, 1000], [hop], [hop + 1]] {
                    let sink = try Self.run(x, settings: settings, blockSizes: blocks)
                    var expectedPos = Array(stride(from: hop, through: total, by: hop))
                    if total % hop != 0 { expectedPos.append(total) }
                    #expect(sink.frames.map(\.pos) == expectedPos, "rate \(rate) fps \(fps) total \(total) blocks \(blocks)")
                    #expect(sink.summary?.pos == total)
                    #expect(sink.summary?.duration == Double(total) / Double(rate))
                }
            }
        }
    }

    @Test func inputShorterThanOneHopGivesOneFrame() throws {
        let settings = MeterSettings(rate: 48000, channels: 1)
        let x: [Float] = [0.5, -0.25, 0.125, 0, 0, 0, 0, 0, 0, 0.1]
        let sink = try Self.run(x, settings: settings)
        #expect(sink.frames.count == 1)
        let f = try #require(sink.frames.first)
        #expect(f.pos == 10)
        #expect(abs(f.peakDb[0] - 20 * log10(0.5)) < 1e-9)
        let ms = (0.25 + 0.0625 + 0.015625 + Double(Float(0.1)) * Double(Float(0.1))) / 10
        #expect(abs(f.rmsDb[0] - 10 * log10(ms)) < Self.exact)
        #expect(sink.summary?.rmsDb == f.rmsDb)
        #expect(sink.summary?.peakDb == f.peakDb)
    }

    @Test func emptyInputHasNoFramesAndEndsAtZero() throws {
        for channels in [1, 2, 6] {
            let settings = MeterSettings(rate: 44100, channels: channels, bands: 4)
            let sink = try Self.run([], settings: settings, transform: ReferenceFFT(size: settings.fftSize))
            #expect(sink.info != nil)
            #expect(sink.frames.isEmpty)
            let s = try #require(sink.summary)
            #expect(s.pos == 0)
            #expect(s.duration == 0)
            #expect(s.rmsDb == Array(repeating: -160.0, count: channels))
            #expect(s.peakDb == Array(repeating: -160.0, count: channels))
            #expect(s.dropped == 0)
        }
    }

    /// Sines of a different amplitude and frequency per channel; every frequency a multiple of
    /// 10 Hz so a 50 ms window holds whole half-periods of sin^2 and mean(x^2) = A^2/2 exactly.
    static func sines(rate: Int, channels: Int, seconds: Double, amplitudes: [Double], freqs: [Double]) -> [Float] {
        let n = Int(Double(rate) * seconds)
        var x = [Float](repeating: 0, count: n * channels)
        for i in 0..<n {
            for c in 0..<channels {
                x[i * channels + c] = Float(amplitudes[c] * sin(2 * Double.pi * freqs[c] * Double(i) / Double(rate) + Double(c)))
            }
        }
        return x
    }

    @Test(arguments: [1, 2, 6])
    func sineRMSAndPeakFrameByFrame(channels: Int) throws {
        let amps = [1.0, 0.5, 0.1, 0.01, 0.8, 0.0316][0..<channels].map { $0 }
        let freqs = [1000.0, 440, 2000, 70, 12340, 5000][0..<channels].map { $0 }
        let rate = 48000
        let settings = MeterSettings(rate: rate, channels: channels, fps: 30, windowMs: 50)
        let x = Self.sines(rate: rate, channels: channels, seconds: 1.01, amplitudes: amps, freqs: freqs)
        let sink = try Self.run(x, settings: settings, blockSizes: [4096, 333, 1])
        let hop = settings.hop, window = settings.window
        #expect(hop == 1600 && window == 2400)
        let total = x.count / channels
        #expect(sink.frames.count == (total + hop - 1) / hop)
        var hopStart = 0
        for f in sink.frames {
            let e = Self.expectedFrame(x, channels: channels, pos: f.pos, hopStart: hopStart, window: window)
            for c in 0..<channels {
                #expect(abs(f.rmsDb[c] - e.rms[c]) < Self.exact, "ch \(c) pos \(f.pos)")
                #expect(abs(f.peakDb[c] - e.peak[c]) < 1e-9, "ch \(c) pos \(f.pos): per-hop peak")
                if f.pos >= window {
                    #expect(abs(f.rmsDb[c] - (20 * log10(amps[c]) - 3.0103)) < 0.01,
                            "ch \(c) pos \(f.pos): \(f.rmsDb[c]) for amplitude \(amps[c])")
                }
                // A hop of 1600 samples spans many periods: the peak is the amplitude, less what
                // sampling misses of the crest (at most 0.7 dB at 4 samples per period).
                if f.pos - hopStart == hop {
                    #expect(f.peakDb[c] <= 20 * log10(amps[c]) + 1e-6)
                    #expect(f.peakDb[c] > 20 * log10(amps[c]) - 0.7)
                }
            }
            hopStart = f.pos
        }
        // Whole-stream figures.
        let s = try #require(sink.summary)
        for c in 0..<channels {
            var ss = 0.0
            var pk: Float = 0
            for i in 0..<total {
                ss += Double(x[i * channels + c]) * Double(x[i * channels + c])
                pk = max(pk, abs(x[i * channels + c]))
            }
            #expect(abs(s.rmsDb[c] - 10 * log10(ss / Double(total))) < Self.exact)
            #expect(abs(s.peakDb[c] - 20 * log10(Double(pk))) < 1e-9)
            #expect(abs(s.rmsDb[c] - (20 * log10(amps[c]) - 3.0103)) < 0.01)
        }
    }

    @Test func noiseFrameByFrameWithOddHopAndWindow() throws {
        var rng = SeededRNG(seed: 8)
        let channels = 3
        let settings = MeterSettings(rate: 44100, channels: channels, fps: 37, windowMs: 23.3)
        let total = 44100 + 123
        let x = (0..<(total * channels)).map { i -> Float in
            let burst = (i / channels / 5000) % 2 == 0 ? 1.0 : 0.0
            return Float(rng.signed() * burst * [0.9, 0.3, 0.05][i % channels])
        }
        let sink = try Self.run(x, settings: settings, blockSizes: [1000, 1, 4097])
        #expect(settings.hop == 1192 && settings.window == 1028)
        var hopStart = 0
        var bad = 0
        for f in sink.frames {
            let e = Self.expectedFrame(x, channels: channels, pos: f.pos, hopStart: hopStart, window: settings.window)
            for c in 0..<channels where abs(f.rmsDb[c] - e.rms[c]) > Self.exact || abs(f.peakDb[c] - e.peak[c]) > 1e-9 { bad += 1 }
            hopStart = f.pos
        }
        #expect(bad == 0)
        #expect(sink.frames.last?.pos == total)
        // Silent stretches longer than the window read exactly -160.
        #expect(sink.frames.contains { $0.rmsDb == [-160, -160, -160] && $0.peakDb == [-160, -160, -160] })
    }

    @Test func sameFramesWhateverTheBlockSizes() throws {
        var rng = SeededRNG(seed: 21)
        let settings = MeterSettings(rate: 22050, channels: 2, fps: 60, windowMs: 40, bands: 12, fftSize: 512)
        let x = (0..<(22050 * 2)).map { _ in Float(rng.signed() * 0.7) }
        let a = try Self.run(x, settings: settings, blockSizes: [16384], transform: ReferenceFFT(size: 512))
        let b = try Self.run(x, settings: settings, blockSizes: [1, 2, 3, 5000, 77], transform: ReferenceFFT(size: 512))
        #expect(a.frames.count == b.frames.count)
        for (fa, fb) in zip(a.frames, b.frames) {
            #expect(fa.pos == fb.pos)
            #expect(fa.peakDb == fb.peakDb)  // same samples, same code: bit-identical
            for c in 0..<2 { #expect(abs(fa.rmsDb[c] - fb.rmsDb[c]) < Self.exact) }
            for (x, y) in zip(fa.bandsDb!, fb.bandsDb!) { #expect(abs(x - y) < 1e-6) }
        }
    }

    @Test func streamInfoDescribesSettings() throws {
        let settings = MeterSettings(rate: 48000, channels: 2, fps: 30, windowMs: 50, bands: 16)
        let p = try MeterPipeline(settings: ValidSettings(settings), transform: ReferenceFFT(size: 2048))
        let info = p.streamInfo(source: "x.wav")
        #expect(info.source == "x.wav")
        #expect(info.settings.hop == 1600)
        #expect(info.settings.window == 2400)
        #expect(info.bandsHz?.count == 16)
        #expect(info.live == false)
        let noBands = try MeterPipeline(settings: ValidSettings(MeterSettings()))
        #expect(noBands.streamInfo(source: "y").bandsHz == nil)
    }

    @Test func frameDbValuesAreAlwaysFinite() throws {
        // Extreme input: NaN, infinities and huge values in a float stream.
        let settings = MeterSettings(rate: 1000, channels: 2, fps: 10, windowMs: 20, bands: 4, fftSize: 64)
        var x = [Float](repeating: 0, count: 2000)
        x[10] = .nan
        x[301] = .infinity
        x[600] = -.infinity
        x[900] = .greatestFiniteMagnitude
        x[1201] = 1e-30
        let sink = try Self.run(x, settings: settings, transform: ReferenceFFT(size: 64))
        let all = sink.frames.flatMap { $0.rmsDb + $0.peakDb + ($0.bandsDb ?? []) }
            + (sink.summary!.rmsDb + sink.summary!.peakDb)
        #expect(!all.isEmpty)
        #expect(all.allSatisfy { $0.isFinite && $0 >= -160 })
    }

    @Test func settingsValidationNamesTheSettingItsValueAndWhatIsAllowed() {
        let bad: [(MeterSettings, SettingError)] = [
            (MeterSettings(rate: 0), SettingError(.rate, value: 0, allowed: .range(1, 768_000))),
            (MeterSettings(rate: 800_000), SettingError(.rate, value: 800_000, allowed: .range(1, 768_000))),
            (MeterSettings(channels: 0), SettingError(.channels, value: 0, allowed: .range(1, 32))),
            (MeterSettings(channels: 33), SettingError(.channels, value: 33, allowed: .range(1, 32))),
            (MeterSettings(fps: 0), SettingError(.fps, value: 0, allowed: .range(0.01, 48000))),
            (MeterSettings(rate: 100, fps: 101), SettingError(.fps, value: 101, allowed: .range(0.01, 100))),
            (MeterSettings(windowMs: 0), SettingError(.window, value: 0, allowed: .positiveUpTo(60000))),
            (MeterSettings(bands: -1), SettingError(.bands, value: -1, allowed: .range(0, 1024))),
            (MeterSettings(bands: 2000), SettingError(.bands, value: 2000, allowed: .range(0, 1024))),
            (MeterSettings(bands: 8, fftSize: 1000), SettingError(.fftSize, value: 1000, allowed: .powerOfTwo(64, 65536))),
            (MeterSettings(bands: 8, fftSize: 32), SettingError(.fftSize, value: 32, allowed: .powerOfTwo(64, 65536))),
            (MeterSettings(fftSize: 1000), SettingError(.fftSize, value: 1000, allowed: .powerOfTwo(64, 65536))),
            (MeterSettings(bands: 8, fmin: 0), SettingError(.fmin, value: 0, allowed: .frequencyBelow(atLeast: 1, below: 24000))),
            (MeterSettings(rate: 8000, bands: 8, fmin: 4000), SettingError(.fmin, value: 4000, allowed: .frequencyBelow(atLeast: 1, below: 4000))),
            (MeterSettings(bands: 8, fmin: 100, fmax: 90), SettingError(.fmax, value: 90, allowed: .frequencyAbove(above: 100, atMost: 24000))),
            (MeterSettings(rate: 8000, bands: 8, fmax: 4001), SettingError(.fmax, value: 4001, allowed: .frequencyAbove(above: 50, atMost: 4000))),
        ]
        for (s, expected) in bad {
            #expect(throws: expected, "\(s)") { _ = try ValidSettings(s) }
        }
        // NaN is refused too (it equals nothing, so only the setting is compared).
        do {
            _ = try ValidSettings(MeterSettings(windowMs: .nan))
            Issue.record("accepted a NaN window")
        } catch {
            #expect(error.setting == .window && error.value.isNaN)
        }
        #expect(throws: Never.self) { _ = try ValidSettings(MeterSettings()) }
        #expect(throws: Never.self) { _ = try ValidSettings(MeterSettings(rate: 8000, channels: 32, fps: 8000, windowMs: 60000, bands: 8)) }
    }

    /// Drop accounting, step by step (what a live run does when its ring overflows): frames
    /// stay on the hop grid, a hop with some samples is emitted at its boundary with the peak
    /// of what arrived, a hop with none is not emitted, and `dropped` counts every skipped frame.
    @Test func skipKeepsTheGridAndCountsDrops() throws {
        let settings = MeterSettings(rate: 1000, channels: 1, fps: 10, windowMs: 50)  // hop 100
        let p = try MeterPipeline(settings: ValidSettings(settings))
        var frames: [MeterFrame] = []
        func feed(_ n: Int, _ level: Float) {
            let x = [Float](repeating: level, count: n)
            x.withUnsafeBufferPointer { p.process($0.baseAddress!, frames: n) { frames.append($0) } }
        }
        feed(150, 0.5)                        // frame at 100; 50 into the second hop
        p.skip(frames: 30) { frames.append($0) }
        #expect(frames.map(\.pos) == [100] && p.pos == 180 && p.dropped == 30)
        feed(20, 0.25)                        // completes the second hop at 200
        #expect(frames.map(\.pos) == [100, 200])
        #expect(abs(frames[1].peakDb[0] - 20 * log10(0.5)) < 1e-9, "peak of what arrived in the hop")
        p.skip(frames: 250) { frames.append($0) }   // hops 200..300 and 300..400 empty; 50 into the next
        #expect(frames.count == 2 && p.pos == 450 && p.dropped == 280)
        feed(50, 0.125)
        #expect(frames.map(\.pos) == [100, 200, 500])
        #expect(abs(frames[2].peakDb[0] - 20 * log10(0.125)) < 1e-9)
        #expect(abs(frames[2].rmsDb[0] - 20 * log10(0.125)) < 1e-9, "the window holds only received samples")
        p.skip(frames: 30) { frames.append($0) }    // part of a hop, nothing received in it
        p.skip(frames: 100) { frames.append($0) }   // crosses its boundary: still nothing to emit
        p.finish { frames.append($0) }
        #expect(frames.map(\.pos) == [100, 200, 500])
        #expect(p.pos == 630 && p.dropped == 410)
        let summary = p.summary()
        #expect(summary.dropped == 410 && summary.pos == 630)
        // A hop that received samples before and after a skip is emitted at its boundary.
        feed(40, 0.5)                         // 630..670, the hop ends at 700
        p.skip(frames: 10) { frames.append($0) }
        feed(20, 0.5)
        p.finish { frames.append($0) }
        #expect(frames.map(\.pos) == [100, 200, 500, 700])
        #expect(p.dropped == 420)
    }
}
