import Foundation
import Testing
import TestSupport

/// A calibrated run (`--calibration`, `--mic-cal`): every level it prints is in the calibrated
/// unit, shifted by the same dB (the calibration less the file's sensitivity), the floor with
/// it; a microphone file's response corrects each band at its midband; the terminal summary
/// and the silence level are in that unit too. Clipping stays in dBFS.
@Suite struct CalibratedLevelsCLITests {
    /// A mono float WAV at 16 kHz: `silence` seconds of digital zero, then `seconds` of the
    /// sum of sines (frequency, amplitude), fading in over 10 ms.
    static func tones(_ parts: [(hz: Double, amplitude: Double)], seconds: Double, silence: Double = 1,
                      in dir: TempDir, name: String = "tones.wav") throws -> String {
        let rate = 16000.0, fade = 160
        var payload: [UInt8] = []
        let quiet = Int(silence * rate)
        for i in 0..<(quiet + Int(seconds * rate)) {
            var v = 0.0
            if i >= quiet {
                let k = i - quiet
                let g = k < fade ? 0.5 - 0.5 * cos(Double.pi * Double(k) / Double(fade)) : 1
                for p in parts { v += g * p.amplitude * sin(2 * Double.pi * p.hz * Double(k) / rate) }
            }
            withUnsafeBytes(of: Float(v).bitPattern.littleEndian) { payload += $0 }
        }
        return try dir.write(WAV.file(rate: 16000, channels: 1, bits: 32, float: true, payload: payload), name)
    }

    /// Every level field of the frames and the end line.
    static let frameLevels = ["rms_db", "peak_db", "spl_db", "leq_db", "bands_db"]
    static let endLevels = ["rms_db", "peak_db", "leq_db", "lmax_db", "lmin_db", "lpeak_db", "sel_db", "bands_db"]

    /// `b` is `a` shifted by `offset` value for value: within 0.011 (each is rounded to
    /// 0.01), the floor exactly (-160 dBFS reads -160 + offset).
    static func expectShifted(_ a: [Double], _ b: [Double], by offset: Double, _ what: String,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!a.isEmpty && a.count == b.count, "\(what): \(a.count) vs \(b.count) values", sourceLocation: sourceLocation)
        for (x, y) in zip(a, b) {
            if x == -160 {
                #expect(abs(y - (-160 + offset)) < 1e-9, "\(what): the floor reads \(y), not \(-160 + offset)",
                        sourceLocation: sourceLocation)
            } else {
                #expect(abs(y - x - offset) < 0.011, "\(what): \(x) became \(y), not shifted by \(offset)",
                        sourceLocation: sourceLocation)
            }
        }
    }

    static func percentiles(_ end: [String: Any]) -> [Double] {
        ((end["ln_db"] as? [[String: Any]]) ?? []).flatMap { ln in
            ["L10", "L50", "L90"].compactMap { Tool.double(ln[$0]) }
        }
    }

    /// `--calibration 94`, a file's sensitivity alone (-3 dB: +3) and both (97) shift every
    /// frame's levels, every band and the end line's figures and mean spectrum by exactly the
    /// same dB, with FFT bands, octaves and thirds alike; digital zero (the first second)
    /// reads -160 plus the shift.
    @Test(arguments: [["--octaves", "1"], ["--octaves", "3"], ["--bands", "16"]])
    func everyLevelShiftsAlike(bands: [String]) throws {
        let dir = try TempDir()
        let path = try Self.tones([(125, 0.1), (1000, 0.2)], seconds: 3, in: dir)
        let sensitivity = try dir.write(Array("\"Sens Factor =-3.0dB, SERNO: 7\"\n".utf8), "sens.txt")
        let (_, plainFrames, plain, _) = try AnalyzeCLITests.analyze([path, "--spl"] + bands)
        #expect(Tool.doubles(plainFrames.first?["rms_db"]) == [-160], "the file starts with digital zero")
        let cases: [([String], Double)] = [
            (["--calibration", "94"], 94), (["--mic-cal", sensitivity], 3),
            (["--calibration", "94", "--mic-cal", sensitivity], 97),
        ]
        for (options, offset) in cases {
            let (start, frames, end, _) = try AnalyzeCLITests.analyze([path] + options + bands)
            #expect(Tool.double(start["level_offset_db"]) == offset)
            #expect(frames.count == plainFrames.count)
            for (i, (a, b)) in zip(plainFrames, frames).enumerated() {
                for key in Self.frameLevels {
                    Self.expectShifted(Tool.doubles(a[key]), Tool.doubles(b[key]), by: offset, "\(options) frame \(i) \(key)")
                }
            }
            for key in Self.endLevels {
                Self.expectShifted(Tool.doubles(plain[key]), Tool.doubles(end[key]), by: offset, "\(options) end \(key)")
            }
            Self.expectShifted(Self.percentiles(plain), Self.percentiles(end), by: offset, "\(options) end ln_db")
        }
    }

    /// A response row of +2 dB at 1 kHz (flat 0 dB to 500 Hz and from 2 kHz) lowers the 1 kHz
    /// band by 2 dB in the frames and the mean spectrum, on top of the calibration, and leaves
    /// the 125 Hz band alone (its midband, 125.9 Hz, lies in the flat part).
    @Test(arguments: [1, 3])
    func responseCorrectsTheBandAtItsMidband(fraction: Int) throws {
        let dir = try TempDir()
        let path = try Self.tones([(125, 0.1), (1000, 0.2)], seconds: 3, in: dir)
        let cal = try dir.write(Array("20 0\n500 0\n1000 2.0\n2000 0\n20000 0\n".utf8), "mic.txt")
        let octaves = ["--octaves", String(fraction)]
        let (start, plainFrames, plain, _) = try AnalyzeCLITests.analyze([path, "--spl"] + octaves)
        let (_, frames, end, _) = try AnalyzeCLITests.analyze([path, "--calibration", "94", "--mic-cal", cal] + octaves)
        let mids = try #require(start["bands_hz"] as? [[Double]]).map { $0[1] }
        let k1000 = try #require(mids.firstIndex { abs($0 - 1000) < 1 })
        let k125 = try #require(mids.firstIndex { abs($0 - 125.89) < 0.1 })
        let pairs = zip(plainFrames, frames).map { (Tool.doubles($0["bands_db"]), Tool.doubles($1["bands_db"])) }
            + [(Tool.doubles(plain["bands_db"]), Tool.doubles(end["bands_db"]))]
        for (a, b) in pairs.suffix(40) where a[k1000] > -100 {
            #expect(abs(b[k1000] - a[k1000] - (94 - 2)) < 0.05, "1 kHz: \(a[k1000]) became \(b[k1000])")
            #expect(abs(b[k125] - a[k125] - 94) < 0.011, "125 Hz: \(a[k125]) became \(b[k125])")
        }
        // The tones are in the bands they belong to: these are real levels, not leakage.
        #expect(Tool.doubles(plain["bands_db"])[k1000] > -20 && Tool.doubles(plain["bands_db"])[k125] > -26)
    }

    /// The terminal summary of a calibrated `--spl --octaves 3` run (what analyze prints on a
    /// terminal, `-f ansi`): the sound levels (Leq, Lmax, Lmin, the percentiles) are the end
    /// line's to the tenth, in dB(A); RMS, peak and every band of the spectrum are in dB SPL.
    @Test func terminalSummaryIsInTheCalibratedUnit() throws {
        let dir = try TempDir()
        let path = try Self.tones([(125, 0.1), (1000, 0.2)], seconds: 3, silence: 0, in: dir)
        let args = [path, "--spl", "--octaves", "3", "--calibration", "94"]
        let (_, _, end, _) = try AnalyzeCLITests.analyze(args)
        let r = try Tool.run(["analyze"] + args + ["-f", "ansi"])
        #expect(r.status == 0, "\(r.err)")
        let text = r.out
        /// The number printed after `label` (and a space or more) in `line`.
        func number(after label: String, in line: Substring) -> Double? {
            guard let range = line.range(of: label + " ") else { return nil }
            let rest = line[range.upperBound...].drop { $0 == " " }
            return Double(rest.prefix { $0 != " " })
        }
        // Each printed to a tenth; the end line's to a hundredth.
        func close(_ printed: Double?, _ v: Double) -> Bool { printed.map { abs($0 - v) <= 0.051 } ?? false }
        let ln = try #require((end["ln_db"] as? [[String: Any]])?.first)
        let expected: [(String, Double)] = [
            ("LAeq", Tool.doubles(end["leq_db"])[0]), ("LAFmax", Tool.doubles(end["lmax_db"])[0]),
            ("LAFmin", Tool.doubles(end["lmin_db"])[0]), ("L10", try #require(Tool.double(ln["L10"]))),
            ("L50", try #require(Tool.double(ln["L50"]))), ("L90", try #require(Tool.double(ln["L90"]))),
        ]
        let soundLine = try #require(text.split(separator: "\n").first { $0.contains("LAeq") })
        for (name, v) in expected {
            #expect(v > 60, "\(name) \(v) is dB SPL")
            #expect(close(number(after: name, in: soundLine), v), "\(name) \(v) in \(soundLine)")
        }
        #expect(soundLine.hasSuffix("dB(A)"))
        let rmsLine = try #require(text.split(separator: "\n").first { $0.contains("RMS") })
        #expect(close(number(after: "RMS", in: rmsLine), Tool.doubles(end["rms_db"])[0]) && rmsLine.contains(" dB SPL  peak"),
                "\(rmsLine)")
        #expect(close(number(after: "peak", in: rmsLine), Tool.doubles(end["peak_db"])[0]), "\(rmsLine)")
        let bands = Tool.doubles(end["bands_db"])
        let rows = text.split(separator: "\n").filter { $0.contains(" Hz ") && $0.contains("dB SPL") }
        #expect(rows.count == bands.count, "\(rows.count) spectrum rows for \(bands.count) bands")
        for (row, db) in zip(rows, bands) {
            #expect(close(number(after: "Hz", in: row), db), "\(row) vs \(db)")
        }
    }

    /// A quiet room: a 1 kHz tone 46 dB under full scale is 48 dB SPL at --calibration 94.
    /// Above a silence level of 40 (read in dB SPL) nothing is silence, in the events and the
    /// summary; a silence level of 55 makes the whole file one silence. Uncalibrated, -60 dBFS
    /// is the default, and the calibrated default is the same level relative to full scale.
    @Test func theSilenceLevelIsReadInTheCalibratedUnit() throws {
        let dir = try TempDir()
        let amplitude = pow(10, -46.0 / 20) * 2.0.squareRoot()
        let path = try Self.tones([(1000, amplitude)], seconds: 4, silence: 0, in: dir)
        let cal = ["--calibration", "94", "--events", "--silence-min", "1"]
        /// The end line and the events of an NDJSON run.
        func run(_ args: [String]) throws -> (end: [String: Any], events: [String]) {
            let r = try Tool.run(["analyze", path] + args + ["-f", "ndjson"])
            #expect(r.status == 0, "\(r.err)")
            let lines = try Tool.ndjson(r)
            let end = try #require(lines.last)
            #expect(end["type"] as? String == "end")
            return (end, lines.filter { $0["type"] as? String == "event" }.compactMap { $0["event"] as? String })
        }
        let (end, events) = try run(cal + ["--silence-db", "40"])
        #expect(abs(Tool.doubles(end["rms_db"])[0] - 48) < 0.05 && abs(Tool.doubles(end["leq_db"])[0] - 48) < 0.05)
        #expect(events.isEmpty, "48 dB SPL is no silence below 40: \(events)")
        #expect(Tool.double(end["silence_seconds"]) == 0)
        let summary = try Tool.run(["analyze", path] + cal + ["--silence-db", "40", "-f", "ansi"])
        #expect(summary.out.contains("silence   0.0 s in 0 silences (below 40.0 dB SPL)"), "\(summary.out)")
        let (quiet, quietEvents) = try run(cal + ["--silence-db", "55"])
        #expect(quietEvents == ["silence_start", "silence_end"], "\(quietEvents)")
        #expect(abs((Tool.double(quiet["silence_seconds"]) ?? 0) - 4) < 0.06, "\(quiet)")
        // The default: -60 dBFS, so 34 dB SPL here; the room is above it.
        let (byDefault, defaultEvents) = try run(cal)
        #expect(Tool.double(byDefault["silence_seconds"]) == 0 && defaultEvents.isEmpty)
        // A level outside the calibrated range names it; clipping stays in dBFS.
        Tool.expectError(try Tool.run(["analyze", path, "--calibration", "94", "--events", "--silence-db", "-100"]), 64,
                         mentions: ["--silence-db -100", "calibrated unit", "-66 to 94"])
        Tool.expectError(try Tool.run(["analyze", path, "--calibration", "94", "--events", "--clip-db", "3"]), 64,
                         mentions: ["--clip-db 3", "dBFS"])
    }
}
