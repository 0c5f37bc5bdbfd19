import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    /// `--exec` on a live run: hooks that take their time never delay the frames, and a stop
    /// (SIGTERM) gives the running hooks 2 s, then ends them with everything they started (no
    /// orphans) and the waiting ones, counted in one stderr line and the end line.
    @Suite("hooks")
    struct Hooks {
        @Test("slow hooks do not delay live frames; SIGTERM ends them and what they started within 2.5 s, counted")
        func slowHooksAndSIGTERM() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("hooks")
            defer { Live.removeTree(dir) }
            // Signal and silence by turns, 1 s each: a silence_start and a silence_end a second.
            var input: [Int16] = []
            for k in 0..<4 {
                input += TestSignal.make(frames: 48000, seed: 60 + UInt64(k))
                input += [Int16](repeating: 0, count: 2 * 48000)
            }
            // Each hook notes its shell's pid (its process group) and sleeps far longer than the run.
            let hook = "echo $$ >> '\(dir)/groups'; sleep 300"
            server.drainFeed()
            let p = try pulsemeter(["monitor", "-d", server.feedSource, "-f", "ndjson", "--silence-min", "0.5",
                                    "--exec-on", "silence_start,silence_end", "--exec", hook], server: server)
            defer { p.kill() }
            let first = try #require(p.readLine(timeout: 15), "no start line; stderr: \(p.stderrText)")
            #expect(try JSONLine(first).type == "start")
            let feeder = server.startFeeding(input, speed: 1)
            defer { server.stopFeeding(feeder) }
            // Past the second silence's end (about 5 s of audio): four hooks started and sleeping.
            let r = try LiveSuite.readUntil(pos: 5 * 48000 + 12000 + server.feedDuration(frames: 0), p, timeout: 30)
            #expect(r.reached)
            let events = r.lines.filter { $0.type == "event" }
            #expect(events.count >= 4, "events: \(events.map(\.raw))")
            // The frames kept real-time pace while the hooks slept: the wall clock (ts) against
            // the audio clock (pos) drifts by less than a fraction of a second.
            let frames = r.lines.filter { $0.type == "frame" }
            let offsets = frames.compactMap { f -> Double? in
                guard let ts = f.double("ts"), let pos = f.int("pos") else { return nil }
                return ts - Double(pos) / Double(Live.rate)
            }
            #expect(offsets.count == frames.count && frames.count > 100)
            let late = offsets.suffix(from: offsets.count / 4)  // after the start-up burst
            #expect((late.max() ?? 9) - (late.min() ?? 0) < 0.5, "frames fell behind the audio while hooks ran")
            // One hook per event line, at most 4 at once (the rest wait).
            func groupsNoted() -> [pid_t] {
                ((try? String(contentsOfFile: dir + "/groups", encoding: .utf8)) ?? "").split(separator: "\n").compactMap { pid_t($0) }
            }
            #expect(Wait.until(timeout: 10, interval: 0.01) { groupsNoted().count >= min(events.count, 4) },
                    "the hooks never started")
            let groups = groupsNoted()
            #expect(groups.count == min(events.count, 4))
            for g in groups { #expect(!processes(inGroup: g).isEmpty, "hook group \(g) is not running") }

            let t0 = monotonic()
            p.signal(SIGTERM)
            let rest = try parseLines(p.readToEnd(timeout: 15))
            let status = p.wait(timeout: 10)
            let took = monotonic() - t0
            #expect(status == 0, "stderr: \(p.stderrText)")
            #expect(took < 2.5, "2 s for the running hooks, then they are ended (took \(took) s)")
            let end = try #require(rest.last)
            #expect(end.type == "end")
            for g in groups { #expect(processes(inGroup: g).isEmpty, "hook group \(g) outlived pulsemeter") }
            // Every event line's hook was accepted (far fewer than 64 wait): the four running
            // and the rest waiting, all ended by the stop; one line says so.
            let allEvents = (r.lines + rest).filter { $0.type == "event" }.count
            #expect(end.int("hooks_run") == 0 && end.int("hooks_dropped") == 0)
            #expect(end.int("hooks_killed") == allEvents, "end: \(end.raw)")
            let said = p.stderrText.split(separator: "\n").filter { $0.contains("stopped:") }
            #expect(said == ["pulsemeter: stopped: 4 hooks still running after 2 s were ended and \(allEvents - 4) waiting hook\(allEvents - 4 == 1 ? "" : "s") never ran"],
                    "stderr: \(p.stderrText)")
        }
    }
}

/// Every process with its state, parent and process group (/proc/PID/stat fields 3, 4, 5).
func processTable() -> [(pid: pid_t, state: Substring, parent: pid_t, group: pid_t)] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { e in
        guard let pid = pid_t(e), let stat = try? String(contentsOfFile: "/proc/\(e)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let f = stat[stat.index(after: close)...].split(separator: " ")
        guard f.count > 3, let parent = pid_t(f[1]), let group = pid_t(f[2]) else { return nil }
        return (pid, f[0], parent, group)
    }
}

/// Live processes (not zombies) whose process group is `pgid`.
func processes(inGroup pgid: pid_t) -> [pid_t] {
    processTable().filter { $0.group == pgid && $0.state != "Z" }.map(\.pid)
}
