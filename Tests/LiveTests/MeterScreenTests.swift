import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    /// The meter's scale, clip lamps, REC line, q and Esc, small terminals and --force
    /// on a real terminal (tmux) metering real audio.
    @Suite("the meter's scale, REC, q and Esc, small terminals, --force")
    struct MeterScreen {
        typealias Tmux = TerminalMeter.Tmux

        /// 20 s of a stereo square wave pinned at both 16-bit rails on the left channel and at
        /// half scale on the right.
        static func railTone() -> [Int16] {
            let frames = 20 * 48000
            var out = [Int16](repeating: 0, count: frames * 2)
            for i in 0..<frames {
                let up = (i / 24) % 2 == 0
                out[2 * i] = up ? Int16.max : Int16.min
                out[2 * i + 1] = up ? 16384 : -16384
            }
            return out
        }

        @Test("scale, spectrum axis, clip lamp and REC on screen; q finishes the recording, Esc quits monitor; 30x6 keeps the channel rows; tiny is one line")
        func meterScreen() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("screen")
            defer { Live.removeTree(dir) }
            let tmux = Tmux(socket: dir + "/tmux.sock")
            defer { _ = try? tmux("kill-server") }
            let player = try server.play(Self.railTone(), dir: dir)
            defer { player.kill() }

            let take = dir + "/take.wav"
            try tmux("new-session", "-d", "-s", "rec", "-x", "100", "-y", "30", "-c", dir,
                     try server.paneCommand("record take.wav -d vsink.monitor --bands 16", status: dir + "/rec.status"))
            try tmux("new-session", "-d", "-s", "mon", "-x", "30", "-y", "6",
                     try server.paneCommand("-d vsink.monitor --bands 16", status: dir + "/mon.status"))

            // The recording meter: REC, the file name and the time in the header; the clip lamp
            // on the left channel (at the rail), not on the right (half scale); the dB scale
            // under the bars; the spectrum's dB axis. Waited for whole: a frame is one write, but
            // the terminal may show its top rows (REC, CLIP) before the spectrum's below them.
            let rows = try tmux.waitFor("rec") { rows in
                rows.contains { $0.hasPrefix("L ") && $0.contains("CLIP") } && rows.first?.contains("REC") == true
                    && rows.contains { $0.hasPrefix("-60 ") } && rows.contains { $0.contains("Hz") }
            }
            let screen = rows.joined(separator: "\n")
            let header = try #require(rows.first)
            #expect(header.contains("REC") && header.contains("take.wav"), "header: \(header)")
            #expect(header.firstMatch(of: /REC .*take\.wav +[0-9]+:[0-9]{2}/) != nil, "the recorded time: \(header)")
            let left = try #require(rows.first { $0.hasPrefix("L ") }, "\(screen)")
            let right = try #require(rows.first { $0.hasPrefix("R ") }, "\(screen)")
            #expect(left.contains("CLIP"), "left channel at the rail: \(left)")
            #expect(!right.contains("CLIP"), "right channel below the rail: \(right)")
            let rightIndex = try #require(rows.firstIndex(of: right))
            let scale = rows[rightIndex + 1]
            for tick in ["-60", "-40", "-20", "-10", "-6", "0 dB"] {
                #expect(scale.contains(tick), "scale line lacks \(tick): \(scale)")
            }
            // Each tick sits under its level: -20 dB is two thirds of the way along the bar.
            // The label, then the bar: 100 columns less 2 before it and 28 after it.
            let barStart = 2, cells = 100 - 30
            let at20 = try #require(scale.range(of: "-20")?.lowerBound).utf16Offset(in: scale) + 1
            let expected20 = barStart + Int((Double(cells) * 40 / 60).rounded())
            #expect(abs(at20 - expected20) <= 2, "-20 at column \(at20), bar cell \(expected20): \(scale)")
            #expect(rows.contains { $0.hasPrefix("-30 ") } && rows.contains { $0.hasPrefix("-60 ") },
                    "the spectrum's dB axis: \(screen)")
            #expect(rows.contains { $0.contains("Hz") }, "the spectrum's frequency line")

            // 30x6: both channel rows, the spectrum gives way.
            let small = try tmux.waitFor("mon") { rows in rows.filter { $0.hasPrefix("L ") || $0.hasPrefix("R ") }.count == 2 }
            #expect(small.filter { $0.hasPrefix("L ") || $0.hasPrefix("R ") }.count == 2, "30x6: \(small)")
            #expect(small.count == 6 && small.allSatisfy { $0.count <= 30 })
            // Below the minimum: one compact line with both channels' levels.
            try tmux("resize-window", "-t", "mon", "-x", "24", "-y", "2")
            let tiny = try tmux.waitFor("mon") { rows in
                rows.count == 2 && rows[0].firstMatch(of: /L.*-?[0-9]+\.[0-9].*R.*-?[0-9]+\.[0-9]/) != nil
            }
            #expect(tiny.count == 2 && tiny[0].firstMatch(of: /L.*-?[0-9]+\.[0-9].*R.*-?[0-9]+\.[0-9]/) != nil,
                    "compact line: \(tiny)")
            #expect(tiny[1].trimmingCharacters(in: .whitespaces).isEmpty)

            // q ends the recording cleanly: exit 0, terminal restored, a valid file.
            try tmux("send-keys", "-t", "rec", "q")
            #expect(Wait.statusFile(dir + "/rec.status", timeout: 8) == "0", "record: exit status after q")
            let after = try tmux.flags("rec")
            #expect(after.cursor == "1" && after.alternate == "0", "terminal restored after q")
            let summary = try tmux.rows("rec", join: true)
            #expect(summary.contains { $0.contains("recorded") && $0.contains("take.wav") }, "\(summary.filter { !$0.isEmpty })")
            // Every captured frame is in the file: as many as the summary says were recorded
            // (q may come after the first 100 ms fragment alone on a loaded machine).
            let said = summary.lazy.compactMap { $0.firstMatch(of: /recorded ([0-9]+) frames/).flatMap { Int($0.output.1) } }.first
            let recorded = try soxFrames(take)
            #expect(said != nil && recorded == said && recorded > 0, "the file holds \(recorded) frames, the summary said \(said ?? -1)")
            // Esc ends monitor the same way.
            try tmux("send-keys", "-t", "mon", "Escape")
            #expect(Wait.statusFile(dir + "/mon.status", timeout: 8) == "0", "monitor: exit status after Esc")
            #expect(try tmux.flags("mon").alternate == "0")
        }

        @Test("REC and the recorded time stay in the header at 40 and 20 columns with a long device name; the compact line marks recording with ●")
        func recWinsOverALongDeviceName() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("narrow")
            defer { Live.removeTree(dir) }
            let sink = "alsa_output.pci-0000_00_1f.3.analog-stereo"
            let load = try run(["pactl", "load-module", "module-null-sink", "sink_name=\(sink)", "rate=48000", "channels=2"],
                               env: server.environment)
            #expect(load.status == 0, "\(load.stderr)")
            let module = load.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            defer { _ = try? run(["pactl", "unload-module", module], env: server.environment) }
            #expect(try Wait.until(timeout: 5, interval: 0.1) {
                try run(["pactl", "list", "short", "sources"], env: server.environment).stdout.contains(sink + ".monitor")
            }, "the sink's monitor never appeared")
            let player = try server.play(Self.railTone(), into: sink, dir: dir)
            defer { player.kill() }
            let tmux = Tmux(socket: dir + "/tmux.sock")
            defer { _ = try? tmux("kill-server") }
            try tmux("new-session", "-d", "-s", "rec", "-x", "40", "-y", "12", "-c", dir,
                     try server.paneCommand("record take.wav -d \(sink).monitor", status: dir + "/rec.status"))

            // 40 columns: the name (50 characters) gives way; REC, the file and its time stay.
            let rec = /REC (take\.wav )?[0-9]+:[0-9]{2}/
            let at40 = try tmux.waitFor("rec") { rows in rows.first?.firstMatch(of: rec) != nil && rows.contains { $0.hasPrefix("L ") } }
            let head40 = try #require(at40.first)
            #expect(head40.firstMatch(of: /REC take\.wav [0-9]+:[0-9]{2}$/) != nil, "40 columns: \(head40)")
            #expect(!head40.contains(sink + ".monitor") && head40.count <= 40, "\(head40)")
            #expect(at40.contains { $0.hasPrefix("L ") } && at40.contains { $0.hasPrefix("R ") }, "channel labels: \(at40)")
            // 20 columns, the smallest full meter: still REC and the time.
            try tmux("resize-window", "-t", "rec", "-x", "20", "-y", "12")
            let at20 = try tmux.waitFor("rec") { rows in (rows.first?.count ?? 99) <= 20 && rows.first?.firstMatch(of: rec) != nil }
            #expect(at20.first?.firstMatch(of: rec) != nil, "20 columns: \(at20)")
            #expect(at20.contains { $0.hasPrefix("L ") } && at20.contains { $0.hasPrefix("R ") }, "channel labels: \(at20)")
            // Below it: one compact line, the recording mark first, the clip lamp (the left
            // channel is at the rail) after its label, both labels kept.
            try tmux("resize-window", "-t", "rec", "-x", "19", "-y", "4")
            let compact = try tmux.waitFor("rec") { rows in rows.first?.hasPrefix("● ") == true && rows.first!.contains("R") }
            let line = try #require(compact.first)
            #expect(line.hasPrefix("● ") && line.contains("L!") && line.contains("R"), "compact: \(line)")
            try tmux("send-keys", "-t", "rec", "q")
            #expect(Wait.statusFile(dir + "/rec.status", timeout: 8) == "0", "record: exit status after q")
            #expect(try soxFrames(dir + "/take.wav") > 0)
        }

        @Test("--force replaces an existing recording; without it the file is left as it is (exit 73)")
        func forceReplaces() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("force")
            defer { Live.removeTree(dir) }
            let file = dir + "/take1.wav"
            try writeWav([Int16](repeating: 1000, count: 48000 * 2), to: file)
            let before = try Data(contentsOf: URL(fileURLWithPath: file))
            let refused = try pulsemeter(["record", file, "-d", "vsink.monitor", "--duration", "0.2", "-f", "ndjson"], server: server)
            _ = refused.readToEnd(timeout: 10)
            #expect(refused.wait(timeout: 10) == 73)
            #expect(refused.stderrText.contains("take1.wav exists; use --force to replace it"), "\(refused.stderrText)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "the file is untouched")
            let forced = try pulsemeter(["record", file, "-d", "vsink.monitor", "--duration", "0.3", "--force", "-f", "ndjson"], server: server)
            let lines = try parseLines(forced.readToEnd(timeout: 15))
            #expect(forced.wait(timeout: 10) == 0, "\(forced.stderrText)")
            #expect(lines.last?.int("recorded_frames") == 14400)
            #expect(try soxFrames(file) == 14400, "replaced by the new recording")
        }
    }
}
