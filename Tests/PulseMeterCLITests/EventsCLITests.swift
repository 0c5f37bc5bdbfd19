import Foundation
import Testing
import TestSupport

/// `--events` through `analyze`: silence spans against ffmpeg's silencedetect, clip counts
/// against the samples the test pinned at the rails, and the option errors.
@Suite struct EventsCLITests {
    static func events(_ lines: [[String: Any]]) -> [[String: Any]] { lines.filter { $0["type"] as? String == "event" } }

    /// ffmpeg's silencedetect on `path`: (start, end) in seconds.
    static func silencedetect(_ path: String, db: Double, min: Double) throws -> [(Double, Double)] {
        let ffmpeg = try #require(Tool.which("ffmpeg"), "ffmpeg is needed to check silence spans")
        let r = try Tool.exec(ffmpeg, ["-hide_banner", "-nostats", "-i", path, "-af", "silencedetect=n=\(db)dB:d=\(min)", "-f", "null", "-"])
        var starts: [Double] = [], ends: [Double] = []
        for line in r.err.split(separator: "\n") {
            if let s = line.range(of: "silence_start: ") { starts.append(Double(line[s.upperBound...].split(separator: " ")[0])!) }
            if let e = line.range(of: "silence_end: ") { ends.append(Double(line[e.upperBound...].split(separator: " ")[0])!) }
        }
        return Array(zip(starts, ends))
    }

    @Test("silence spans agree with ffmpeg silencedetect within one hop plus one window",
          arguments: [(-60.0, 2.0), (-50.0, 0.5)])
    func silenceMatchesFfmpeg(db: Double, min: Double) throws {
        let dir = try TempDir()
        let rate = 48000
        // Tone, 3 s digital silence, tone, 0.8 s of a -70 dBFS hum, tone, silence to the end.
        var x: [Double] = []
        func tone(_ s: Double, _ a: Double) { for i in 0..<Int(s * Double(rate)) { let v = a * sin(Double(i) * 0.0577); x += [v, v * 0.8] } }
        tone(1.3, 0.4); tone(3, 0); tone(1, 0.4); tone(0.8, 0.0003); tone(1.1, 0.4); tone(2.6, 0)
        let audio = TestAudio(rate: rate, channels: 2, encoding: .s16, doubles: x)
        let wav = try audio.write(to: dir, name: "gaps")
        let r = try Tool.run(["analyze", wav, "--events", "--silence-db", String(db), "--silence-min", String(min), "-f", "ndjson"])
        #expect(r.status == 0, "\(r.err)")
        let lines = try Tool.ndjson(r)
        let start = try #require(lines.first)
        let tolerance = Double(try #require(Tool.int(start["hop"])) + (try #require(Tool.int(start["window"])))) / Double(rate)
        let ev = Self.events(lines)
        var spans: [(Double, Double)] = []
        var open: Double?
        for e in ev {
            let t = try #require(Tool.double(e["t"]))
            #expect(abs(t - Double(try #require(Tool.int(e["pos"]))) / Double(rate)) < 1e-5)
            switch e["event"] as? String {
            case "silence_start": open = t
            case "silence_end":
                let s = try #require(open)
                #expect(abs(try #require(Tool.double(e["duration"])) - (t - s)) < 1e-4)
                spans.append((s, t))
                open = nil
            default: Issue.record("unexpected event \(e)")
            }
        }
        let reference = try Self.silencedetect(wav, db: db, min: min)
        #expect(spans.count == reference.count, "ours \(spans) ffmpeg \(reference)")
        #expect(reference.count == (min < 1 ? 3 : 2))
        for (a, b) in zip(spans, reference) {
            #expect(abs(a.0 - b.0) <= tolerance && abs(a.1 - b.1) <= tolerance, "ours \(a) ffmpeg \(b)")
        }
        #expect(lines.last?["type"] as? String == "end")
    }

    @Test("clip events count the samples pinned at either rail, per hop and channel; end sums them")
    func clipCounts() throws {
        let dir = try TempDir()
        let rate = 8000, channels = 3, frames = 4000, hop = 267  // --fps 30 at 8 kHz
        var rng = SeededRNG(seed: 5)
        var x = (0..<(frames * channels)).map { _ in 0.3 * rng.signed() }
        var expected: [String: Int] = [:], totals = [0, 0, 0]
        for k in 0..<120 {
            let i = Int(rng.next() % UInt64(frames)), c = k % channels
            guard abs(x[i * channels + c]) < 0.9 else { continue }
            x[i * channels + c] = k % 2 == 0 ? 1.0 : -1.0  // quantized to 32767 / -32768
        }
        for i in 0..<frames { for c in 0..<channels where abs(x[i * channels + c]) >= 1.0 {
            expected["\(min(frames, (i / hop + 1) * hop))/\(c)", default: 0] += 1
            totals[c] += 1
        } }
        let wav = try TestAudio(rate: rate, channels: channels, encoding: .s16, doubles: x).write(to: dir, name: "clip")
        let r = try Tool.run(["analyze", wav, "--events", "-f", "ndjson"])
        #expect(r.status == 0, "\(r.err)")
        let lines = try Tool.ndjson(r)
        #expect(Tool.int(lines.first?["hop"]) == hop)
        var got: [String: Int] = [:]
        for e in Self.events(lines) {
            #expect(e["event"] as? String == "clip")
            got["\(Tool.int(e["pos"]) ?? -1)/\(Tool.int(e["channel"]) ?? -1)"] = Tool.int(e["samples"])
        }
        #expect(got == expected)
        #expect((lines.last?["clipped_samples"] as? [Int]) == totals)
        #expect(totals.reduce(0, +) > 100)
        // Without --events: no event lines, no clipped_samples.
        let plain = try Tool.ndjson(try Tool.run(["analyze", wav, "-f", "ndjson"]))
        #expect(Self.events(plain).isEmpty && plain.last?["clipped_samples"] == nil)
    }

    @Test("bad event and recording options: exit 64 naming the option")
    func badOptions() throws {
        let dir = try TempDir()
        let wav = try TestAudio.make(rate: 8000, channels: 1, seconds: 0.2, encoding: .s16).write(to: dir, name: "ok")
        for (args, needle) in [
            (["--silence-db", "-50"], "--events"), (["--clip-db", "-1"], "--events"),
            (["--events", "--silence-db", "3"], "--silence-db"), (["--events", "--silence-db", "x"], "--silence-db"),
            (["--events", "--silence-min", "-1"], "--silence-min"), (["--events", "--clip-db", "-200"], "--clip-db"),
            (["--split", "5"], "--split"), (["--trigger", "-40"], "--trigger"), (["--pre-roll", "1"], "--pre-roll"),
        ] {
            let r = try Tool.run(["analyze", wav] + args)
            Tool.expectError(r, 64, mentions: [needle])
            #expect(r.stdout.isEmpty)
        }
        // record's own options are checked before anything connects (no server needed).
        for (args, needle) in [
            (["--split", "0"], "--split"), (["--split", "-3"], "--split"), (["--split", "x"], "--split"),
            (["--trigger", "5"], "--trigger"), (["--pre-roll", "61", "--trigger", "-40"], "--pre-roll"),
            (["--hold", "-1", "--trigger", "-40"], "--hold"), (["--hold", "2"], "--trigger"), (["--pre-roll", "1"], "--trigger"),
            (["--split", "0", "--trigger", "-40"], "--split"), (["--split", "5", "--hold", "2"], "--trigger"),
            (["--keep", "3"], "--keep"), (["--keep", "0", "--split", "1"], "--keep"), (["--keep", "x", "--trigger", "-40"], "--keep"),
        ] {
            let r = try Tool.run(["record", dir.path("r.wav")] + args)
            Tool.expectError(r, 64, mentions: [needle])
            #expect(r.stdout.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: dir.path("r.wav")))
        }
        for command in [["monitor"], ["monitor", "--record", dir.path("m.wav")]] {
            Tool.expectError(try Tool.run(command + ["--split", "5"]), 64, mentions: ["--split"])
        }
    }
}
