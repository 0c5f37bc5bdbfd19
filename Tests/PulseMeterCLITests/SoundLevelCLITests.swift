import Foundation
import Testing
import TestSupport

/// `analyze --spl`: Leq, SEL, Lmax, Lmin and the percentiles of files made of segments with
/// known levels; the Z-weighted Leq against sox's RMS level; the labelling and the options.
@Suite struct SoundLevelCLITests {
    /// A mono float WAV of 1 kHz sine segments: (seconds, amplitude) each, at 16 kHz, in
    /// continuous phase, fading in over the first 10 ms so no onset rings.
    static func segments(_ parts: [(seconds: Double, amplitude: Double)], in dir: TempDir) throws -> String {
        let rate = 16000.0, fade = 160
        var payload: [UInt8] = []
        var i = 0
        for p in parts {
            for _ in 0..<Int(p.seconds * rate) {
                let g = i < fade ? 0.5 - 0.5 * cos(Double.pi * Double(i) / Double(fade)) : 1
                let v = Float(p.amplitude * g * sin(2 * Double.pi * 1000 * Double(i) / rate))
                withUnsafeBytes(of: v.bitPattern.littleEndian) { payload += $0 }
                i += 1
            }
        }
        return try dir.write(WAV.file(rate: 16000, channels: 1, bits: 32, float: true, payload: payload), "segments.wav")
    }

    static func level(_ amplitude: Double) -> Double { 20 * log10(amplitude) - 10 * log10(2) }

    /// 20 % of the time loud, 40 % middle, 40 % quiet (4, 8 and 8 s with F; four times as long
    /// with S, whose level takes seconds to follow a step): L10 lies in the loud part, L50 in
    /// the middle one, L90 in the quiet one; Leq is the energy mean, SEL adds 10 log10(T).
    @Test(arguments: ["F", "S"])
    func segmentFileFigures(timeWeighting: String) throws {
        let dir = try TempDir()
        let scale = timeWeighting == "S" ? 4.0 : 1.0
        let parts: [(seconds: Double, amplitude: Double)] = [(4 * scale, 0.5), (8 * scale, 0.1), (8 * scale, 0.02)]
        let total = 20 * scale
        let path = try Self.segments(parts, in: dir)
        let (start, frames, end, _) = try AnalyzeCLITests.analyze([path, "--spl", "--time-weighting", timeWeighting])
        #expect(start["spl_unit"] as? String == "dBFS(A)")
        #expect(start["weighting"] as? String == "A" && start["time_weighting"] as? String == timeWeighting)
        #expect(frames.allSatisfy { Tool.doubles($0["spl_db"]).count == 1 && Tool.doubles($0["leq_db"]).count == 1 })
        // The 1 kHz tone is not weighted (A is 0 dB there); the fade-in costs a little energy.
        var energy = -0.01 * 0.625 * 0.5 * 0.5 / 2
        for p in parts { energy += p.seconds * p.amplitude * p.amplitude / 2 }
        let leq = 10 * log10(energy / total)
        let got = Tool.doubles(end["leq_db"])
        #expect(got.count == 1 && abs(got[0] - leq) < 0.02, "leq \(got) vs \(leq)")
        #expect(abs(Tool.doubles(end["sel_db"])[0] - (leq + 10 * log10(total))) < 0.02)
        #expect(abs(Tool.doubles(end["lmax_db"])[0] - Self.level(0.5)) < 0.1)
        #expect(abs(Tool.doubles(end["lmin_db"])[0] - Self.level(0.02)) < 0.1)
        #expect(abs(Tool.doubles(end["lpeak_db"])[0] - 20 * log10(0.5)) < 0.1)
        let ln = try #require((end["ln_db"] as? [[String: Any]])?.first)
        #expect(abs(try #require(Tool.double(ln["L10"])) - Self.level(0.5)) < 0.1)
        #expect(abs(try #require(Tool.double(ln["L50"])) - Self.level(0.1)) < 0.1)
        #expect(abs(try #require(Tool.double(ln["L90"])) - Self.level(0.02)) < 0.1)
        // The last frame's Leq is the whole file's.
        #expect(abs(Tool.doubles(frames.last?["leq_db"])[0] - got[0]) < 0.011)
    }

    /// Z weighting is flat: its Leq is the whole-file RMS level, as sox stats measures it.
    @Test func zWeightedLeqIsSoxRMSLevel() throws {
        let dir = try TempDir()
        let audio = TestAudio.make(rate: 44100, channels: 2, seconds: 3, encoding: .s16)
        let path = try audio.write(to: dir, name: "z")
        let (start, _, end, _) = try AnalyzeCLITests.analyze([path, "--weighting", "Z"])
        #expect(start["spl"] as? Bool == true && start["spl_unit"] as? String == "dBFS(Z)")
        let sox = try Tool.soxStats(path, channels: 2)
        let leq = Tool.doubles(end["leq_db"])
        #expect(leq.count == 2)
        for c in 0..<2 { #expect(abs(leq[c] - sox.rms[c]) < 0.011, "channel \(c): \(leq[c]) vs sox \(sox.rms[c])") }
    }

    /// --calibration shifts every figure by its value and the unit becomes dB(C).
    @Test func calibrationShiftsEveryFigure() throws {
        let dir = try TempDir()
        let path = try Self.segments([(3, 0.3)], in: dir)
        let (_, _, plain, _) = try AnalyzeCLITests.analyze([path, "--spl", "--weighting", "C"])
        let (start, _, cal, _) = try AnalyzeCLITests.analyze([path, "--weighting", "C", "--calibration", "120.5"])
        #expect(start["spl_unit"] as? String == "dB(C)")
        #expect(Tool.double(start["calibration"]) == 120.5)
        for key in ["leq_db", "lmax_db", "lmin_db", "lpeak_db", "sel_db"] {
            let a = Tool.doubles(plain[key]), b = Tool.doubles(cal[key])
            #expect(a.count == 1 && b.count == 1 && abs(b[0] - a[0] - 120.5) < 0.011, "\(key): \(a) \(b)")
        }
    }

    @Test func badValuesAreRefused() throws {
        let dir = try TempDir()
        let path = try Self.segments([(0.5, 0.3)], in: dir)
        Tool.expectError(try Tool.run(["analyze", path, "--weighting", "B"]), 64, mentions: ["--weighting", "A, C, Z"])
        Tool.expectError(try Tool.run(["analyze", path, "--time-weighting", "fast"]), 64, mentions: ["--time-weighting", "F, S, I"])
        Tool.expectError(try Tool.run(["analyze", path, "--calibration", "300"]), 64, mentions: ["--calibration 300", "250"])
        let raw = Data(repeating: 0, count: 4000)
        Tool.expectError(try Tool.run(["analyze", "-", "--raw", "s16le", "-r", "4000", "-c", "1", "--spl"], stdin: raw),
                         64, mentions: ["--spl", "4000", "8000"])
    }

    /// The terminal summary labels the figures with their unit.
    @Test func terminalSummaryIsLabelled() throws {
        let dir = try TempDir()
        let path = try Self.segments([(1, 0.3)], in: dir)
        let r = try Tool.run(["analyze", path, "--spl", "-f", "ansi"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("LAeq") && r.out.contains("LCpeak") && r.out.contains("dBFS(A)"), "\(r.out)")
    }
}

/// `--mic-cal FILE`: the sensitivity factor shifts every level, the response corrects the
/// band levels; a bad file is exit 65 naming its line, a missing one exit 66.
@Suite struct MicCalibrationCLITests {
    @Test func sensitivityAndResponseApply() throws {
        let dir = try TempDir()
        let path = try SoundLevelCLITests.segments([(2, 0.3)], in: dir)
        let cal = try dir.write(Array("\"Sens Factor =-1.5dB, SERNO: 1\"\n20 3.0\n20000 3.0\n".utf8), "mic.txt")
        let (_, plainFrames, plain, _) = try AnalyzeCLITests.analyze([path, "--spl", "--bands", "8"])
        let (start, calFrames, corrected, _) = try AnalyzeCLITests.analyze([path, "--mic-cal", cal, "--bands", "8"])
        #expect(start["spl_unit"] as? String == "dBFS(A)")  // a microphone file alone is no SPL calibration
        for key in ["leq_db", "lmax_db", "lpeak_db"] {
            let a = Tool.doubles(plain[key]), b = Tool.doubles(corrected[key])
            #expect(abs(b[0] - a[0] - 1.5) < 0.011, "\(key): \(a) \(b)")
        }
        let a = Tool.doubles(plainFrames.last?["bands_db"]), b = Tool.doubles(calFrames.last?["bands_db"])
        #expect(a.count == 8 && b.count == 8)
        // The sensitivity (+1.5) and the response (-3) both apply to the bands.
        for i in 0..<8 where a[i] > -150 { #expect(abs(b[i] - a[i] + 1.5) < 0.011, "band \(i): \(a[i]) \(b[i])") }
    }

    @Test func badFilesAreRefused() throws {
        let dir = try TempDir()
        let path = try SoundLevelCLITests.segments([(0.5, 0.3)], in: dir)
        let bad = try dir.write(Array("\"Sens Factor =-1.5dB\"\n20 3.0\n1000 three\n".utf8), "bad.txt")
        Tool.expectError(try Tool.run(["analyze", path, "--mic-cal", bad]), 65, mentions: ["bad.txt line 3", "frequency"])
        Tool.expectError(try Tool.run(["analyze", path, "--mic-cal", dir.path("none.txt")]), 66, mentions: ["none.txt"])
    }
}

/// `--octaves 1|3`: the start line's midbands and edges, a tone's level in its band, the end
/// line's mean band levels, and the options that do not go together.
@Suite struct OctaveBandsCLITests {
    @Test(arguments: [1, 3])
    func toneReadsInItsBand(fraction: Int) throws {
        let dir = try TempDir()
        let path = try SoundLevelCLITests.segments([(2, 0.3)], in: dir)
        let (start, frames, end, _) = try AnalyzeCLITests.analyze([path, "--octaves", String(fraction)])
        #expect(Tool.int(start["octaves"]) == fraction && start["fft_size"] == nil)
        let bands = try #require(start["bands_hz"] as? [[Double]])
        let g = pow(10, 0.3)
        // Thirds from 20 Hz, octaves from 31.5 Hz, up to the last band whose upper edge is
        // below 0.95 x Nyquist (at 16 kHz: the 6.3 kHz third, the 4 kHz octave).
        let b = Double(fraction)
        let from = fraction == 3 ? -17 : -5
        let expected = (from...13).filter { 1000 * pow(g, (Double($0) + 0.5) / b) <= 0.95 * 8000 }.count
        #expect(bands.count == expected && expected == (fraction == 3 ? 26 : 8), "\(bands.count) bands")
        for b in bands {
            #expect(b.count == 3)
            #expect(abs(b[2] / b[0] - pow(g, 1 / Double(fraction))) < 1e-3 && abs(b[1] * b[1] / (b[0] * b[2]) - 1) < 1e-4)
        }
        let k = try #require(bands.firstIndex { abs($0[1] - 1000) < 0.01 })
        let level = SoundLevelCLITests.level(0.3)
        let last = Tool.doubles(frames.last?["bands_db"])
        #expect(last.count == bands.count && abs(last[k] - level) < 0.1, "\(last[k]) vs \(level)")
        // Two bands away the tone is far down.
        #expect(last[k + 2] < level - 40 && last[k - 2] < level - 40)
        let mean = Tool.doubles(end["bands_db"])
        #expect(mean.count == bands.count && abs(mean[k] - level) < 0.1, "\(mean)")
    }

    @Test func badCombinationsAreRefused() throws {
        let dir = try TempDir()
        let path = try SoundLevelCLITests.segments([(0.5, 0.3)], in: dir)
        Tool.expectError(try Tool.run(["analyze", path, "--octaves", "2"]), 64, mentions: ["--octaves 2", "1 or 3"])
        Tool.expectError(try Tool.run(["analyze", path, "--octaves", "3", "--bands", "8"]), 64, mentions: ["--octaves", "--bands"])
    }
}

/// `--meter`: meter_db in the meter's unit, the start line naming the meter.
@Suite struct MeterKindCLITests {
    @Test func readingsOfASteadyTone() throws {
        let dir = try TempDir()
        // A 1 kHz sine of peak 0.3 (-10.46 dBFS peak, -13.47 dBFS RMS).
        let path = try SoundLevelCLITests.segments([(3, 0.3)], in: dir)
        let peak = 20 * log10(0.3), rms = SoundLevelCLITests.level(0.3)
        let cases: [(String, [String], Double)] = [
            ("dbfs", [], rms), ("vu", [], peak + 18), ("vu", ["--vu-ref", "-20"], peak + 20),
            ("ppm1", [], peak), ("ppm2", [], peak), ("k20", [], rms + 20), ("k14", [], rms + 14), ("k12", [], rms + 12),
        ]
        for (kind, extra, expected) in cases {
            let (start, frames, _, _) = try AnalyzeCLITests.analyze([path, "--meter", kind] + extra)
            #expect(start["meter"] as? String == kind)
            if kind == "vu" { #expect(Tool.double(start["vu_ref"]) == (extra.isEmpty ? -18 : -20)) }
            let last = Tool.doubles(frames.last?["meter_db"])
            // The VU reads the rectified mean, and 16 samples a period of the sine average
            // cot(pi/16)/8 = 0.628 of the peak, not 2/pi = 0.637: 0.11 dB less.
            let tolerance = kind == "vu" ? 0.15 : 0.1
            #expect(last.count == 1 && abs(last[0] - expected) < tolerance, "\(kind) \(extra): \(last) vs \(expected)")
        }
        Tool.expectError(try Tool.run(["analyze", path, "--meter", "ppm1", "--vu-ref", "-20"]), 64, mentions: ["--vu-ref", "ppm1"])
        Tool.expectError(try Tool.run(["analyze", path, "--meter", "vu2"]), 64, mentions: ["--meter", "dbfs, vu, ppm1, ppm2, k20, k14, k12"])
        // --vu-ref alone implies --meter vu.
        let (start, _, _, _) = try AnalyzeCLITests.analyze([path, "--vu-ref", "-14"])
        #expect(start["meter"] as? String == "vu")
    }
}
