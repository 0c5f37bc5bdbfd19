import Foundation
import MeterCore
import Testing
import TestSupport

/// `--preset` verdicts (issue 44): every preset judges a generated corpus right. Fixtures are
/// 1 kHz sines made by sox, whose loudness BS.1770 fixes: a stereo 1 kHz sine of peak P dBFS
/// reads P LUFS (the K-weighting's +0.69 dB at 1 kHz cancels the -0.691 offset; EBU Tech
/// 3341 case 1), and its true peak is P dBTP. ffmpeg's `ebur128=peak=true` checks each.
@Suite struct DeliveryVerdictCLITests {
    /// One fixture: its name, what it should read, and which rule (if any) should fail.
    struct Fixture {
        var path: String
        var integrated: Double
        var truePeak: Double
        var fails: Verdict.Rule.Kind?
    }

    /// A stereo 1 kHz sine of `seconds` at peak `db` dBFS.
    static func sine(_ path: String, seconds: Double, db: Double) throws {
        try Tool.sox(["-q", "-n", "-r", "48000", "-c", "2", "-b", "24", path, "synth", String(seconds), "sine", "1000",
                      "vol", String(format: "%.2fdB", db)])
    }

    /// `parts` (seconds, peak dBFS) of a 1 kHz sine one after another: whole cycles each, so
    /// that they join without a step. The integrated loudness is the time-weighted mean
    /// energy (every 400 ms block passes both gates).
    static func sines(_ path: String, _ parts: [(seconds: Double, db: Double)], in dir: TempDir) throws -> Double {
        var files: [String] = []
        for (i, p) in parts.enumerated() {
            let f = dir.path("part-\(UUID().uuidString)-\(i).wav")
            try sine(f, seconds: p.seconds, db: p.db)
            files.append(f)
        }
        try Tool.sox(files + [path])
        let total = parts.map(\.seconds).reduce(0, +)
        let energy = parts.map { $0.seconds * pow(10, $0.db / 10) }.reduce(0, +) / total
        return 10 * log10(energy)
    }

    /// Per preset: the integrated loudness 0.3 LU inside and outside the tolerance either
    /// way, and a 5 ms burst with a true peak 0.2 dB under and over the ceiling in 20 s of
    /// programme whose level puts the whole at the target.
    static func corpus(_ p: DeliveryPreset, in dir: TempDir) throws -> [Fixture] {
        var out: [Fixture] = []
        for (offset, passes) in [(p.tolerance - 0.3, true), (p.tolerance + 0.3, false)] {
            for sign in [-1.0, 1.0] {
                let db = p.integrated + sign * offset
                let path = dir.path("\(p.name)-i\(String(format: "%+.1f", sign * offset)).wav")
                try sine(path, seconds: 10, db: db)
                out.append(Fixture(path: path, integrated: db, truePeak: db, fails: passes ? nil : .integrated))
            }
        }
        for (offset, passes) in [(-0.2, true), (0.2, false)] {
            let peak = p.maxTruePeak + offset
            let path = dir.path("\(p.name)-tp\(String(format: "%+.1f", offset)).wav")
            let burst = 0.005, base = 10 * log10((20 + burst) * pow(10, p.integrated / 10) - burst * pow(10, peak / 10)) - 10 * log10(20)
            let i = try sines(path, [(10, base), (burst, peak), (10, base)], in: dir)
            out.append(Fixture(path: path, integrated: i, truePeak: peak, fails: passes ? nil : .truePeak))
        }
        return out
    }

    /// The rules of an end line's verdict, by name.
    static func rules(_ end: [String: Any]) throws -> [String: [String: Any]] {
        let verdict = try #require(end["verdict"] as? [String: Any], "no verdict in \(end)")
        let rules = try #require(verdict["rules"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: rules.map { ($0["rule"] as? String ?? "", $0) })
    }

    /// Runs one file under `preset`; checks the exit status, the verdict against the
    /// fixture, and that each rule's value is the end line's own figure.
    static func judge(_ f: Fixture, _ args: [String], preset p: DeliveryPreset, shortTermMax: Double? = nil) throws {
        let r = try Tool.run(["analyze", f.path, "-f", "ndjson"] + args)
        let name = URL(fileURLWithPath: f.path).lastPathComponent
        #expect(r.status == (f.fails == nil ? 0 : 1), "\(name): exit \(r.status) \(r.err)")
        let end = try #require(try Tool.ndjson(r).last)
        let i = try #require(Tool.double(end["lufs_i"])), tp = Tool.doubles(end["true_peak_db"]).max() ?? .nan
        #expect(abs(i - f.integrated) <= 0.05, "\(name): I \(i), analytic \(f.integrated)")
        #expect(abs(tp - f.truePeak) <= 0.05, "\(name): true peak \(tp), analytic \(f.truePeak)")
        let rules = try rules(end)
        let verdict = try #require(end["verdict"] as? [String: Any])
        #expect(verdict["pass"] as? Bool == (f.fails == nil), "\(name): \(verdict)")
        let integrated = try #require(rules["integrated"]), peak = try #require(rules["true_peak"])
        #expect(Tool.double(integrated["value"]) == i && Tool.double(peak["value"]) == tp, "\(name): \(rules)")
        #expect(Tool.double(integrated["min"]) == p.integrated - p.tolerance && Tool.double(integrated["max"]) == p.integrated + p.tolerance)
        #expect(Tool.double(peak["max"]) == p.maxTruePeak)
        for (kind, rule) in rules {
            #expect(rule["pass"] as? Bool == (kind != f.fails?.rawValue), "\(name): \(kind) \(rule)")
        }
        if let s = rules["max_short_term"] {
            #expect(Tool.double(s["value"]) == Tool.double(end["max_lufs_s"]) && Tool.double(s["max"]) == p.maxShortTerm)
        }
        #expect(Tool.double(end["plr_db"]).map { abs($0 - (tp - i)) <= 0.011 } == true, "plr_db \(end["plr_db"] ?? "none")")
        #expect(Tool.double(end["headroom_db"]).map { abs($0 - (p.maxTruePeak - tp)) <= 0.011 } == true)
    }

    @Test(arguments: DeliveryPreset.all.map(\.name))
    func eachPresetJudgesItsCorpus(_ name: String) throws {
        let p = try #require(DeliveryPreset.named(name))
        let dir = try TempDir()
        let corpus = try Self.corpus(p, in: dir)
        for f in corpus { try Self.judge(f, ["--preset", name], preset: p) }
        // The figures by ffmpeg too (a file inside and one over the ceiling).
        for f in [corpus[0], corpus[5]] {
            let ref = try LoudnessCLITests.ffmpegEbur128(f.path)
            #expect(abs(ref.i - f.integrated) <= 0.1, "ffmpeg I \(ref.i) vs analytic \(f.integrated)")
            #expect(abs(ref.peak - f.truePeak) <= 0.2, "ffmpeg true peak \(ref.peak) vs analytic \(f.truePeak)")
        }
        // All of them in one run: the failing files' count, and exit 1.
        let r = try Tool.run(["analyze", "-f", "ndjson", "--preset", name] + corpus.map(\.path))
        #expect(r.status == 1, "exit \(r.status): \(r.err)")
        let last = try #require(try Tool.ndjson(r).last)
        #expect(last["type"] as? String == "verdicts")
        #expect(Tool.int(last["pass"]) == corpus.filter { $0.fails == nil }.count)
        #expect(Tool.int(last["fail"]) == corpus.filter { $0.fails != nil }.count)
        let passing = corpus.filter { $0.fails == nil }.map(\.path)
        #expect(try Tool.run(["analyze", "-f", "ndjson", "--preset", name] + passing).status == 0)
    }

    /// R128 s1: a spot at the target whose loudest 4 s are 0.7 LU over the -18 LUFS
    /// short-term limit fails that rule alone; 0.3 LU under it passes.
    @Test func shortFormMaxShortTerm() throws {
        let p = try #require(DeliveryPreset.named("ebu-r128-s1"))
        let dir = try TempDir()
        for (loud, passes) in [(-17.3, false), (-18.3, true)] {
            let path = dir.path("spot\(loud).wav")
            let i = try Self.sines(path, [(13, -25), (4, loud), (13, -25)], in: dir)
            try Self.judge(Fixture(path: path, integrated: i, truePeak: loud, fails: passes ? nil : .maxShortTerm),
                           ["--preset", p.name], preset: p)
            let end = try #require(try Tool.ndjson(try Tool.run(["analyze", path, "-f", "ndjson", "--preset", p.name])).last)
            #expect(abs((Tool.double(end["max_lufs_s"]) ?? 0) - loud) <= 0.05, "max short-term \(end["max_lufs_s"] ?? "none")")
        }
    }

    /// --target and --tolerance judge without a preset; --max-true-peak overrides; the
    /// summary names the failing rule and says when the suggested gain crosses the ceiling.
    @Test func overridesAndSummary() throws {
        let dir = try TempDir()
        let path = dir.path("episode.wav")
        // -19 LUFS with a -4.5 dBTP burst: +3 dB to -16 would put the peak at -1.5.
        _ = try Self.sines(path, [(5, -19), (0.02, -4.5), (5, -19)], in: dir)
        var r = try Tool.run(["analyze", path, "-f", "ndjson", "--target", "-16", "--tolerance", "1"])
        #expect(r.status == 1)
        var end = try #require(try Tool.ndjson(r).last)
        #expect(try Self.rules(end)["integrated"]?["min"] as? Double == -17)
        r = try Tool.run(["analyze", path, "-f", "ndjson", "--preset", "podcast", "--tolerance", "4", "--max-true-peak", "-2"])
        #expect(r.status == 0, "\(r.err)")
        end = try #require(try Tool.ndjson(r).last)
        let rules = try Self.rules(end)
        #expect(rules["integrated"]?["pass"] as? Bool == true && rules["true_peak"]?["max"] as? Double == -2)
        #expect(Tool.double(end["headroom_db"]).map { abs($0 - 2.5) <= 0.06 } == true)
        // The summary: PASS/FAIL and the gain that would cross the ceiling.
        r = try Tool.run(["analyze", path, "--target", "-14", "--tolerance", "1", "-f", "ansi"])
        #expect(r.status == 1)
        #expect(r.out.contains("FAIL: integrated"), "\(r.out)")
        #expect(r.out.contains("would put the true peak at"), "\(r.out)")
        r = try Tool.run(["analyze", path, "--preset", "atsc-a85", "--tolerance", "6", "-f", "ansi"])
        #expect(r.status == 0 && r.out.contains("PASS (atsc-a85)"), "\(r.out)")
    }

    @Test func unknownPresetAndLoneTolerance() throws {
        let dir = try TempDir()
        let x = dir.path("x.wav")
        try Self.sine(x, seconds: 1, db: -20)
        let r = try Tool.run(["analyze", x, "--preset", "ebu"])
        Tool.expectError(r, 64, mentions: ["--preset ebu", "ebu-r128", "apple"])
        Tool.expectError(try Tool.run(["analyze", x, "--tolerance", "1"]), 64, mentions: ["--tolerance", "--target"])
        Tool.expectError(try Tool.run(["analyze", x, "--preset", "apple", "--max-true-peak", "3"]), 64, mentions: ["--max-true-peak 3"])
        Tool.expectError(try Tool.run(["record", "y.wav", "--preset", "ebu"]), 64, mentions: ["--preset ebu"])
    }

    /// BS.1770 reads a mono 1 kHz sine of peak P at P - 3.01 LUFS (one channel's energy);
    /// --dual-mono counts it twice, as the same sine on both stereo channels reads: P.
    @Test func dualMonoCountsTheChannelTwice() throws {
        let dir = try TempDir()
        let mono = dir.path("mono.wav")
        try Tool.sox(["-q", "-n", "-r", "48000", "-c", "1", "-b", "24", mono, "synth", "10", "sine", "1000", "vol", "-20dB"])
        let plain = try #require(Tool.double(try AnalyzeCLITests.analyze([mono, "--loudness"]).end["lufs_i"]))
        let dual = try #require(Tool.double(try AnalyzeCLITests.analyze([mono, "--dual-mono"]).end["lufs_i"]))
        #expect(abs(plain - (-20 - 10 * log10(2))) <= 0.05, "mono \(plain)")
        #expect(abs(dual - -20) <= 0.05 && abs(dual - plain - 10 * log10(2)) <= 0.01, "dual mono \(dual)")
        let ref = try LoudnessCLITests.ffmpegEbur128(mono)
        #expect(abs(ref.i - plain) <= 0.1, "ffmpeg reads mono \(ref.i)")
    }

    @Test func presetsListsTheTable() throws {
        let r = try Tool.run(["presets"])
        #expect(r.status == 0)
        for p in DeliveryPreset.all { #expect(r.out.contains(p.name), "\(p.name)") }
        #expect(r.out.contains("±0.5 LU (±1 live)") && r.out.contains("-18 LUFS"))
        let man = try InstallTests.text("docs/pulsemeter.1")
        for p in DeliveryPreset.all { #expect(man.contains(p.name.replacingOccurrences(of: "-", with: "\\-") + "\t")) }
    }
}
