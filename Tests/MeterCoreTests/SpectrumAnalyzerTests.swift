import Foundation
import Testing
import TestSupport
@testable import MeterCore

@Suite struct SpectrumAnalyzerTests {
    @Test func referenceFFTMatchesNaiveDFT() {
        var rng = SeededRNG(seed: 4)
        for n in [2, 4, 8, 64, 256] {
            let x = (0..<n).map { _ in Float(rng.signed()) }
            let fft = ReferenceFFT(size: n)
            var out = [Double](repeating: -1, count: n / 2 + 1)
            x.withUnsafeBufferPointer { xb in out.withUnsafeMutableBufferPointer { fft.powerSpectrum(xb.baseAddress!, into: $0.baseAddress!) } }
            let ref = naiveDFTPower(x)
            for k in 0...(n / 2) { #expect(abs(out[k] - ref[k]) <= 1e-9 * max(1, ref[k]), "n \(n) bin \(k)") }
        }
    }

    static func bands(_ a: SpectrumAnalyzer) -> [Double] {
        var out = [Double](repeating: .nan, count: a.layout.count)
        a.bandLevels(into: &out)
        return out
    }

    static func push(_ a: SpectrumAnalyzer, _ x: [Float]) {
        x.withUnsafeBufferPointer { a.push($0.baseAddress!, count: x.count) }
    }

    /// Sum of linear band powers.
    static func total(_ dbs: [Double]) -> Double { dbs.reduce(0) { $0 + ($1 > -160 ? pow(10, $1 / 10) : 0) } }

    @Test func parsevalOverAllInteriorBins() throws {
        // Bands covering bins 1 ..< N/2: their powers add up to the windowed signal's power
        // sum(w^2 x^2)/sum(w^2) less the DC and Nyquist parts (each |X|^2/N of it).
        var rng = SeededRNG(seed: 9)
        for n in [64, 256, 2048] {
            let rate = 48000
            let binHz = Double(rate) / Double(n)
            let layout = try BandLayout(bands: 7, fftSize: n, rate: rate, fmin: binHz, fmax: Double(rate) / 2)
            #expect(layout.edgeBins.first == 1 && layout.edgeBins.last == n / 2)
            let a = SpectrumAnalyzer(layout: layout, transform: ReferenceFFT(size: n))
            for fill in [n / 3, n, n + n / 2 + 1, 3 * n] {
                let x = (0..<fill).map { i -> Float in
                    let noise: Double = 0.3 * rng.signed(), tone: Double = 0.2 * sin(Double(i) * 0.37)
                    return Float(noise + tone + 0.05)
                }
                let a2 = SpectrumAnalyzer(layout: layout, transform: ReferenceFFT(size: n))
                Self.push(a2, Array(x[0..<(fill / 2)]))
                Self.push(a2, Array(x[(fill / 2)...]))
                // The last n samples, zeros before the start.
                let last = (0..<n).map { i -> Double in
                    let j = fill - n + i
                    return j >= 0 ? Double(x[j]) : 0
                }
                var yy = 0.0, e = 0.0, dc = 0.0, ny = 0.0
                for i in 0..<n {
                    let phase: Double = 2 * Double.pi * Double(i) / Double(n)
                    let w = Double(Float(0.5 - 0.5 * cos(phase)))
                    let y = Double(Float(last[i])) * w
                    yy += y * y
                    e += w * w
                    dc += y
                    ny += i % 2 == 0 ? y : -y
                }
                let expected = (yy - (dc * dc + ny * ny) / Double(n)) / e
                let got = Self.total(Self.bands(a2))
                #expect(abs(10 * log10(got) - 10 * log10(expected)) < 1e-4, "n \(n) fill \(fill): \(got) vs \(expected)")
            }
            _ = a
        }
    }

    @Test(arguments: [(1, 43.0), (2, 43.0), (1, 42.67), (6, 100.0), (1, 300.3)])
    func toneReadsItsLevelInItsBand(channels: Int, bin: Double) throws {
        let rate = 48000, n = 2048
        let freq = bin * Double(rate) / Double(n)
        let amp = 0.5
        let settings = MeterSettings(rate: rate, channels: channels, fps: 30, windowMs: 50, bands: 8, fftSize: n)
        let p = try MeterPipeline(settings: ValidSettings(settings), transform: ReferenceFFT(size: n))
        let layout = try BandLayout(settings: settings)
        let band = try #require((0..<layout.count).first { layout.bins(of: $0).contains(Int(bin.rounded())) })
        // Wide band: the window's main lobe (+-2 bins) lies well inside it.
        #expect(layout.bins(of: band).lowerBound + 2 < Int(bin) && Double(layout.bins(of: band).upperBound) > bin + 3)
        let frames = rate / 2
        var x = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let v = Float(amp * sin(2 * Double.pi * freq * Double(i) / Double(rate)))
            for c in 0..<channels { x[i * channels + c] = v }
        }
        var out: [MeterFrame] = []
        x.withUnsafeBufferPointer { p.process($0.baseAddress!, frames: frames) { out.append($0) } }
        let expected = 20 * log10(amp) - 3.0103
        let tolerance = bin == bin.rounded() ? 0.01 : 0.05
        var checked = 0
        for f in out where f.pos >= n {
            let b = try #require(f.bandsDb)
            #expect(abs(b[band] - expected) < tolerance, "pos \(f.pos): band \(band) reads \(b[band]), expected \(expected)")
            // The other bands hold only leakage, far below.
            for (i, v) in b.enumerated() where i != band { #expect(v < expected - 30, "band \(i) reads \(v)") }
            checked += 1
        }
        #expect(checked >= 10)
    }

    @Test func whiteNoiseBandPowersSumToInRangePower() throws {
        var rng = SeededRNG(seed: 77)
        for (rate, n, bands) in [(48000, 2048, 16), (44100, 4096, 32), (8000, 512, 8)] {
            let settings = MeterSettings(rate: rate, channels: 2, fps: 10, windowMs: 50, bands: bands, fftSize: n)
            let p = try MeterPipeline(settings: ValidSettings(settings), transform: ReferenceFFT(size: n))
            let layout = try BandLayout(settings: settings)
            let frames = rate
            let a = 0.8
            // Independent uniform noise per channel; the mono mix has power a^2/3 / 2.
            let x = (0..<(frames * 2)).map { _ in Float(a * rng.signed()) }
            var out: [MeterFrame] = []
            x.withUnsafeBufferPointer { p.process($0.baseAddress!, frames: frames) { out.append($0) } }
            let monoPower = a * a / 3 / 2
            let fraction = Double(layout.edgeBins.last! - layout.edgeBins.first!) / Double(n / 2)
            let expected = 10 * log10(monoPower * fraction)
            for f in out where f.pos >= n {
                let got = 10 * log10(Self.total(f.bandsDb!))
                #expect(abs(got - expected) < 1, "rate \(rate) pos \(f.pos): \(got) vs \(expected)")
            }
        }
    }

    @Test func silenceReads160() throws {
        let settings = MeterSettings(rate: 48000, channels: 2, fps: 30, bands: 24, fftSize: 1024)
        let p = try MeterPipeline(settings: ValidSettings(settings), transform: ReferenceFFT(size: 1024))
        var rng = SeededRNG(seed: 2)
        // Silence from the start, then loud noise, then silence again.
        let silent = [Float](repeating: 0, count: 4800 * 2)
        let loud = (0..<(9600 * 2)).map { _ in Float(rng.signed()) }
        var out: [MeterFrame] = []
        for chunk in [silent, loud, silent] {
            chunk.withUnsafeBufferPointer { p.process($0.baseAddress!, frames: chunk.count / 2) { out.append($0) } }
        }
        for f in out {
            let b = f.bandsDb!
            if f.pos <= 4800 || f.pos >= 4800 + 9600 + 1024 {
                #expect(b == Array(repeating: -160.0, count: 24), "pos \(f.pos)")
            } else if f.pos > 4800 + 1024 && f.pos <= 4800 + 9600 {
                #expect(b.allSatisfy { $0 > -60 }, "pos \(f.pos)")
            }
        }
    }

    @Test func zerosBeforeTheStart() throws {
        // After fewer than fft_size samples, the window still spans fft_size samples, with zeros
        // before the start: a half-filled window of a tone reads lower than a full one.
        let n = 2048
        // Bands over every bin but DC and Nyquist, so the edge's leakage is counted too.
        let layout = try BandLayout(bands: 4, fftSize: n, rate: 48000, fmin: 48000.0 / Double(n), fmax: 24000)
        let a = SpectrumAnalyzer(layout: layout, transform: ReferenceFFT(size: n))
        let tone = (0..<(2 * n)).map { Float(0.5 * sin(2 * Double.pi * 43 * Double($0) / Double(n))) }
        Self.push(a, Array(tone[0..<(n / 2)]))
        let half = Self.total(Self.bands(a))
        Self.push(a, Array(tone[(n / 2)...]))
        let full = Self.total(Self.bands(a))
        #expect(abs(10 * log10(full) - (20 * log10(0.5) - 3.0103)) < 0.01)
        // The newest half of a Hann window holds half its energy.
        #expect(abs(10 * log10(half / full) - 10 * log10(0.5)) < 0.05)
    }
}

/// The end line's `bands_db`: each band's mean power over the stream's frames.
@Suite struct StreamSpectrumTests {
    @Test("the summary's bands are the mean of the frames' band powers", arguments: [1, 2])
    func meanOfTheFrames(channels: Int) throws {
        let samples = ChunkingIndependenceTests.noise(frames: 40000, channels: channels, seed: 9)
        let run = try ChunkingIndependenceTests.run(samples, channels: channels, blocks: [1000, 4096], bands: 10)
        let bands = try #require(run.end.bandsDb)
        #expect(bands.count == 10)
        for b in 0..<10 {
            let mean = run.frames.map { pow(10, $0.bandsDb![b] / 10) }.reduce(0, +) / Double(run.frames.count)
            #expect(abs(bands[b] - 10 * log10(mean)) < 1e-9, "band \(b): \(bands[b]) against \(10 * log10(mean))")
        }
    }

    @Test("a steady sine: the bands' mean powers add up to its power, 20*log10(A) - 3.01 dB")
    func steadySineParseval() throws {
        let rate = 48000, a = 0.5
        let samples = (0..<(10 * rate)).map { Float(a * sin(2 * Double.pi * 1000 * Double($0) / Double(rate))) }
        let run = try ChunkingIndependenceTests.run(samples, channels: 1, blocks: [16384], bands: 8)
        let bands = try #require(run.end.bandsDb)
        let total = 10 * log10(bands.map { pow(10, $0 / 10) }.reduce(0, +))
        // The first frames see zeros before the start (under 0.1 % of 10 s): well within 0.05 dB.
        #expect(abs(total - (20 * log10(a) - 10 * log10(2))) < 0.05, "\(total)")
    }

    @Test("no bands, no bands_db; the end line carries them with bands")
    func endLine() throws {
        let plain = try ChunkingIndependenceTests.run([0.1, 0.2], channels: 1, blocks: [2], bands: 0)
        #expect(plain.end.bandsDb == nil)
        var enc = NDJSONEncoder()
        var s = StreamSummary(pos: 4800, rate: 48000, rmsDb: [-20], peakDb: [-17])
        s.bandsDb = [-30.123, -160]
        s.silenceSeconds = 2.5
        let line = String(decoding: enc.end(s), as: UTF8.self)
        #expect(line.contains("\"bands_db\":[-30.12,-160.0]") && line.contains("\"silence_seconds\":2.5"), "\(line)")
    }
}
