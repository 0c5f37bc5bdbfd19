import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    /// The ANSI meter on a real terminal (tmux), metering real audio played into vsink.
    @Suite("the ANSI meter under tmux")
    struct TerminalMeter {
        /// Colour parameters in SGR sequences (30-38, 40-48, 90-97, 100-107); 39/49 (default
        /// colours), which tmux emits on its own, do not count.
        static func colourCodes(_ text: String) -> [String] {
            var found: [String] = []
            for m in text.matches(of: /\x1B\[([0-9;:]*)m/) {
                for p in m.output.1.split(separator: ";") {
                    guard let v = Int(p.split(separator: ":").first ?? "") else { continue }
                    if (30...38).contains(v) || (40...48).contains(v) || (90...97).contains(v) || (100...107).contains(v) {
                        found.append(String(m.output.0.dropFirst()))
                    }
                }
            }
            return found
        }

        /// The channel rows ("L …", "R …") and the rms levels they show.
        static func channelRows(_ rows: [String]) -> [String] {
            rows.filter { $0.hasPrefix("L ") || $0.hasPrefix("R ") }
        }

        static func levels(_ rows: [String]) -> [Double] {
            channelRows(rows).compactMap { row in
                row.firstMatch(of: /(-?[0-9]+\.[0-9]) dB/).flatMap { Double($0.output.1) }
            }
        }

        /// 20 s of stereo tone whose level steps every 0.2 s between -6 and -36 dBFS.
        static func steppedTone() -> [Int16] {
            let frames = 20 * 48000
            var out = [Int16](repeating: 0, count: frames * 2)
            let steps = [-6.0, -18.0, -30.0, -12.0, -36.0, -24.0]
            for i in 0..<frames {
                let db = steps[(i / 9600) % steps.count]
                let a = pow(10, db / 20) * 32767
                let v = Int16(a * sin(2 * Double.pi * 440 * Double(i) / 48000))
                out[2 * i] = v
                out[2 * i + 1] = v
            }
            return out
        }

        /// The outage is drawn from the session's idle calls, which every wrapper passes on: with
        /// --exec the meter sits behind the hook sink (before, the head line stayed as it was).
        @Test("--reconnect --exec on a terminal: the head line says RECONNECTING while the server is gone, and stops once it is back")
        func outageShownBehindHooks() throws {
            let server = try PulseServer.startPrivate()
            defer { server.stop() }
            let dir = try Live.tempDir("tmux-outage")
            defer { Live.removeTree(dir) }
            let tmux = Tmux(socket: dir + "/tmux.sock")
            defer { _ = try? tmux("kill-server") }
            try tmux("new-session", "-d", "-s", "lost", "-x", "100", "-y", "20", try server.paneCommand(
                "-d vsink.monitor --reconnect --exec-on gap --exec true", status: dir + "/status"))
            try tmux.waitFor("lost") { rows in Self.levels(rows).count == 2 }
            try server.kill9()
            let lost = try tmux.waitFor("lost") { $0.first?.contains("RECONNECTING") == true }
            #expect(lost.first?.contains("RECONNECTING: source lost") == true, "\(lost.first ?? "")")
            try server.restart()
            let back = try tmux.waitFor("lost", timeout: 15) { $0.first.map { !$0.contains("RECONNECTING") } == true }
            #expect(back.first?.contains("vsink.monitor") == true && back.first?.contains("RECONNECTING") == false,
                    "\(back.first ?? "")")
        }

        @Test("redraws in place, fits and follows the terminal, honours NO_COLOR, restores the terminal on Ctrl-C")
        func meterInTmux() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("tmux")
            defer { Live.removeTree(dir) }
            let tmux = Tmux(socket: dir + "/tmux.sock")
            defer { _ = try? tmux("kill-server") }

            let player = try server.play(Self.steppedTone(), dir: dir)
            defer { player.kill() }

            func command(noColor: Bool, status: String) throws -> String {
                try server.paneCommand("-d vsink.monitor --bands 16", status: status, env: noColor ? "NO_COLOR=1 " : "")
            }
            try tmux("new-session", "-d", "-s", "color", "-x", "100", "-y", "30",
                     try command(noColor: false, status: dir + "/color.status"))
            try tmux("new-session", "-d", "-s", "plain", "-x", "100", "-y", "30",
                     try command(noColor: true, status: dir + "/plain.status"))

            // Wait for both meters to draw with real levels.
            let first = try tmux.waitFor("color") { rows in Self.levels(rows).contains { $0 > -60 } }
            #expect(Self.levels(first).contains { $0 > -60 }, "the meter shows the tone: \(first.joined(separator: "\n"))")
            try tmux.waitFor("plain") { rows in Self.levels(rows).count == 2 }

            // In place: same layout, the header on the first row, nothing wrapped, within the pane.
            #expect(first.count == 30)
            #expect(first[0].hasPrefix("vsink.monitor"), "header on the first row: \(first[0])")
            #expect(first.filter { $0.hasPrefix("vsink.monitor") }.count == 1)
            #expect(Self.channelRows(first).count == 2)
            #expect(first.map(\.count).max() ?? 0 <= 100)
            #expect(first.map(\.count).max() ?? 0 >= 85, "the bars use the terminal's width")
            #expect(try tmux.rows("color", join: true).count == first.count, "no row wraps")
            let running = try tmux.flags("color")
            #expect(running.cursor == "0" && running.alternate == "1", "cursor hidden on the alternate screen while running")

            let second = try tmux.waitFor("color") { rows in rows.first.map { $0.hasPrefix("vsink.monitor") && $0 != first[0] } == true }
            #expect(second != first, "the meter redraws")
            #expect(second[0].hasPrefix("vsink.monitor") && second[0] != first[0], "the clock moves: \(first[0]) -> \(second[0])")
            #expect(second.filter { $0.hasPrefix("vsink.monitor") }.count == 1, "no scrolling")
            #expect(Self.channelRows(second).count == 2)
            #expect(try tmux.flags("color").alternate == "1")

            // Colour zones, and none with NO_COLOR.
            let colourScreen = try tmux.rows("color", escapes: true).joined(separator: "\n")
            #expect(!Self.colourCodes(colourScreen).isEmpty, "colour zones without NO_COLOR")
            let plainScreen = try tmux.rows("plain", escapes: true).joined(separator: "\n")
            #expect(Self.colourCodes(plainScreen).isEmpty, "NO_COLOR=1: no colour, found \(Self.colourCodes(plainScreen).prefix(5))")
            #expect(Self.levels(try tmux.rows("plain")).count == 2, "the NO_COLOR meter still draws its bars")

            // Resize: the meter follows and fits the new width (readouts at the right end intact),
            // and erases the screen whole first: rows a frame in flight wrapped at the old width
            // stay marked as wrapped until erased so (the rows count of `join: true` checks it,
            // the pane's output copied from here on shows the erase).
            let piped = dir + "/color.out"
            func pipedBytes() -> Data { FileManager.default.contents(atPath: piped) ?? Data() }
            try tmux("pipe-pane", "-t", "color", "cat > '\(piped)'")
            #expect(Wait.until(timeout: 5) { !pipedBytes().isEmpty }, "pipe-pane copies the meter's output")
            try tmux("resize-window", "-t", "color", "-x", "60", "-y", "20")
            let narrow = try tmux.waitFor("color", timeout: 5) { rows in
                let ch = Self.channelRows(rows)
                return ch.count == 2 && ch.allSatisfy { $0.contains("pk") } && rows.count == 20
            }
            #expect(narrow.count == 20)
            #expect(narrow[0].hasPrefix("vsink.monitor"))
            let bars = Self.channelRows(narrow)
            #expect(bars.count == 2)
            #expect(bars.allSatisfy { $0.firstMatch(of: /pk +-?[0-9]+\.[0-9]\s*$/) != nil },
                    "each channel row ends with its peak readout: \(bars)")
            #expect(narrow.map(\.count).max() ?? 0 <= 60)
            #expect(narrow.map(\.count).max() ?? 0 >= 45, "the bars use the new width")
            #expect(try tmux.rows("color", join: true).count == narrow.count, "no row wraps after the resize")
            #expect(pipedBytes().range(of: Data("\u{1B}[H\u{1B}[2J".utf8)) != nil, "the screen erased whole at the new size")
            try tmux("pipe-pane", "-t", "color")

            // Ctrl-C: exit 0, the cursor back, the main screen back with the summary line.
            try tmux("send-keys", "-t", "color", "C-c")
            try tmux("send-keys", "-t", "plain", "C-c")
            for name in ["color", "plain"] {
                let statusFile = dir + "/\(name).status"
                let status = Wait.statusFile(statusFile, timeout: 5)
                #expect(status == "0", "\(name): exit status after Ctrl-C")
                let after = try tmux.flags(name)
                #expect(after.cursor == "1", "\(name): cursor visible after exit")
                #expect(after.alternate == "0", "\(name): back on the main screen")
                // The summary is an ordinary line on the main screen; join it if the terminal wrapped it.
                let screen = try tmux.rows(name, join: true)
                #expect(screen.contains { $0.hasPrefix("vsink.monitor:") && $0.contains("dB") },
                        "\(name): the summary line: \(screen.filter { !$0.isEmpty })")
            }
        }
    }
}
