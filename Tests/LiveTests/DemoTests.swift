import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    /// scripts/run with no reachable server starts a private PulseAudio playing a test signal;
    /// Ctrl-C on a terminal must exit 0 and leave no process and no demo directory behind.
    @Suite("scripts/run's demo", .enabled(if: Live.kind == .pulseaudio, "the demo is a private PulseAudio whichever server the tests run against: run once"))
    struct Demo {
        /// Processes whose command line or environment mentions `needle` (/proc).
        static func processes(mentioning needle: String) -> [String] {
            var found: [String] = []
            let me = getpid()
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(entry), pid != me else { continue }
                var text = ""
                for file in ["cmdline", "environ"] {
                    if let d = FileManager.default.contents(atPath: "/proc/\(pid)/\(file)") {
                        text += String(decoding: d.map { $0 == 0 ? 32 : $0 }, as: UTF8.self) + "\n"
                    }
                }
                let cmd = text.split(separator: "\n").first.map(String.init) ?? ""
                // The tmux server and the pane's idle shell only carry the test's own command.
                if text.contains(needle) && !cmd.hasPrefix("tmux") && !cmd.hasPrefix("sleep") {
                    found.append("\(pid): \(cmd)")
                }
            }
            return found
        }

        /// The binary, a scratch directory (remove it when done) with an empty TMPDIR for the
        /// demo inside, and scripts/run.
        static func scratch(_ name: String) throws -> (bin: String, dir: String, tmp: String, script: String) {
            let bin = try Live.bin()
            let dir = try Live.tempDir(name)
            let tmp = dir + "/tmp"
            try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
            return (bin, dir, tmp, Live.packageRoot.appendingPathComponent("scripts/run").path)
        }

        @Test("-d @DEFAULT_MONITOR@ --bands 32 with no server: the demo starts and its test signal is metered; a real name starts none")
        func defaultMonitorStartsTheDemo() throws {
            let (bin, dir, tmp, runScript) = try Self.scratch("demo-monitor")
            defer { Live.removeTree(dir) }
            let env = ["PULSE_SERVER": "unix:\(dir)/no-server", "PULSEMETER_BIN": bin, "TMPDIR": tmp]
            for spelling in [["-d", "@DEFAULT_MONITOR@"], ["--device=@DEFAULT_SINK@"]] {
                let r = try run([runScript] + spelling + ["--bands", "32", "-f", "ndjson", "--duration", "3"], env: env, timeout: 40)
                #expect(r.status == 0, "\(spelling): \(r.stderr)")
                #expect(r.stderr.contains("started a private one playing a test signal"), "\(r.stderr)")
                let lines = try parseLines(r.stdout.split(separator: "\n").map(String.init))
                let start = try #require(lines.first)
                #expect(start.string("source") == "vsink.monitor", "the demo's default sink's monitor: \(start.raw)")
                let frames = lines.filter { $0.type == "frame" }
                #expect(frames.allSatisfy { $0.doubles("bands_db")?.count == 32 })
                let loudest = frames.compactMap { $0.doubles("rms_db")?.max() }.max() ?? -999
                #expect(loudest > -40, "the test signal on the meter: \(loudest) dB")
                #expect(lines.last?.doubles("bands_db")?.count == 32, "the end line's spectrum")
                #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty, "left behind in TMPDIR")
            }
            // A device the demo cannot have: no demo, the usual error (69).
            let named = try run([runScript, "-d", "vsink.monitor", "-f", "ndjson", "--duration", "1"], env: env, timeout: 30)
            #expect(named.status == 69, "\(named.stderr)")
            #expect(!named.stderr.contains("started a private one"))
        }

        @Test("Ctrl-C under tmux: exit 0, no process and no pulsemeter-demo.* left")
        func ctrlCCleansUp() throws {
            let (bin, dir, tmp, run) = try Self.scratch("demo")
            defer { Live.removeTree(dir) }
            let tmux = TerminalMeter.Tmux(socket: dir + "/tmux.sock")
            defer { _ = try? tmux("kill-server") }
            let status = dir + "/status"
            // No server at PULSE_SERVER: scripts/run starts its demo server (in TMPDIR).
            try tmux("new-session", "-d", "-s", "demo", "-x", "100", "-y", "30",
                     "env PULSE_SERVER=unix:\(dir)/no-server PULSEMETER_BIN='\(bin)' TMPDIR='\(tmp)' LANG=C.UTF-8 '\(run)' monitor; "
                        + "echo $? > '\(status)'; exec sleep 600")

            // The meter shows the demo's signal.
            let rows = try tmux.waitFor("demo", timeout: 30) { rows in
                TerminalMeter.levels(rows).count == 2 && TerminalMeter.levels(rows).contains { $0 > -60 }
            }
            #expect(TerminalMeter.levels(rows).contains { $0 > -60 }, "the demo signal on the meter: \(rows.filter { !$0.isEmpty })")
            let demos = try FileManager.default.contentsOfDirectory(atPath: tmp).filter { $0.hasPrefix("pulsemeter-demo.") }
            #expect(demos.count == 1, "one demo directory: \(demos)")
            #expect(!Self.processes(mentioning: tmp).isEmpty, "the demo server and player are running")

            try tmux("send-keys", "-t", "demo", "C-c")
            let code = Wait.statusFile(status, timeout: 15)
            let screen = try tmux.rows("demo").filter { !$0.isEmpty }
            #expect(code == "0", "scripts/run's exit status after Ctrl-C: \(code ?? "none"); screen: \(screen)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty, "left behind in TMPDIR")
            let left = Self.processes(mentioning: tmp)
            #expect(left.isEmpty, "processes left: \(left)")
            // Whatever the assertions said, nothing of the demo outlives the test.
            for p in left { if let pid = Int32(p.split(separator: ":")[0]) { kill(pid, SIGKILL) } }
        }
    }
}
