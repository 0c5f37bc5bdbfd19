import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    /// analyze on a terminal shows a one-line progress on stderr, replaced by the summary at the
    /// end (no PulseAudio needed; here for the tmux helpers).
    @Suite("analyze's progress line under tmux", .enabled(if: Live.kind == .pulseaudio, "no sound server involved: run once"))
    struct Progress {
        typealias Tmux = TerminalMeter.Tmux

        /// Feeds `file` into `fifo` 0.5 s of 48 kHz stereo s16 at a time, every 0.2 s (the
        /// pacing is the input: a source slower than the analysis).
        static func slowFeeder(_ file: String, into fifo: String) -> String {
            "python3 -c 'import sys,time\nd=open(sys.argv[1],\"rb\").read()\nfor i in range(0,len(d),96000):\n sys.stdout.buffer.write(d[i:i+96000]); sys.stdout.flush(); time.sleep(0.2)' '\(file)' > '\(fifo)'"
        }

        @Test("stdin: audio read and speed, then the summary in its place; a file: percent and ETA")
        func progressUnderTmux() throws {
            let bin = try Live.bin()
            let dir = try Live.tempDir("progress")
            defer { Live.removeTree(dir) }
            let tmux = Tmux(socket: dir + "/tmux.sock")
            defer { _ = try? tmux("kill-server") }
            // 6 s of a -12 dBFS tone.
            let frames = 6 * 48000
            var samples = [Int16](repeating: 0, count: frames * 2)
            for i in 0..<frames {
                let v = Int16(0.25 * 32767 * sin(2 * Double.pi * 440 * Double(i) / 48000))
                samples[2 * i] = v
                samples[2 * i + 1] = v
            }
            try writeWav(samples, to: dir + "/slow.wav")
            try writeRaw(samples, to: dir + "/slow.raw")
            mkfifo(dir + "/in.fifo", 0o600)
            mkfifo(dir + "/wav.fifo", 0o600)

            try tmux("new-session", "-d", "-s", "stdin", "-x", "90", "-y", "20",
                     Self.slowFeeder(dir + "/slow.raw", into: dir + "/in.fifo") + " & "
                        + "env LANG=C.UTF-8 NO_COLOR=1 '\(bin)' analyze - --raw s16le -r 48000 -c 2 < '\(dir)/in.fifo'; "
                        + "echo $? > '\(dir)/stdin.status'; exec sleep 600")
            try tmux("new-session", "-d", "-s", "file", "-x", "90", "-y", "20",
                     Self.slowFeeder(dir + "/slow.wav", into: dir + "/wav.fifo") + " & "
                        + "env LANG=C.UTF-8 NO_COLOR=1 '\(bin)' analyze '\(dir)/wav.fifo'; "
                        + "echo $? > '\(dir)/file.status'; exec sleep 600")

            let stdinProgress = /^stdin  0:0[0-9] read  [0-9]+\.[0-9]x\s*$/
            let rows = try tmux.waitFor("stdin", timeout: 10) { $0.contains { $0.firstMatch(of: stdinProgress) != nil && !$0.hasPrefix("stdin  0:00") } }
            #expect(rows.contains { $0.firstMatch(of: stdinProgress) != nil }, "the progress line: \(rows.filter { !$0.isEmpty })")
            #expect(rows.filter { !$0.isEmpty }.count == 1, "one line, redrawn in place: \(rows.filter { !$0.isEmpty })")

            let fileProgress = /wav\.fifo  0:0[0-9] \/ 0:06  [0-9]+\.[0-9]%  [0-9]+\.[0-9]x  ETA 0:0[0-9]\s*$/
            let fileRows = try tmux.waitFor("file", timeout: 10) { $0.contains { $0.firstMatch(of: fileProgress) != nil } }
            #expect(fileRows.contains { $0.firstMatch(of: fileProgress) != nil }, "percent and ETA for a file: \(fileRows.filter { !$0.isEmpty })")

            for (name, label) in [("stdin", "stdin"), ("file", dir + "/wav.fifo")] {
                let status = dir + "/\(name).status"
                #expect(Wait.statusFile(status, timeout: 15) == "0")
                let screen = try tmux.rows(name, join: true).filter { !$0.isEmpty }
                // The summary took the progress line's place: it starts the screen, nothing of
                // the progress is left.
                #expect(screen.first?.hasPrefix(label + "  48000 Hz  2 ch  0:06") == true, "\(name): \(screen)")
                #expect(!screen.contains { $0.contains(" read ") || $0.contains("ETA") || $0.contains("%") }, "\(name): \(screen)")
            }
        }
    }
}
