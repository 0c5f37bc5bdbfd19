import Foundation
import Testing

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
        var rng = SplitMix(state: 45)
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
                                 (["--interval", "60", "--start-time", "10:07"], "RFC 3339")] {
            let r = try Tool.run(["analyze", "-", "--raw", "s16le", "-r", "8000", "-c", "1"] + args, stdin: Data())
            try Tool.expectError(r, 64, mentions: [mentions])
        }
        let live = try Tool.run(["monitor", "--interval", "5", "--start-time", "2026-12-04T10:07:00+01:00"])
        try Tool.expectError(live, 64, mentions: ["wall clock"])
    }
}
