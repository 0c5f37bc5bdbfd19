import Foundation
import Testing
import TestSupport

/// `--alarm` through the binary, on raw s16le stdin at 8 kHz (10 frames a second, so a
/// hop is 0.1 s): the on/off sequence at the positions the test computes, per channel, the
/// hooks, and the refusals.
@Suite struct AlarmCLITests {
    static let rate = 8000
    static let hop = 800

    /// Stereo raw s16le: each channel's level (dB of RMS) as a function of time, as a square
    /// wave at Nyquist (+v, -v, ...), whose RMS is v exactly.
    static func raw(seconds: Double, _ level: (Double, Int) -> Double) -> Data {
        let n = Int(seconds * Double(rate))
        var bytes = [UInt8]()
        bytes.reserveCapacity(n * 4)
        for i in 0..<n {
            let t = Double(i) / Double(rate)
            for c in 0..<2 {
                let db = level(t, c)
                let v = db <= -150 ? 0 : Int16((32768 * pow(10, db / 20)).rounded()) * (i % 2 == 0 ? 1 : -1)
                let u = UInt16(bitPattern: v)
                bytes += [UInt8(u & 0xff), UInt8(u >> 8)]
            }
        }
        return Data(bytes)
    }

    static func events(_ out: String) throws -> [[String: Any]] {
        try out.split(separator: "\n").filter { $0.hasPrefix("{\"type\":\"event\"") }.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    static func analyze(_ stdin: Data, _ extra: [String]) throws -> Tool.Result {
        try Tool.run(["analyze", "-", "--raw", "s16le", "-r", "8000", "-c", "2", "--fps", "10", "-f", "ndjson"] + extra,
                     stdin: stdin)
    }

    /// The dead-air timeline on the left channel (seconds from, level), the right at -20:
    /// a 25 s dip (no alarm), a 35 s dip (on 30 s in), 3 s up, 1 s between the thresholds,
    /// 6 s up (off 5 s in), then around them: 31 s low (on), 4 s above the clear level, 1 s
    /// below it, 5 s above (off).
    static let timeline: [(Double, Double)] = [
        (0, -20), (10, -50), (35, -20), (45, -50), (80, -20), (83, -38), (84, -20),
        (90, -45), (121, -30), (125, -41), (126, -30), (131, -20),
    ]

    @Test("a low alarm with hysteresis: exactly the expected on/off sequence, each within a hop of its time")
    func deadAirSequence() throws {
        let input = Self.raw(seconds: 140) { t, c in c == 1 ? -20 : Self.timeline.last { $0.0 <= t }!.1 }
        let r = try Self.analyze(input, ["--alarm", "dead-air:rms_db<-40/30,-35/5"])
        #expect(r.status == 0, "stderr: \(r.err)")
        let events = try Self.events(r.out)
        // Expected: on 30 s into the 35 s dip (45 s) and into the 31 s one (90 s); off 5 s
        // after the level is back above -35 to stay (84 s, 126 s).
        let expected: [(String, Double, Double)] = [("alarm_on", 75, 30), ("alarm_off", 89, 5), ("alarm_on", 120, 30), ("alarm_off", 131, 5)]
        #expect(events.map { $0["event"] as? String } == expected.map(\.0))
        for (e, x) in zip(events, expected) {
            let pos = try #require(e["pos"] as? Int)
            #expect(abs(pos - Int(x.1 * Double(Self.rate))) <= Self.hop, "\(x.0) at \(pos), expected \(x.1) s")
            #expect(abs((e["held_seconds"] as? Double ?? -1) - x.2) <= 0.1 + 1e-9)
            #expect(e["name"] as? String == "dead-air" && e["metric"] as? String == "rms_db" && e["channel"] as? Int == 0)
        }
    }

    @Test("one silent channel of two raises the per-channel alarm naming it; hooks run once per alarm line")
    func silentChannelAndHooks() throws {
        let dir = try TempDir()
        try FileManager.default.createDirectory(atPath: dir.path("hooks"), withIntermediateDirectories: true)
        // Right silent from 2 s to 6 s: on at 5 s, off at 7 s (1 s back over -40).
        let input = Self.raw(seconds: 9) { t, c in c == 1 && t >= 2 && t < 6 ? -160 : -20 }
        let r = try Self.analyze(input, ["--alarm", "dead:rms_db<-60/3,-40/1", "--exec-on", "alarm_on,alarm_off",
                                         "--exec", HookCLITests.recordingHook(dir)])
        #expect(r.status == 0, "stderr: \(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init).filter { $0.hasPrefix("{\"type\":\"event\"") }
        let events = try Self.events(r.out)
        #expect(events.map { $0["event"] as? String } == ["alarm_on", "alarm_off"])
        #expect(events.map { $0["channel"] as? Int } == [1, 1])
        #expect(events.map { $0["pos"] as? Int } == [5 * Self.rate, 7 * Self.rate])
        let runs = try HookCLITests.hookRuns(dir)
        #expect(runs.map(\.line).sorted() == lines.sorted())
        #expect(runs.compactMap { $0.vars.count > 1 ? $0.vars[1] : nil }.sorted() == ["alarm_off", "alarm_on"])
        #expect(r.out.contains("\"hooks_run\":2"))
    }

    @Test("refusals: a malformed spec and a metric the run does not measure, exit 64 in one line naming what to do",
          arguments: [
            (["--alarm", "dead-air:rms_db-40/30"], "dead-air:rms_db-40/30 is not an alarm: give NAME:METRIC>LEVEL/SECONDS"),
            (["--alarm", "x:lufs_i<-30/3"], "lufs_i is not a metric"),
            (["--alarm", "x:lufs_s<-30/3"], "add --loudness"),
            (["--alarm", "x:spl_db>85/3"], "add --spl"),
            (["--alarm", "x:rms_db<-40/3", "--alarm", "x:peak_db>-1/0"], "named x was given already"),
          ])
    func refusals(args: [String], says: String) throws {
        let r = try Self.analyze(Self.raw(seconds: 1) { _, _ in -20 }, args)
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("pulsemeter: ") && r.err.contains(says), "\(r.err)")
        #expect(r.err.split(separator: "\n").count == 1)
    }
}
