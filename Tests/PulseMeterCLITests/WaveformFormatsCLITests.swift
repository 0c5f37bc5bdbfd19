import Foundation
import Testing
import TestSupport

/// `waveform --format dat|audiowaveform-json|peaks` against the published formats computed
/// here from the file's samples, and against numpy; `--normalize` against the plain levels.
@Suite struct WaveformFormatsCLITests {
    /// Pixel ranges as audiowaveform lays them out: every `spp` frames, the last one partial.
    static func fixed(_ frames: Int, spp: Int) -> [Range<Int>] {
        stride(from: 0, to: frames, by: spp).map { $0..<min(frames, $0 + spp) }
    }

    /// The bar ranges README.md "waveform" defines, [floor(i*F/N), floor((i+1)*F/N)).
    static func bars(_ frames: Int, n: Int) -> [Range<Int>] {
        (0..<n).map { (($0 * frames) / n)..<((($0 + 1) * frames) / n) }
    }

    /// audiowaveform's 16-bit min/max per pixel, from the s16 codes: the mono mix is the
    /// channels' integer sum divided by their count (C division, toward zero); split, each
    /// channel. Empty pixels read 0. Interleaved: pixel, channel, (min, max).
    static func minMax16(_ a: TestAudio, _ pixels: [Range<Int>], split: Bool) -> [Int] {
        let code = { (i: Int) in Int((a.samples[i] * 32768).rounded()) }
        var out: [Int] = []
        for r in pixels {
            let outs = split ? a.channels : 1
            for c in 0..<outs {
                guard !r.isEmpty else { out += [0, 0]; continue }
                var lo = Int.max, hi = Int.min
                for f in r {
                    let v: Int
                    if split { v = code(f * a.channels + c) } else {
                        var s = 0
                        for k in 0..<a.channels { s += code(f * a.channels + k) }
                        v = s / a.channels  // Swift's / truncates toward zero, as C's
                    }
                    lo = min(lo, v)
                    hi = max(hi, v)
                }
                out += [lo, hi]
            }
        }
        return out
    }

    static func le32(_ v: Int) -> [UInt8] { WAV.le32(v) }

    /// The version 2 `.dat` file: 24-byte header (version, flags, rate, samples per pixel,
    /// length, channels), then int8 or int16 little-endian values.
    static func dat(_ a: TestAudio, values: [Int], spp: Int, channels: Int, bits: Int) -> [UInt8] {
        var b = le32(2) + le32(bits == 8 ? 1 : 0) + le32(a.rate) + le32(spp) + le32(values.count / 2 / channels) + le32(channels)
        for v in values {
            if bits == 8 {
                b.append(UInt8(bitPattern: Int8(v / 256)))
            } else {
                let u = UInt16(bitPattern: Int16(v))
                b += [UInt8(u & 0xFF), UInt8(u >> 8)]
            }
        }
        return b
    }

    @Test(arguments: [1, 2, 3])
    func datBytesMatchThePublishedFormat(channels: Int) throws {
        let dir = try TempDir()
        let a = TestAudio.make(rate: 22050, channels: channels, seconds: 0.7, encoding: .s16, seed: 26)
        let path = try a.write(to: dir, name: "d")
        let f = a.frames
        let cases: [(args: [String], pixels: [Range<Int>], spp: Int)] = [
            (["--samples-per-pixel", "256"], Self.fixed(f, spp: 256), 256),
            (["--samples-per-pixel", "1"], Self.fixed(f, spp: 1), 1),
            (["--samples-per-pixel", "\(f + 5)"], Self.fixed(f, spp: f + 5), f + 5),
            (["--pixels-per-second", "100"], Self.fixed(f, spp: 220), 220),
            (["--bars", "37"], Self.bars(f, n: 37), Int((Double(f) / 37).rounded())),
            ([], Self.bars(f, n: 64), Int((Double(f) / 64).rounded())),
        ]
        for c in cases {
            for bits in [8, 16] {
                for split in [false, true] {
                    let out = dir.path("o.dat")
                    let args = ["waveform", path, "--format", "dat", "--bits", "\(bits)", "-o", out] + c.args + (split ? ["--split-channels"] : [])
                    let r = try Tool.run(args)
                    #expect(r.status == 0 && r.stderr.isEmpty, "\(args): \(r.err)")
                    let got = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
                    let want = Self.dat(a, values: Self.minMax16(a, c.pixels, split: split), spp: c.spp,
                                        channels: split ? channels : 1, bits: bits)
                    #expect(got.count == want.count, "\(args): \(got.count) bytes, want \(want.count)")
                    let firstDiff = zip(got, want).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                    #expect(got == want, "\(args): first difference at byte \(firstDiff ?? -1)")
                }
            }
        }
        // Default bits: 16, as audiowaveform's.
        let r = try Tool.run(["waveform", path, "--format", "dat", "--samples-per-pixel", "512"])
        #expect([UInt8](r.stdout) == Self.dat(a, values: Self.minMax16(a, Self.fixed(f, spp: 512), split: false), spp: 512, channels: 1, bits: 16))
    }

    @Test func audiowaveformJSONMatchesTheDatData() throws {
        let dir = try TempDir()
        let a = TestAudio.make(rate: 16000, channels: 2, seconds: 0.5, encoding: .s16, seed: 7)
        let path = try a.write(to: dir, name: "j")
        for (bits, split) in [(8, false), (16, false), (8, true), (16, true)] {
            let r = try Tool.run(["waveform", path, "--format", "audiowaveform-json", "--bits", "\(bits)",
                                  "--pixels-per-second", "50"] + (split ? ["--split-channels"] : []))
            #expect(r.status == 0, "\(r.err)")
            let obj = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
            let values = Self.minMax16(a, Self.fixed(a.frames, spp: 320), split: split).map { bits == 8 ? $0 / 256 : $0 }
            #expect(Tool.int(obj["version"]) == 2)
            #expect(Tool.int(obj["channels"]) == (split ? 2 : 1))
            #expect(Tool.int(obj["sample_rate"]) == 16000)
            #expect(Tool.int(obj["samples_per_pixel"]) == 320)
            #expect(Tool.int(obj["bits"]) == bits)
            #expect(Tool.int(obj["length"]) == 25)
            #expect(Tool.doubles(obj["data"]).map { Int($0) } == values)
        }
    }

    /// The peaks computed by numpy from the WAV's samples (read with Python's wave module).
    @Test(arguments: [(1, false), (2, false), (2, true)])
    func peaksMatchNumpy(channels: Int, split: Bool) throws {
        let dir = try TempDir()
        let a = TestAudio.make(rate: 44100, channels: channels, seconds: 0.6, encoding: .s16, seed: 3)
        let path = try a.write(to: dir, name: "p")
        let r = try Tool.run(["waveform", path, "--format", "peaks", "--samples-per-pixel", "441"] + (split ? ["--split-channels"] : []))
        #expect(r.status == 0, "\(r.err)")
        let obj = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let py = try Tool.exec(try #require(Tool.which("python3")), ["-c", """
            import sys, wave, json
            import numpy as np
            w = wave.open(sys.argv[1])
            ch = w.getnchannels()
            x = np.frombuffer(w.readframes(w.getnframes()), dtype='<i2').astype(np.float64).reshape(-1, ch) / 32768.0
            if sys.argv[3] != 'split':
                x = x.mean(axis=1, keepdims=True)
            spp = int(sys.argv[2])
            starts = np.arange(0, x.shape[0], spp)
            lo = np.minimum.reduceat(x, starts, axis=0)
            hi = np.maximum.reduceat(x, starts, axis=0)
            print(json.dumps({"rate": w.getframerate(), "duration": x.shape[0] / w.getframerate(),
                              "channels": x.shape[1], "data": np.stack([lo, hi], axis=2).reshape(-1).tolist()}))
            """, path, "441", split ? "split" : "mono"])
        #expect(py.status == 0, "\(py.err)")
        let want = try #require(try JSONSerialization.jsonObject(with: py.stdout) as? [String: Any])
        #expect(Tool.int(obj["version"]) == 1)
        #expect(Tool.int(obj["rate"]) == Tool.int(want["rate"]))
        #expect(Tool.int(obj["channels"]) == Tool.int(want["channels"]))
        #expect(Tool.int(obj["samples_per_pixel"]) == 441)
        #expect(abs((Tool.double(obj["duration"]) ?? -1) - (Tool.double(want["duration"]) ?? 1)) < 1e-6)
        let got = Tool.doubles(obj["data"]), exp = Tool.doubles(want["data"])
        #expect(got.count == exp.count && got.count == 2 * 60 * (split ? channels : 1))
        let worst = zip(got, exp).map { abs($0 - $1) }.max() ?? 1
        // Six decimals printed; the mix is computed in Float.
        #expect(worst <= 1e-6, "largest difference \(worst)")
        #expect(got.allSatisfy { $0 >= -1 && $0 <= 1 })
    }

    @Test func normalizeScalesLevelsSoTheLoudestBarIsOne() throws {
        let dir = try TempDir()
        // Quiet speech-like level: the plain levels stay well below 1.
        let x = (0..<16000).map { 0.02 * sin(2 * Double.pi * 300 * Double($0) / 8000) * (Double($0 % 4000) / 4000) }
        let a = TestAudio(rate: 8000, channels: 1, encoding: .s16, doubles: x)
        let path = try a.write(to: dir, name: "n")
        let plain = try WaveformCLITests.waveform([path, "--bars", "24"])
        let norm = try WaveformCLITests.waveform([path, "--bars", "24", "--normalize"])
        let lp = Tool.doubles(plain["levels"]), ln = Tool.doubles(norm["levels"])
        let top = try #require(lp.max())
        #expect(top < 0.8)
        #expect(ln.max() == 1.0)
        // Both printed to 4 decimals: the plain level's rounding grows by 1/top.
        let tolerance = 0.00005 / top + 0.00005 + 1e-9
        #expect(zip(lp, ln).allSatisfy { abs($0 / top - $1) <= tolerance })
        #expect(Tool.doubles(plain["rms_db"]) == Tool.doubles(norm["rms_db"]))
        #expect(Tool.doubles(plain["peak_db"]) == Tool.doubles(norm["peak_db"]))
        #expect(norm["normalized"] as? Bool == true)
    }

    @Test func badPixelOptionsAreUsageErrors() throws {
        let dir = try TempDir()
        let a = TestAudio.make(rate: 8000, channels: 1, seconds: 0.1, encoding: .s16)
        let path = try a.write(to: dir, name: "e")
        for (args, mention) in [
            (["--format", "dat", "--bits", "12"], "--bits"),
            (["--format", "json", "--bits", "8"], "--bits"),
            (["--format", "peaks", "--bits", "8"], "--bits"),
            (["--format", "svg", "--samples-per-pixel", "8"], "--samples-per-pixel"),
            (["--format", "peaks", "--samples-per-pixel", "8", "--pixels-per-second", "10"], "--pixels-per-second"),
            (["--format", "dat", "--pixels-per-second", "9000"], "--pixels-per-second"),
            (["--format", "dat", "--normalize"], "--normalize"),
        ] {
            let r = try Tool.run(["waveform", path, "-o", dir.path("x")] + args)
            #expect(r.status == 64, "\(args): \(r.status)")
            #expect(r.err.hasPrefix("pulsemeter: ") && r.err.contains(mention), "\(args): \(r.err)")
        }
    }
}
