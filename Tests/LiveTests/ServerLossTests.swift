import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    /// The server going away (on PipeWire: pipewire-pulse killed). Each test kills its
    /// own private server, never the shared one.
    @Suite("losing the server")
    struct ServerLoss {
        /// Feeds `samples` into a running recording of the feed source and reads until they
        /// are all metered: the feeder finished (the pipe source took it all, or pacat played
        /// it), the position moved on by as many frames, and 0.3 s more (silence may come first:
        /// PipeWire's monitor, or PulseAudio's pipe source just after a restart). `lines` are
        /// those read so far. Returns the lines read.
        static func feed(_ samples: [Int16], to p: Subprocess, after lines: [JSONLine],
                         server: PulseServer) throws -> [JSONLine] {
            let feeder = server.startFeeding(samples, speed: nil)
            defer { feeder.stopAndJoin() }
            let target = (lines.last { $0.type == "frame" }?.int("pos") ?? 0) + samples.count / 2
            var got = try LiveSuite.readUntil(pos: target, p, timeout: 15)
            #expect(got.reached, "the fed frames are metered")
            #expect(feeder.wait(timeout: 10),
                    "the feed was taken: \(feeder.error ?? ""); record streams on: \(server.recordStreams())")
            got.lines += try LiveSuite.readFor(0.3, p)
            return got.lines
        }

        /// SIGTERM, then the remaining lines; a --reconnect run ends with 0 too.
        static func terminate(_ p: Subprocess) throws -> [JSONLine] {
            p.signal(SIGTERM)
            let rest = try parseLines(p.readToEnd(timeout: 10))
            #expect(p.wait(timeout: 5) == 0, "SIGTERM ends the run with 0; stderr: \(p.stderrText)")
            return rest
        }

        @Test("the server dies mid-recording: exit 74 within 2 s, one line, the end line, every frame kept")
        func serverDies() throws {
            let server = try PulseServer.startPrivate()
            defer { server.stop() }
            let dir = try Live.tempDir("lost")
            defer { Live.removeTree(dir) }
            let frames = 48_000
            let input = TestSignal.make(frames: frames, seed: 30)
            let file = dir + "/x.wav"
            let (p, _) = try LiveSuite.startRecording(file, [], server: server)
            // An m4a alongside: ffmpeg is given the end of its input and waited for.
            let m4a = dir + "/x.m4a"
            let (q, _) = try LiveSuite.startRecording(m4a, [], server: server)
            defer { q.kill() }
            let before = try Self.feed(input, to: p, after: [], server: server)
            #expect(try LiveSuite.readUntil(pos: frames, q, timeout: 15).reached)

            let killed = monotonic()
            try server.kill9()
            let status = p.wait(timeout: 5)
            let took = monotonic() - killed
            #expect(status == 74)
            #expect(took < 2, "exit within two seconds of the loss (took \(took) s)")
            let after = try parseLines(p.readToEnd(timeout: 5))
            let line = LiveSuite.errorLine(p.stderrText)
            #expect(line != nil, "one `pulsemeter: ` line on stderr, got: \(p.stderrText)")
            #expect(line?.contains(server.address) == true, "names the server: \(line ?? "")")
            let end = try #require((before + after).last)
            #expect(end.type == "end", "the end line is written: \(end.raw)")
            let pos = try #require(end.int("pos"))
            if server.alignedFeed { #expect(pos == frames) }
            #expect(end.int("recorded_frames") == pos)

            let recorded = try decodeWithSox(file)
            let w = try readWithPythonWave(file, expected: recorded)
            #expect(w.frames == pos, "every frame captured before the loss is in the file")
            #expect(w.matchesExpectedPrefix)
            #expect(fedAudioProblem(recorded, [input], server: server) == nil)

            #expect(q.wait(timeout: 5) == 74)
            let qEnd = try #require(try parseLines(q.readToEnd(timeout: 5)).last)
            let qFrames = server.alignedFeed ? frames : (qEnd.int("pos") ?? -1)
            #expect(qEnd.type == "end" && qEnd.int("recorded_frames") == qFrames, "ffmpeg acknowledged every frame: \(qEnd.raw)")
            let aac = try decodeWithFFmpeg(m4a)
            #expect(aac.status == 0 && abs(aac.samples.count / 2 - qFrames) <= 2048, "the m4a holds what was captured: \(aac.samples.count / 2) frames of \(qFrames), \(aac.stderr)")
        }

        @Test("--reconnect: the server comes back with its devices, or before them; the run waits for the device, the gap covers the whole absence, both sides are recorded",
              arguments: [false, true])
        func reconnect(deviceLater: Bool) throws {
            let server = try PulseServer.startPrivate()
            defer { server.stop() }
            let dir = try Live.tempDir("recon")
            defer { Live.removeTree(dir) }
            let before = TestSignal.make(frames: 48_000, seed: deviceLater ? 44 : 40)
            let after = TestSignal.make(frames: 48_000, seed: deviceLater ? 45 : 41)
            let file = dir + "/x.wav"
            let (p, _) = try LiveSuite.startRecording(file, ["--reconnect"], server: server)
            var lines = try Self.feed(before, to: p, after: [], server: server)

            let lostAt = Date().timeIntervalSince1970
            try server.kill9()
            lines += try LiveSuite.readFor(0.5, p)  // the frames captured before the loss
            #expect(p.isRunning, "with --reconnect the run waits for the server; exit status \(p.exitStatus().map(String.init) ?? "none"), stderr: \(p.stderrText)")
            if deviceLater {
                // The server is back, the device is not: the run keeps waiting, silently.
                try server.restartWithoutDevices()
                let early = p.readLines(until: { _ in true }, timeout: 2)
                #expect(early.lines.isEmpty, "nothing while the device is missing: \(early.lines)")
                #expect(p.isRunning)
            }
            let loadingAt = Date().timeIntervalSince1970
            if deviceLater { try server.loadDevices() } else { try server.restart() }
            // The gap line comes once the stream is back; only then can the new feed reach it.
            let waited = p.readLines(until: { $0.contains("\"gap\"") }, timeout: 15)
            #expect(waited.matched, "a gap line once the device is back")
            let gapLines = try parseLines(waited.lines)
            let gap = try #require(gapLines.last)
            #expect(gap.type == "gap")
            let startTs = try #require(gap.double("start_ts"))
            let endTs = try #require(gap.double("end_ts"))
            let seconds = try #require(gap.double("seconds"))
            #expect(startTs >= lostAt - 0.05 && startTs < lostAt + 1, "the gap starts at the loss (\(startTs - lostAt) s after the kill)")
            #expect(endTs >= loadingAt, "the gap lasts until the device is back (ends \(endTs - loadingAt) s after loading began)")
            #expect(endTs < loadingAt + 5)
            #expect(seconds > 0.4, "the server was down for at least half a second")
            #expect(abs(seconds - (endTs - startTs)) < 0.01)
            #expect(gapLines.dropLast().allSatisfy { $0.type != "frame" }, "no frames from another device meanwhile")

            lines += gapLines
            // The fed audio reaches the run only once its stream is on the feed source and the
            // source runs (PulseAudio's pipe source reads its FIFO only then).
            #expect(Wait.until(timeout: 5) { server.feedIsRecorded },
                    "the run's stream is back on \(server.feedSource): record streams on \(server.recordStreams())")
            lines += try Self.feed(after, to: p, after: lines, server: server)
            lines += try Self.terminate(p)
            let end = try #require(lines.last)
            #expect(end.type == "end")
            let pos = try #require(end.int("pos"))
            #expect(pos >= 96_000, "pos counts captured frames: both feeds (and on PipeWire silence)")
            #expect(end.int("recorded_frames") == pos)
            let frames = lines.filter { $0.type == "frame" }
            #expect(LiveSuite.positionProblems(frames, hop: 1600, endPos: pos) == [],
                    "positions run on across the gap without a jump")
            #expect(frames.first?.int("pos") == 1600 && frames.count == (pos + 1599) / 1600)

            let recorded = try decodeWithSox(file)
            #expect(fedAudioProblem(recorded, [before, after], server: server) == nil,
                    "both feeds, in order, nothing from another device")
            let w = try readWithPythonWave(file, expected: recorded)
            #expect(w.frames == pos && w.matchesExpectedPrefix)
        }

        @Test("--reconnect --events --exec-on source_lost,gap: the loss is an event line and runs its hook within 1 s, the return runs the gap hook")
        func sourceLostHook() throws {
            let server = try PulseServer.startPrivate()
            defer { server.stop() }
            let dir = try Live.tempDir("lost-hook")
            defer { Live.removeTree(dir) }
            let file = dir + "/x.wav"
            // Each hook appends its line type, event and the wall clock when it ran.
            let hook = "echo \"$PULSEMETER_TYPE ${PULSEMETER_EVENT-none} $(date +%s.%N)\" >> '\(dir)/hooks'"
            func ran() -> [[Substring]] {
                ((try? String(contentsOfFile: dir + "/hooks", encoding: .utf8)) ?? "").split(separator: "\n").map { $0.split(separator: " ") }
            }
            let (p, _) = try LiveSuite.startRecording(file, ["--reconnect", "--events", "--exec-on", "source_lost,gap", "--exec", hook],
                                                      server: server)
            defer { p.kill() }
            var lines = try Self.feed(TestSignal.make(frames: 48_000, seed: 46), to: p, after: [], server: server)

            let lostAt = Date().timeIntervalSince1970
            try server.kill9()
            let hooked = Wait.until(timeout: 5, interval: 0.01) { ran().count >= 1 }
            #expect(hooked, "the source_lost hook ran; stderr: \(p.stderrText)")
            let first = ran().first ?? []
            #expect(first.count == 3 && first[0] == "event" && first[1] == "source_lost", "hooks: \(ran())")
            let hookedAt = first.count == 3 ? Double(first[2]) ?? 0 : 0
            #expect(hookedAt - lostAt < 1, "the hook ran \(hookedAt - lostAt) s after the kill")
            let read = p.readLines(until: { $0.contains("\"source_lost\"") }, timeout: 5)
            #expect(read.matched, "a source_lost line at once")
            let before = lines + (try parseLines(read.lines))
            let lost = try #require(before.last)
            let lastFrame = before.last { $0.type == "frame" }?.int("pos") ?? -1
            #expect(lost.type == "event" && lost.string("event") == "source_lost")
            #expect((lost.int("pos") ?? -1) >= lastFrame, "pos: the last captured position, at or past the last frame's")
            #expect(!(lost.string("reason") ?? "").isEmpty, "a reason: \(lost.raw)")
            #expect(abs((lost.double("ts") ?? 0) - lostAt) < 1)
            #expect(!before.contains { $0.type == "gap" }, "no gap line before the source is back")
            lines = before

            let backAt = Date().timeIntervalSince1970
            try server.restart()
            let waited = p.readLines(until: { $0.contains("\"gap\"") }, timeout: 15)
            #expect(waited.matched, "a gap line once the server is back")
            let gapHooked = Wait.until(timeout: 5, interval: 0.01) { ran().count >= 2 }
            #expect(gapHooked)
            let second = ran().dropFirst().first ?? []
            #expect(second.count == 3 && second[0] == "gap", "hooks: \(ran())")
            #expect((second.count == 3 ? Double(second[2]) ?? 0 : 0) >= backAt, "the gap hook runs on the return")
            lines += try parseLines(waited.lines)
            lines += try Self.terminate(p)
            let end = try #require(lines.last)
            #expect(end.type == "end" && end.int("hooks_run") == 2 && end.int("hooks_dropped") == 0 && end.int("hooks_killed") == 0,
                    "end: \(end.raw)")
            #expect(ran().count == 2)
        }

        @Test("a server that never starts the stream (PipeWire without WirePlumber): exit 69 within 5 s, naming the session manager")
        func noSessionManager() throws {
            let server = try PulseServer.startPrivate()
            defer { server.stop() }
            let dir = try Live.tempDir("nosm")
            defer { Live.removeTree(dir) }
            let file = dir + "/x.wav"
            let tone = dir + "/tone.wav"
            try writeWav(TestSignal.make(frames: 24_000, seed: 50), to: tone)
            try server.stopSessionManager()
            // All four at once: on PipeWire each waits out the start timeout.
            let runs = try [["monitor", "-d", "vsink.monitor", "--duration", "0.5"], ["monitor", "--duration", "0.5"],
                            ["record", file, "-d", "vsink.monitor", "--duration", "0.5"], ["play", tone, "-d", "vsink"]].map { args in
                (args: args, t0: monotonic(), p: try pulsemeter(args + ["-f", "ndjson"], server: server))
            }
            defer { for r in runs { r.p.kill() } }
            for (args, t0, p) in runs {
                let out = p.readToEnd(timeout: 20)
                let status = p.wait(timeout: 5)
                let took = monotonic() - t0
                if server.kind == .pipewire {
                    #expect(status == 69, "\(args)")
                    #expect(took < 5, "\(args): detected within 5 s (took \(took) s)")
                    let line = LiveSuite.errorLine(p.stderrText)
                    #expect(line == "pulsemeter: connected to PulseAudio server \(server.address) but the stream never started; is a session manager (WirePlumber) running?",
                            "\(args): got \(p.stderrText)")
                    #expect(out.isEmpty, "\(args): nothing on stdout: \(out)")
                    #expect(!FileManager.default.fileExists(atPath: file), "no recording")
                } else {
                    // PulseAudio needs no session manager: the same runs start and finish.
                    #expect(status == 0, "\(args): stderr: \(p.stderrText)")
                    #expect(out.last.map { (try? JSONLine($0))?.type } == "end", "\(args)")
                }
            }
        }
    }
}
