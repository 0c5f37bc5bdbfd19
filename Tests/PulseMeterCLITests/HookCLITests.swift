import Foundation
import Testing
import TestSupport

/// `--exec` and `--exec-on` through the binary: one hook run for each event line, with that
/// very line on its stdin and its fields in the PULSEMETER_* variables; the hook's output on
/// stderr only; a failing hook is one stderr line and the run goes on; at the end every hook
/// accepted has run, and the end line counts them and those dropped.
@Suite struct HookCLITests {
    /// 8 s of mono 48 kHz: tone, 2.5 s of digital silence, tone with 15 samples pinned at the
    /// rails, tone, 3 s of silence, tone: two silences (--silence-min 2) and one clip hop.
    static func file(in dir: TempDir) throws -> String {
        let rate = 48000
        var x: [Double] = []
        func tone(_ seconds: Double, _ a: Double) {
            x += (0..<Int(seconds * Double(rate))).map { a * sin(2 * Double.pi * 440 * Double($0) / Double(rate)) }
        }
        tone(1, 0.5)
        x += [Double](repeating: 0, count: 120_000)
        tone(0.5, 0.5)
        x += [Double](repeating: 1, count: 10) + [Double](repeating: -1, count: 5)
        tone(0.5, 0.5)
        x += [Double](repeating: 0, count: 144_000)
        tone(0.5, 0.3)
        return try TestAudio(rate: rate, channels: 1, encoding: .s16, doubles: x).write(to: dir, name: "gaps")
    }

    /// The hook: its stdin, then a line of its variables, into a file of its own.
    static func recordingHook(_ dir: TempDir) -> String {
        "f=$(mktemp -p '\(dir.path("hooks"))'); { cat; echo \"$PULSEMETER_TYPE|$PULSEMETER_EVENT|$PULSEMETER_POS|$PULSEMETER_T|$PULSEMETER_SOURCE|${PULSEMETER_FILE-}\"; } > \"$f\"; echo hook-said-this"
    }

    static func hookRuns(_ dir: TempDir) throws -> [(line: String, vars: [String])] {
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path("hooks"))
        return try names.map { name in
            let text = try String(contentsOfFile: dir.path("hooks") + "/" + name, encoding: .utf8)
            let parts = text.split(separator: "\n", omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? parts[1].split(separator: "|", omittingEmptySubsequences: false).map(String.init) : [])
        }
    }

    @Test func eachEventLineRunsTheHookOnceWithThatLineAndItsFields() throws {
        let dir = try TempDir()
        try FileManager.default.createDirectory(atPath: dir.path("hooks"), withIntermediateDirectories: true)
        let file = try Self.file(in: dir)
        let r = try Tool.run(["analyze", file, "-f", "ndjson", "--events", "--exec", Self.recordingHook(dir)])
        #expect(r.status == 0, "stderr: \(r.err)")
        let stdoutLines = r.out.split(separator: "\n").map(String.init)
        #expect(!stdoutLines.contains { $0.contains("hook-said-this") }, "hook output must stay out of the NDJSON")
        #expect(r.err.components(separatedBy: "hook-said-this").count - 1 == 5)
        let events = stdoutLines.filter { $0.hasPrefix("{\"type\":\"event\"") }
        let objects = try events.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.compactMap { $0["event"] as? String }.sorted()
                == ["clip", "silence_end", "silence_end", "silence_start", "silence_start"])
        #expect(objects.first { $0["event"] as? String == "clip" }?["samples"] as? Int == 15)
        let runs = try Self.hookRuns(dir)
        // Exactly one run per event line, each with that very line (in any order: 4 at once).
        #expect(runs.map(\.line).sorted() == events.sorted())
        for run in runs {
            let o = try #require(JSONSerialization.jsonObject(with: Data(run.line.utf8)) as? [String: Any])
            let t = try #require(o["t"] as? Double)
            #expect(run.vars.count == 6)
            guard run.vars.count == 6 else { continue }
            #expect(run.vars[0] == "event")
            #expect(run.vars[1] == o["event"] as? String)
            #expect(Int(run.vars[2]) == o["pos"] as? Int)
            #expect(abs((Double(run.vars[3]) ?? -1) - t) < 1e-9)
            #expect(run.vars[4] == file)  // the start line's source
            #expect(run.vars[5] == "")
        }
    }

    @Test func execOnNarrowsTheLinesAndImpliesEvents() throws {
        let dir = try TempDir()
        try FileManager.default.createDirectory(atPath: dir.path("hooks"), withIntermediateDirectories: true)
        let file = try Self.file(in: dir)
        let r = try Tool.run(["analyze", file, "-f", "ndjson", "--exec-on", "silence_start", "--exec", Self.recordingHook(dir)])
        #expect(r.status == 0, "stderr: \(r.err)")
        let starts = r.out.split(separator: "\n").map(String.init).filter { $0.contains("\"event\":\"silence_start\"") }
        #expect(starts.count == 2)
        #expect(try Self.hookRuns(dir).map(\.line).sorted() == starts.sorted())
    }

    @Test func aFailingHookIsOneStderrLineWithItsStatusAndTheRunGoesOn() throws {
        let dir = try TempDir()
        let file = try Self.file(in: dir)
        let r = try Tool.run(["analyze", file, "-f", "ndjson", "--exec-on", "clip,silence_end",
                              "--exec", "[ \"$PULSEMETER_EVENT\" != clip ] || exit 3"])
        #expect(r.status == 0)
        let lines = r.out.split(separator: "\n")
        // The clip's time as its line says it (the hop with the pinned samples).
        let clip = try #require(lines.first { $0.contains("\"event\":\"clip\"") })
        let t = try #require(clip.split(separator: ",").first { $0.hasPrefix("\"t\":") }).dropFirst(4)
        #expect(Double(t) == Double((192_000 / 1600 + 1) * 1600) / 48000 || abs((Double(t) ?? 0) - 193_600.0 / 48000) < 1e-5)
        #expect(r.err == "pulsemeter: the hook for the clip at \(t) s exited with status 3\n")
        #expect(lines.last?.hasPrefix("{\"type\":\"end\"") == true)
        #expect(lines.filter { $0.contains("\"event\":\"silence_end\"") }.count == 2)
    }

    @Test("100 clip events, a hook of 0.3 s each: every hook accepted runs before the exit, the rest are one warning and the end line's count")
    func everyAcceptedHookRunsBeforeTheExit() throws {
        let dir = try TempDir()
        try FileManager.default.createDirectory(atPath: dir.path("hooks"), withIntermediateDirectories: true)
        // 10 s of a quiet tone with 3 samples at the rail every 0.1 s: 100 clip hops.
        let rate = 48000
        var x = (0..<(10 * rate)).map { 0.25 * sin(2 * Double.pi * 440 * Double($0) / Double(rate)) }
        for k in 0..<100 { for j in 0..<3 { x[k * 4800 + 2400 + j] = 1 } }
        let file = try TestAudio(rate: rate, channels: 1, encoding: .s16, doubles: x).write(to: dir, name: "clips")
        let hook = "sleep 0.3; cat > \"$(mktemp -p '\(dir.path("hooks"))')\""
        let r = try Tool.run(["analyze", file, "-f", "ndjson", "--events", "--exec-on", "clip", "--exec", hook])
        #expect(r.status == 0, "stderr: \(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        let clips = lines.filter { $0.contains("\"event\":\"clip\"") }
        #expect(clips.count == 100)
        let end = try #require(lines.last.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(end["type"] as? String == "end")
        let run = try #require(end["hooks_run"] as? Int), dropped = try #require(end["hooks_dropped"] as? Int)
        #expect(end["hooks_killed"] as? Int == 0)
        #expect(run + dropped == 100)
        // The analysis hands over 100 lines far faster than 4 hooks of 0.3 s take them.
        #expect(run >= 64 && dropped > 0, "run \(run), dropped \(dropped)")
        // Each hook accepted wrote its line, one of the clip lines, before pulsemeter exited.
        let written = try Self.hookRuns(dir).map(\.line)
        #expect(written.count == run)
        #expect(Set(written).isSubset(of: Set(clips)) && Set(written).count == run)
        #expect(r.err == "pulsemeter: warning: hooks are falling behind (at most 4 run at once and 64 wait): the lines beyond that run no hook\n")
    }

    @Test func badHookOptionsAreUsageErrors() throws {
        let dir = try TempDir()
        let file = try Self.file(in: dir)
        Tool.expectError(try Tool.run(["analyze", file, "--exec-on", "clip"]), 64, mentions: ["--exec-on", "--exec CMD"])
        Tool.expectError(try Tool.run(["analyze", file, "--exec", "true", "--exec-on", "clip,silence"]), 64,
                         mentions: ["clip,silence", "silence_start", "device"])
        Tool.expectError(try Tool.run(["analyze", file, file, "--exec", "true"]), 64, mentions: ["--exec", "one input file"])
    }
}
