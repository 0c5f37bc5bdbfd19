import Foundation
import Testing
import TestSupport

/// `analyze --interval --spl --start-time`: period lines against the statistics computed here
/// from the same run's frames; `--lden`'s day line against Directive 2002/49/EC's formula;
/// the options' errors.
@Suite struct PeriodCLITests {
    /// `seconds` of raw s16le mono at 8 kHz: a 1 kHz tone (A-weighting 0 dB there) whose level
    /// steps every half second to a level from `level(step)`.
    static func tone(seconds: Int, level: (Int) -> Double) -> Data {
        let rate = 8000, half = rate / 2
        var samples = [Int16](repeating: 0, count: seconds * rate)
        let shape = (0..<8).map { sin(2 * Double.pi * Double($0) / 8) }
        samples.withUnsafeMutableBufferPointer { buf in
            for step in 0..<(buf.count / half) {
                let a = 32767 * pow(10, level(step) / 20)
                let cycle = shape.map { Int16(($0 * a).rounded()) }
                for i in 0..<half { buf[step * half + i] = cycle[i & 7] }
            }
        }
        return samples.withUnsafeBufferPointer { Data(buffer: $0) }
    }

    static func lines(_ r: Tool.Result, _ type: String) throws -> [[String: Any]] {
        try Tool.ndjson(r).filter { $0["type"] as? String == type }
    }

    /// An hour in 300 s periods from 10:00 (+01:00): 12 lines whose Leq is the energy mean of
    /// the frames' spl_db in the period (the detector's settling left out), Lmax and Lmin the
    /// frames' extremes exactly, L10/L50/L90 within 0.1 dB of the frames' percentiles.
    @Test func periodStatisticsAreThoseOfTheFrames() throws {
        var rng = SeededRNG(seed: 45)
        let steps = (0..<7200).map { _ in -50 + 40 * Double(rng.next() % 1000) / 1000 }
        let input = Self.tone(seconds: 3600) { steps[$0] }
        let r = try Tool.run(["analyze", "-", "--raw", "s16le", "-r", "8000", "-c", "1", "--fps", "10", "--spl",
                              "--interval", "300", "--start-time", "2026-12-04T10:00:00+01:00", "-f", "ndjson"], stdin: input)
        #expect(r.status == 0, "\(r.err)")
        let periods = try Self.lines(r, "period"), frames = try Self.lines(r, "frame")
        #expect(periods.count == 12)
        #expect(periods.first?["start"] as? String == "2026-12-04T10:00:00+01:00")
        #expect(periods.last?["end"] as? String == "2026-12-04T11:00:00+01:00")
        #expect(periods.allSatisfy { $0["partial"] as? Bool == false && Tool.double($0["seconds"]) == 300 })
        for (k, p) in periods.enumerated() {
            #expect(p["start"] as? String == String(format: "2026-12-04T%02d:%02d:00+01:00", 10 + k / 12, k % 12 * 5))
            let inside = frames.filter {
                let pos = Tool.int($0["pos"])!
                return pos > k * 2_400_000 && pos <= (k + 1) * 2_400_000
            }
            let levels = inside.filter { Tool.int($0["pos"])! >= 5000 }.map { Tool.doubles($0["spl_db"])[0] }
            let leq = 10 * log10(levels.map { pow(10, $0 / 10) }.reduce(0, +) / Double(levels.count))
            #expect(abs(Tool.doubles(p["leq_db"])[0] - leq) <= 0.05, "period \(k) Leq")
            #expect(Tool.doubles(p["lmax_db"]) == [levels.max()!], "period \(k) Lmax")
            #expect(Tool.doubles(p["lmin_db"]) == [levels.min()!], "period \(k) Lmin")
            #expect(Tool.doubles(p["peak_db"]) == [inside.map { Tool.doubles($0["peak_db"])[0] }.max()!])
            let sorted = levels.sorted(by: >)
            for (key, q) in [("l10_db", 10.0), ("l50_db", 50.0), ("l90_db", 90.0)] {
                let want = sorted[Int((q / 100 * Double(sorted.count)).rounded(.up)) - 1]
                #expect(abs(Tool.doubles(p[key])[0] - want) <= 0.1, "period \(k) \(key)")
            }
        }
    }

    /// With --loudness each period has its own true peak per channel: that of its tone (a
    /// sample falls on each crest), and over the periods their maxima are the end line's.
    @Test func periodsCarryTheirOwnTruePeak() throws {
        let levels = [-20.0, -12, -6, -9]
        let input = Self.tone(seconds: 40) { levels[$0 / 20] }
        let r = try Tool.run(["analyze", "-", "--raw", "s16le", "-r", "8000", "-c", "1", "--fps", "10", "--loudness",
                              "--interval", "10", "--start-time", "2026-12-04T10:00:00+01:00", "-f", "ndjson"], stdin: input)
        #expect(r.status == 0, "\(r.err)")
        let periods = try Self.lines(r, "period")
        let peaks = periods.map { Tool.doubles($0["true_peak_db"]) }
        #expect(peaks.count == 4 && peaks.allSatisfy { $0.count == 1 }, "\(peaks)")
        // The step down at 30 s rings into the last period's first samples.
        for (k, want) in levels.enumerated().prefix(3) {
            #expect(abs(peaks[k][0] - want) <= 0.1, "period \(k): \(peaks[k][0]) dBTP, the tone's \(want)")
        }
        #expect(peaks[3][0] >= levels[3] - 0.1 && peaks[3][0] <= levels[2])
        let end = try #require(try Self.lines(r, "end").first)
        #expect(Tool.doubles(end["true_peak_db"]) == [peaks.map { $0[0] }.max()!])
    }

    /// A file starting 10:07 with 900 s periods: a partial first period to 10:15.
    @Test func aFileStartingOffTheClockHasAPartialFirstPeriod() throws {
        let input = Self.tone(seconds: 600) { _ in -20 }
        let r = try Tool.run(["analyze", "-", "--raw", "s16le", "-r", "8000", "-c", "1", "--fps", "10",
                              "--interval", "900", "--start-time", "2026-12-04T10:07:00+01:00"], stdin: input)
        let periods = try Self.lines(r, "period")
        #expect(periods.map { $0["start"] as? String } == ["2026-12-04T10:07:00+01:00", "2026-12-04T10:15:00+01:00"])
        #expect(periods.map { $0["end"] as? String } == ["2026-12-04T10:15:00+01:00", "2026-12-04T10:17:00+01:00"])
        #expect(periods.map { $0["partial"] as? Bool } == [true, true])
        #expect(periods.map { Tool.double($0["seconds"]) } == [480, 120])
        // Without --spl: the frames' rms_db; a steady tone at -20 dBFS peak reads -23.01.
        #expect(periods.allSatisfy { abs(Tool.doubles($0["leq_db"])[0] + 23.01) < 0.02 })
    }

    @Test func optionErrors() throws {
        for (args, mentions) in [(["--interval", "0"], "1 to 86400"), (["--interval", "86401"], "1 to 86400"),
                                 (["--lden"], "--spl"), (["--start-time", "2026-12-04T10:07:00+01:00"], "--interval"),
                                 (["--interval", "60", "--start-time", "10:07"], "RFC 3339"),
                                 (["--interval", "60", "-f", "ansi"], "-f ndjson or -f csv")] {
            let r = try Tool.run(["analyze", "-", "--raw", "s16le", "-r", "8000", "-c", "1"] + args, stdin: Data())
            Tool.expectError(r, 64, mentions: [mentions])
        }
        let live = try Tool.run(["monitor", "--interval", "5", "--start-time", "2026-12-04T10:07:00+01:00"])
        Tool.expectError(live, 64, mentions: ["wall clock"])
    }
}

/// `-f csv` read back with Python's csv module: the same numbers as the NDJSON lines.
@Suite struct CSVCLITests {
    /// The rows of `csv` as Python's csv module reads them (header first).
    static func parse(_ csv: Data) throws -> [[String]] {
        let dir = try TempDir()
        let path = try dir.write(Array(csv), "out.csv")
        let py = try Tool.exec(try #require(Tool.which("python3")), ["-c", """
            import csv, json, sys
            raw = open(sys.argv[1], 'rb').read()
            assert raw.endswith(b'\\r\\n') and raw.count(b'\\n') == raw.count(b'\\r\\n'), 'rows end in CRLF'
            print(json.dumps(list(csv.reader(open(sys.argv[1], newline='')))))
            """, path])
        #expect(py.status == 0, "\(py.err)")
        return try #require(try JSONSerialization.jsonObject(with: py.stdout) as? [[String]])
    }

    static let args = ["analyze", "-", "--raw", "s16le", "-r", "8000", "-c", "2", "--fps", "10", "--spl"]

    /// 2 channels, 150 s in 60 s periods: a header row and 3 period rows whose every number is
    /// the period line's.
    @Test func periodRowsMatchThePeriodLines() throws {
        let mono = PeriodCLITests.tone(seconds: 150) { -30 + Double($0 % 7) }
        var stereo = Data()
        for i in stride(from: 0, to: mono.count, by: 2) { stereo += mono[i..<i + 2] + mono[i..<i + 2] }
        let options = ["--interval", "60", "--start-time", "2026-12-04T10:00:00+01:00"]
        let nd = try Tool.run(Self.args + options + ["-f", "ndjson"], stdin: stereo)
        let periods = try PeriodCLITests.lines(nd, "period")
        let names = try #require(try PeriodCLITests.lines(nd, "start").first?["channel_names"] as? [String])
        let dir = try TempDir()
        let out = dir.path("periods.csv")
        let r = try Tool.run(Self.args + options + ["-f", "csv", "-o", out], stdin: stereo)
        #expect(r.status == 0 && r.stdout.isEmpty, "\(r.err)")
        let rows = try Self.parse(try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(rows.count == 1 + periods.count && periods.count == 3)
        let header = rows[0]
        #expect(header.contains("leq_db_\(names[0])") && header.contains("l90_db_\(names[1])"))
        for (row, line) in zip(rows.dropFirst(), periods) {
            let field = Dictionary(uniqueKeysWithValues: zip(header, row))
            #expect(field["type"] == "period")
            #expect(field["start"] == line["start"] as? String && field["end"] == line["end"] as? String)
            #expect(Double(field["seconds"]!) == Tool.double(line["seconds"]))
            for key in ["leq_db", "lmax_db", "lmin_db", "l10_db", "l50_db", "l90_db", "peak_db"] {
                #expect(names.map { Double(field["\(key)_\($0)"]!)! } == Tool.doubles(line[key]), "\(key)")
            }
        }
    }

    /// Without --interval, a row per frame with the frame's numbers.
    @Test func frameRowsMatchTheFrames() throws {
        let input = PeriodCLITests.tone(seconds: 4) { -20 - Double($0) }
        let frames = try PeriodCLITests.lines(try Tool.run(Self.args.prefix(6) + ["-c", "1", "--fps", "10", "--spl", "-f", "ndjson"], stdin: input), "frame")
        let r = try Tool.run(Self.args.prefix(6) + ["-c", "1", "--fps", "10", "--spl", "-f", "csv"], stdin: input)
        let rows = try Self.parse(r.stdout)
        #expect(rows[0] == ["t", "pos", "rms_db_mono", "peak_db_mono", "spl_db_mono", "leq_db_mono"])
        #expect(rows.count == 1 + frames.count && frames.count == 40)
        for (row, f) in zip(rows.dropFirst(), frames) {
            #expect(row.map { Double($0)! } == [Tool.double(f["t"])!, Double(Tool.int(f["pos"])!)]
                    + Tool.doubles(f["rms_db"]) + Tool.doubles(f["peak_db"]) + Tool.doubles(f["spl_db"]) + Tool.doubles(f["leq_db"]))
        }
    }
}
