import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// Issue 4: the server going away. Each test kills its own private server, never the shared one.
    @Suite("losing the server")
    struct ServerLoss {
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
            // An m4a alongside (issue 14): ffmpeg is given the end of its input and waited for.
            let m4a = dir + "/x.m4a"
            let (q, _) = try LiveSuite.startRecording(m4a, [], server: server)
            defer { q.kill() }
            let feeder = FifoFeeder(path: server.fifo, samples: input, speed: nil)
            feeder.start()
            defer { feeder.stopAndJoin() }
            let (before, reached) = try LiveSuite.readUntil(pos: frames, p, timeout: 15)
            #expect(reached, "the fed second should be metered before the server is killed")
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
            #expect(end.int("pos") == frames)
            #expect(end.int("recorded_frames") == frames)

            let w = try readWithPythonWave(file, expected: input)
            #expect(w.frames == frames, "every frame captured before the loss is in the file")
            #expect(w.matchesExpectedPrefix)
            #expect(sampleMismatch(try decodeWithSox(file), input) == nil)

            #expect(q.wait(timeout: 5) == 74)
            let qEnd = try #require(try parseLines(q.readToEnd(timeout: 5)).last)
            #expect(qEnd.type == "end" && qEnd.int("recorded_frames") == frames, "ffmpeg acknowledged every frame: \(qEnd.raw)")
            let aac = try decodeWithFFmpeg(m4a)
            #expect(aac.status == 0 && abs(aac.samples.count / 2 - frames) <= 2048, "the m4a holds the second: \(aac.samples.count / 2) frames, \(aac.stderr)")
        }

        @Test("--reconnect: the run survives a server restart, marks the gap, and records both sides")
        func reconnect() throws {
            let server = try PulseServer.startPrivate()
            defer { server.stop() }
            let dir = try Live.tempDir("recon")
            defer { Live.removeTree(dir) }
            let before = TestSignal.make(frames: 48_000, seed: 40)
            let after = TestSignal.make(frames: 48_000, seed: 41)
            let file = dir + "/x.wav"
            let (p, _) = try LiveSuite.startRecording(file, ["--reconnect"], server: server)
            let first = FifoFeeder(path: server.fifo, samples: before, speed: nil)
            first.start()
            defer { first.stopAndJoin() }
            var lines = try LiveSuite.readUntil(pos: 48_000, p, timeout: 15)
            #expect(lines.reached)
            first.stopAndJoin()

            try server.kill9()
            usleep(500_000)
            #expect(p.isRunning, "with --reconnect the run waits for the server")
            try server.restart()
            // The gap line comes once the stream is back; only then can the new FIFO feed it.
            let waited = p.readLines(until: { $0.contains("\"gap\"") }, timeout: 15)
            #expect(waited.matched, "a gap line after the server came back")
            let gapLines = try parseLines(waited.lines)
            let gap = try #require(gapLines.last)
            #expect(gap.type == "gap")
            let startTs = try #require(gap.double("start_ts"))
            let endTs = try #require(gap.double("end_ts"))
            let seconds = try #require(gap.double("seconds"))
            #expect(startTs < endTs)
            #expect(seconds > 0.4, "the server was down for at least half a second")
            #expect(abs(seconds - (endTs - startTs)) < 0.01)

            let second = FifoFeeder(path: server.fifo, samples: after, speed: nil)
            second.start()
            defer { second.stopAndJoin() }
            let more = try LiveSuite.readUntil(pos: 96_000, p, timeout: 15)
            #expect(more.reached, "frames after the outage are metered")
            p.signal(SIGTERM)
            let rest = try parseLines(p.readToEnd(timeout: 10))
            #expect(p.wait(timeout: 5) == 0, "SIGTERM ends a --reconnect run with 0; stderr: \(p.stderrText)")
            lines.lines += gapLines + more.lines + rest
            let end = try #require(lines.lines.last)
            #expect(end.type == "end")
            #expect(end.int("pos") == 96_000, "pos counts captured frames only")
            #expect(end.int("recorded_frames") == 96_000)
            let frames = lines.lines.filter { $0.type == "frame" }
            #expect(frames.map { $0.int("pos") ?? -1 } == Array(stride(from: 1600, through: 96_000, by: 1600)),
                    "positions run on across the gap without a jump")

            let recorded = try decodeWithSox(file)
            #expect(sampleMismatch(recorded, before + after) == nil, "both feeds, in order, nothing else")
            let w = try readWithPythonWave(file, expected: before + after)
            #expect(w.frames == 96_000 && w.matchesExpectedPrefix)
        }
    }
}
