import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    /// Job control: Ctrl-Z gives the terminal back and stops, fg takes it again; what the
    /// server could not hold while the process was stopped is a gap line, never a splice.
    @Suite("job control")
    struct JobControl {
        typealias Tmux = TerminalMeter.Tmux

        /// An interactive shell in a tmux pane (job control needs one), `columns` x `rows`.
        static func shell(_ tmux: Tmux, _ name: String, columns: Int = 100, rows: Int = 20) throws {
            try tmux("new-session", "-d", "-s", name, "-x", String(columns), "-y", String(rows),
                     "env PS1='$ ' bash --norc --noprofile -i")
        }

        /// The exit status of the pane shell's last command (`echo $?` into a file in `dir`).
        static func lastStatus(_ tmux: Tmux, _ name: String, dir: String) throws -> String? {
            let status = dir + "/status"
            try tmux("send-keys", "-t", name, "echo $? > '\(status)'", "Enter")
            return Wait.statusFile(status, timeout: 5)
        }

        /// The recorded time on the meter's head line ("REC FILE M:SS"), in seconds.
        static func recordedSeconds(_ rows: [String]) -> Int? {
            guard let head = rows.first, let m = head.firstMatch(of: /REC \S+ (\d+):(\d\d)/) else { return nil }
            return Int(m.output.1)! * 60 + Int(m.output.2)!
        }

        @Test("record under tmux: Ctrl-Z and fg twice (once by way of bg); the shell gets its screen, the meter comes back and goes on, q quits, the file is the feed bit for bit")
        func stopAndContinueTwice() throws {
            let server = try Live.server()
            let bin = try Live.bin()
            let dir = try Live.tempDir("jobctl")
            defer { Live.removeTree(dir) }
            let tmux = Tmux(socket: dir + "/tmux.sock")
            defer { _ = try? tmux("kill-server") }
            server.drainFeed()
            let input = TestSignal.make(frames: 30 * 48000, seed: 71)
            try Self.shell(tmux, "jc")
            let file = dir + "/t.wav"
            try tmux("send-keys", "-t", "jc",
                     "env PULSE_SERVER='\(server.address)' LANG=C.UTF-8 '\(bin)' record '\(file)' -d \(server.feedSource)", "Enter")
            var rows = try tmux.waitFor("jc") { rows, f in f.alternate == "1" && rows.first?.contains("REC") == true }
            #expect(rows.first?.contains("REC \(file)") == true, "the meter is up: \(rows.first ?? "")")
            let feeder = server.startFeeding(input, speed: 1)
            defer { server.stopFeeding(feeder) }
            var reached = 0
            for round in 1...2 {
                rows = try tmux.waitFor("jc") { rows, _ in (Self.recordedSeconds(rows) ?? 0) >= reached + 1 }
                let before = try #require(Self.recordedSeconds(rows), "round \(round): no recorded time on \(rows.first ?? "")")
                try tmux("send-keys", "-t", "jc", "C-z")
                rows = try tmux.waitFor("jc") { rows, f in
                    f.alternate == "0" && f.cursor == "1" && rows.contains { $0.contains("Stopped") }
                }
                let flags = try tmux.flags("jc")
                #expect(flags.alternate == "0", "round \(round): stopped, the main screen is back")
                #expect(flags.cursor == "1", "round \(round): stopped, the cursor is visible")
                #expect(rows.contains { $0.contains("Stopped") }, "round \(round): the shell says the job stopped: \(rows)")
                #expect(!rows.contains { $0.hasPrefix("L ") || $0.hasPrefix("R ") }, "no meter rows over the shell")
                Wait.passing(seconds: 1)  // the input: one second stopped, which the server holds
                if round == 2 {
                    // bg: it runs on in the background, drawing nothing over the shell.
                    try tmux("send-keys", "-t", "jc", "bg", "Enter")
                    rows = try tmux.waitFor("jc") { rows, _ in rows.contains { $0.hasSuffix("&") } }
                    Wait.passing(seconds: 1)  // a second in the background: time to draw, were it to
                    rows = try tmux.rows("jc")
                    #expect(try tmux.flags("jc").alternate == "0", "in the background the shell keeps its screen")
                    #expect(!rows.contains { $0.hasPrefix("L ") || $0.hasPrefix("R ") }, "nothing drawn in the background: \(rows)")
                }
                try tmux("send-keys", "-t", "jc", "fg", "Enter")
                rows = try tmux.waitFor("jc") { rows, f in
                    f.alternate == "1" && (Self.recordedSeconds(rows) ?? 0) >= before + 2
                }
                #expect(try tmux.flags("jc").alternate == "1", "round \(round): fg takes the screen again")
                let after = Self.recordedSeconds(rows) ?? 0
                #expect(after >= before + 2, "round \(round): the clock goes on after fg (\(before) s, then \(after) s)")
                #expect(rows.contains { $0.hasPrefix("L ") } && rows.contains { $0.hasPrefix("R ") }, "the meter is redrawn: \(rows)")
                reached = after
            }
            try tmux("send-keys", "-t", "jc", "q")  // raw mode again: q acts without Enter
            rows = try tmux.waitFor("jc") { rows, f in f.alternate == "0" && rows.contains { $0.contains("recorded") } }
            let summary = rows.joined()
            let recorded = try #require(summary.firstMatch(of: /recorded (\d+) frames/).map { Int($0.output.1)! },
                                        "no summary after q: \(rows)")
            #expect(try Self.lastStatus(tmux, "jc", dir: dir) == "0", "q after two stops: exit 0")
            let samples = try decodeWithSox(file)
            #expect(samples.count / 2 == recorded, "the summary counts the file's frames")
            #expect(recorded >= 4 * 48000)
            #expect(fedAudioProblem(samples, [input], server: server, complete: false) == nil,
                    "the file must be the feed, bit for bit, across both stops")
        }

        @Test("stopped longer than the server holds: a gap line (reason stopped) at its position; captured plus lost is the time that passed; the file holds the captured frames")
        func lossWhileStopped() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("jobgap")
            defer { Live.removeTree(dir) }
            // 96 kHz, 6 channels: the server's record buffer (a fixed number of bytes) holds a
            // few seconds at most, so a 6 s stop loses audio on both servers.
            let file = dir + "/g.wav"
            let (p, _) = try LiveSuite.startRecording(file, ["-r", "96000", "-c", "6"], server: server)
            let feeder = server.startFeeding(TestSignal.make(frames: 30 * 48000, seed: 72), speed: 1)
            defer { server.stopFeeding(feeder) }
            var (lines, reached) = try LiveSuite.readUntil(pos: 96000 * 3 / 2, p, timeout: 15)
            #expect(reached)
            p.signal(SIGSTOP)
            Wait.passing(seconds: 6)  // the input: a 6 s stop, longer than the server holds
            p.signal(SIGCONT)
            let continued = monotonic()
            while monotonic() - continued < 3, let line = p.readLine(timeout: 3) { lines.append(try JSONLine(line)) }
            p.signal(SIGINT)
            lines += try parseLines(p.readToEnd(timeout: 10))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")

            let gaps = lines.filter { $0.type == "gap" }
            #expect(gaps.count == 1, "one gap line: \(gaps.map(\.raw))")
            let gap = try #require(gaps.first)
            #expect(gap.string("reason") == "stopped")
            let seconds = try #require(gap.double("seconds"))
            #expect(seconds > 0.5 && seconds < 6.3, "lost \(seconds) s of a 6 s stop")
            let frames = lines.filter { $0.type == "frame" }
            let first = try #require(frames.first { ($0.double("t") ?? 0) >= 1 })
            let last = try #require(frames.last)
            let wall = try #require(last.double("ts")) - first.double("ts")!
            let audio = try #require(last.double("t")) - first.double("t")!
            #expect(abs(wall - audio - seconds) < 0.3,
                    "captured (\(audio) s) plus lost (\(seconds) s) is the time that passed (\(wall) s)")
            let gapPos = try #require(gap.int("pos"))
            #expect(gapPos > first.int("pos")! && gapPos < last.int("pos")!)
            let end = try #require(lines.last)
            #expect(end.type == "end")
            let recorded = try #require(end.int("recorded_frames"))
            #expect(end.int("pos") == recorded, "pos counts captured frames only")
            #expect(try soxFrames(file) == recorded, "the file holds the captured frames, no silence spliced in")
        }

        @Test("play under tmux: Ctrl-Z silences the sink and gives the shell its screen; fg plays on from where it was; q quits")
        func playStopAndContinue() throws {
            let server = try Live.server()
            let bin = try Live.bin()
            let dir = try Live.tempDir("jobplay")
            defer { Live.removeTree(dir) }
            let file = dir + "/voice.wav"
            try writeWav(Play.tone(seconds: 8), to: file)
            let tmux = Tmux(socket: dir + "/tmux.sock")
            defer { _ = try? tmux("kill-server") }
            let monitor = try pulsemeter(["monitor", "-d", "vsink.monitor", "-f", "ndjson"], server: server)
            defer { monitor.kill() }
            _ = monitor.readLine(timeout: 10)
            try Self.shell(tmux, "jp", columns: 80, rows: 12)
            try tmux("send-keys", "-t", "jp", "env PULSE_SERVER='\(server.address)' LANG=C.UTF-8 '\(bin)' play '\(file)' -d vsink", "Enter")
            func elapsed(_ rows: [String]) -> Int? {
                rows.lazy.compactMap { $0.firstMatch(of: /([0-9]+):([0-9]{2}) \/ 0:08/) }
                    .map { Int($0.output.1)! * 60 + Int($0.output.2)! }.first
            }
            var rows = try tmux.waitFor("jp") { rows, _ in (elapsed(rows) ?? 0) >= 1 }
            let before = try #require(elapsed(rows), "the clock runs: \(rows)")
            try tmux("send-keys", "-t", "jp", "C-z")
            rows = try tmux.waitFor("jp") { rows, f in f.alternate == "0" && rows.contains { $0.contains("Stopped") } }
            #expect(try tmux.flags("jp").alternate == "0" && rows.contains { $0.contains("Stopped") }, "stopped: \(rows)")
            let stoppedAt = Date().timeIntervalSince1970
            Wait.passing(seconds: 2)  // the input: two seconds stopped, which the sink must hear as silence
            let continuedAt = Date().timeIntervalSince1970
            try tmux("send-keys", "-t", "jp", "fg", "Enter")
            rows = try tmux.waitFor("jp") { rows, f in f.alternate == "1" && (elapsed(rows) ?? 0) >= before + 1 }
            let after = elapsed(rows) ?? 0
            #expect(after >= before + 1 && after <= before + 2, "fg plays on from where it stopped (\(before) s, then \(after) s)")
            let resumedAt = Date().timeIntervalSince1970
            rows = try tmux.waitFor("jp") { rows, _ in (elapsed(rows) ?? 0) >= after + 1 }  // a second more played
            try tmux("send-keys", "-t", "jp", "q")
            rows = try tmux.waitFor("jp") { _, f in f.alternate == "0" }
            #expect(try Self.lastStatus(tmux, "jp", dir: dir) == "0", "q after a stop: exit 0")
            monitor.signal(SIGINT)
            let heard = Play.levels(try parseLines(monitor.readToEnd(timeout: 10)))
            let whileStopped = heard.filter { $0.ts > stoppedAt + 0.5 && $0.ts < continuedAt }
            #expect(whileStopped.count > 20)
            #expect(whileStopped.allSatisfy { $0.db < -60 }, "silent while stopped: \(whileStopped.map(\.db).max() ?? 0) dBFS")
            let playingAgain = heard.filter { $0.ts > resumedAt && $0.ts < resumedAt + 0.8 }
            #expect(playingAgain.contains { abs($0.db - -12) < 0.5 }, "the tone again after fg")
        }

        @Test("the terminal closes during record (the tmux session killed: SIGHUP, then writes fail): exit 0, nothing on stderr, every frame captured until then in the file")
        func terminalClosed() throws {
            let server = try Live.server()
            let bin = try Live.bin()
            let dir = try Live.tempDir("jobhup")
            defer { Live.removeTree(dir) }
            let tmux = Tmux(socket: dir + "/tmux.sock")
            defer { _ = try? tmux("kill-server") }
            server.drainFeed()
            let input = TestSignal.make(frames: 20 * 48000, seed: 73)
            let file = dir + "/h.wav", status = dir + "/status"
            // The pane's shell ignores SIGHUP so that it outlives the terminal to write the status.
            try tmux("new-session", "-d", "-s", "hup", "-x", "100", "-y", "20",
                     "trap '' HUP; env PULSE_SERVER='\(server.address)' LANG=C.UTF-8 '\(bin)' record '\(file)' -d \(server.feedSource) "
                     + "2> '\(dir)/stderr'; echo $? > '\(status)'")
            var rows = try tmux.waitFor("hup") { rows, f in f.alternate == "1" && rows.first?.contains("REC") == true }
            #expect(rows.first?.contains("REC") == true)
            let feeder = server.startFeeding(input, speed: 1)
            defer { server.stopFeeding(feeder) }
            rows = try tmux.waitFor("hup") { rows, _ in (Self.recordedSeconds(rows) ?? 0) >= 2 }
            let shown = try #require(Self.recordedSeconds(rows))
            try tmux("kill-server")
            #expect(Wait.statusFile(status, timeout: 10) == "0", "exit 0 after the terminal closed")
            #expect((try? String(contentsOfFile: dir + "/stderr", encoding: .utf8)) == "", "nothing on stderr")
            let samples = try decodeWithSox(file)
            #expect(samples.count / 2 >= shown * 48000, "the file holds at least what the meter showed (\(shown) s)")
            #expect(fedAudioProblem(samples, [input], server: server, complete: false) == nil)
        }
    }
}
