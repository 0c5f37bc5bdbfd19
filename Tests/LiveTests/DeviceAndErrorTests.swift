import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    @Suite("devices")
    struct Devices {
        /// What pactl (an independent client) says about the server.
        static func pactlInfo(_ server: PulseServer) throws -> [String: String] {
            let r = try run(["pactl", "info"], env: server.environment, timeout: 10)
            var info: [String: String] = [:]
            for line in r.stdout.split(separator: "\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                info[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            return info
        }

        /// The server as `devices` names it, from pactl: "PulseAudio 16.1", or pipewire-pulse's
        /// own name "PulseAudio (on PipeWire 0.3.65)".
        static func expectedServerName(_ server: PulseServer) throws -> String {
            let info = try pactlInfo(server)
            let name = try #require(info["Server Name"])
            return server.kind == .pipewire ? name : "PulseAudio \(try #require(info["Server Version"]))"
        }

        @Test("devices --json lists the server's sources and names the server; --sinks adds its sinks")
        func json() throws {
            let server = try Live.server()
            let p = try pulsemeter(["devices", "--json"], server: server)
            let out = p.readToEnd(timeout: 10).joined(separator: "\n")
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            let list = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
            let byName = Dictionary(list.compactMap { d in (d["name"] as? String).map { ($0, d) } }, uniquingKeysWith: { a, _ in a })
            let serverName = try Self.expectedServerName(server)
            #expect(serverName.hasPrefix(server.kind == .pipewire ? "PulseAudio (on PipeWire " : "PulseAudio 1"))
            #expect(list.allSatisfy { $0["server"] as? String == serverName }, "every entry names the server \(serverName)")
            let monitor = try #require(byName["vsink.monitor"])
            #expect(monitor["monitor"] as? Bool == true)
            #expect(monitor["monitor_of"] as? String == "vsink")
            #expect(monitor["kind"] as? String == "source")
            let defaultSource = try #require(try Self.pactlInfo(server)["Default Source"])
            #expect(defaultSource == (server.kind == .pipewire ? "vsrc" : "vsink.monitor"))
            #expect(list.filter { $0["default"] as? Bool == true }.map { $0["name"] as? String } == [defaultSource])
            let feed = try #require(byName[server.feedSource])
            #expect(feed["default"] as? Bool == false)
            #expect((feed["rate"] as? NSNumber)?.intValue == 48000)
            #expect((feed["channels"] as? NSNumber)?.intValue == 2)
            if server.kind == .pulseaudio {
                #expect(feed["monitor"] as? Bool == false)
                #expect(feed["sample_format"] as? String == "s16le")
                #expect(feed["description"] as? String == "pulsemeter-test-pipe")
            } else {
                #expect(feed["monitor_of"] as? String == "feed")
                #expect(byName["vsrc"]?["description"] as? String == "pulsemeter-test-silent-source")
            }
            // Indexes are the server's (pactl list short sources: index, name, ...).
            let short = try run(["pactl", "list", "short", "sources"], env: server.environment).stdout
            for row in short.split(separator: "\n") {
                let f = row.split(separator: "\t")
                guard f.count > 1, let d = byName[String(f[1])] else { continue }
                #expect((d["index"] as? NSNumber)?.intValue == Int(f[0]), "index of \(f[1])")
            }
            #expect(byName["vsink"] == nil, "sinks only with --sinks")

            let s = try pulsemeter(["devices", "--json", "--sinks"], server: server)
            let sout = s.readToEnd(timeout: 10).joined(separator: "\n")
            #expect(s.wait(timeout: 5) == 0, "stderr: \(s.stderrText)")
            let all = try #require(try JSONSerialization.jsonObject(with: Data(sout.utf8)) as? [[String: Any]])
            let sink = try #require(all.first { $0["name"] as? String == "vsink" })
            #expect(sink["kind"] as? String == "sink")
            #expect(sink["default"] as? Bool == true)
            #expect((sink["rate"] as? NSNumber)?.intValue == 48000)
            #expect((sink["channels"] as? NSNumber)?.intValue == 2)
            #expect(all.contains { $0["name"] as? String == server.feedSource })
            #expect(all.contains { $0["name"] as? String == "vsink.monitor" })

            // The table names the server on its first line.
            let t = try pulsemeter(["devices"], server: server)
            let table = t.readToEnd(timeout: 10)
            #expect(t.wait(timeout: 5) == 0, "stderr: \(t.stderrText)")
            #expect(table.first == serverName, "\(table)")
        }

        @Test("devices: an aligned table with the index -d takes and the default marked; -d INDEX opens that source")
        func table() throws {
            let server = try Live.server()
            let j = try pulsemeter(["devices", "--json"], server: server)
            let json = j.readToEnd(timeout: 10).joined(separator: "\n")
            #expect(j.wait(timeout: 5) == 0, "stderr: \(j.stderrText)")
            let list = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
            let t = try pulsemeter(["devices"], server: server)
            let rows = t.readToEnd(timeout: 10)
            #expect(t.wait(timeout: 5) == 0, "stderr: \(t.stderrText)")
            #expect(rows.first == (try Self.expectedServerName(server)))
            #expect(rows.count == list.count + 3, "server, header, one row per device, the note: \(rows)")
            guard rows.count == list.count + 3 else { return }
            let header = rows[1]
            func column(_ title: String) throws -> Int {
                try #require(header.range(of: title).map { header.distance(from: header.startIndex, to: $0.lowerBound) }, "\(title) in \(header)")
            }
            let nameAt = try column("NAME"), kindAt = try column("KIND"), formatAt = try column("FORMAT")
            for (row, d) in zip(rows[2..<(2 + list.count)], list) {
                let chars = Array(row)
                func cell(_ at: Int) -> String {
                    String(chars.dropFirst(at).prefix { $0 != " " })
                }
                let name = try #require(d["name"] as? String)
                #expect(cell(nameAt) == name, "the name column lines up: \(row)")
                #expect(cell(kindAt) == (d["monitor"] as? Bool == true ? "monitor" : "source"), "\(row)")
                #expect(cell(formatAt) == d["sample_format"] as? String, "\(row)")
                let index = String(chars.prefix(nameAt)).split(separator: " ").last.map(String.init)
                #expect(index == (d["index"] as? NSNumber)?.stringValue, "the index column: \(row)")
                #expect((chars.first == "*") == (d["default"] as? Bool == true), "the default is marked: \(row)")
            }
            #expect(rows.last?.contains("-d") == true, "the note on -d: \(rows.last ?? "")")

            // -d INDEX opens the source of that index (vsink.monitor: it runs on both servers).
            let monitor = try #require(list.first { $0["name"] as? String == "vsink.monitor" })
            let index = try #require((monitor["index"] as? NSNumber)?.stringValue)
            let p = try pulsemeter(["monitor", "-d", index, "-f", "ndjson", "--duration", "0.1"], server: server)
            let lines = try parseLines(p.readToEnd(timeout: 15))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            #expect(lines.first?.string("source") == "vsink.monitor")
        }

        @Test("capture at the source's own rate and channels unless -r/-c say otherwise: a 16 kHz mono source")
        func nativeFormat() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("native")
            defer { Live.removeTree(dir) }
            let load = try run(["pactl", "load-module", "module-null-sink", "sink_name=mono16", "rate=16000", "channels=1"],
                               env: server.environment)
            let module = load.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(load.status == 0, "\(load.stderr)")
            defer { _ = try? run(["pactl", "unload-module", module], env: server.environment) }
            // The source's spec as pactl reports it (PipeWire creates the node a moment later).
            let spec = try Wait.value(timeout: 5, interval: 0.1, {
                let short = try run(["pactl", "list", "short", "sources"], env: server.environment).stdout
                return short.split(separator: "\n").first { $0.contains("mono16.monitor") }.map(String.init) ?? ""
            }, until: { !$0.isEmpty })
            #expect(spec.contains("1ch 16000Hz"), "pactl: \(spec)")

            // A -12 dBFS RMS tone into the sink, for the whole run.
            let frames = 6 * 16000
            let a = pow(10, -12.0 / 20) * sqrt(2) * 32767
            let tone = (0..<frames).map { Int16(a * sin(2 * Double.pi * 330 * Double($0) / 16000)) }
            let player = try server.play(tone, into: "mono16", rate: 16000, channels: 1, dir: dir)
            defer { player.kill() }
            #expect(try Wait.hearing("mono16.monitor", above: -30, server: server), "the tone is flowing")

            let p = try pulsemeter(["monitor", "-d", "mono16.monitor", "-f", "ndjson", "--duration", "1"], server: server)
            let lines = try parseLines(p.readToEnd(timeout: 15))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            let start = try #require(lines.first)
            #expect(start.int("rate") == 16000 && start.int("channels") == 1, "metered as 16 kHz mono: \(start.raw)")
            #expect(start.int("hop") == 533, "hop = round(16000 / 30)")
            let frameLines = lines.filter { $0.type == "frame" }
            #expect(frameLines.allSatisfy { $0.doubles("rms_db")?.count == 1 }, "one channel")
            let loudest = frameLines.compactMap { $0.doubles("rms_db")?.first }.max() ?? -999
            #expect(abs(loudest - -12) < 0.5, "the tone's level: \(loudest)")
            #expect(lines.last?.int("pos") == 16000, "--duration 1 is 16000 frames at the source's rate")

            // -r / -c say otherwise.
            let q = try pulsemeter(["monitor", "-d", "mono16.monitor", "-r", "48000", "-c", "2", "-f", "ndjson", "--duration", "0.2"],
                                   server: server)
            let qStart = try #require(try parseLines(q.readToEnd(timeout: 15)).first)
            #expect(q.wait(timeout: 5) == 0, "stderr: \(q.stderrText)")
            #expect(qStart.int("rate") == 48000 && qStart.int("channels") == 2)
        }

        @Test("@DEFAULT_MONITOR@, @DEFAULT_SINK@ and @DEFAULT_SOURCE@ open the devices they name",
              arguments: ["@DEFAULT_MONITOR@", "@DEFAULT_SINK@", "@DEFAULT_SOURCE@"])
        func specialNames(name: String) throws {
            let server = try Live.server()
            let dir = try Live.tempDir("special")
            defer { Live.removeTree(dir) }
            // A tone (-12 dBFS RMS) playing into the default sink, vsink, for the whole run.
            let player = try server.play(LiveSuite.Play.tone(seconds: 6), dir: dir)
            defer { player.kill() }
            let info = try Devices.pactlInfo(server)
            let defaultSink = try #require(info["Default Sink"])
            let defaultSource = try #require(info["Default Source"])
            let expected = name == "@DEFAULT_SOURCE@" ? defaultSource : defaultSink + ".monitor"
            let hearsTone = expected == "vsink.monitor"
            #expect(try Wait.hearing("vsink.monitor", above: -30, server: server), "the tone is flowing")
            let p = try pulsemeter(["monitor", "-d", name, "-f", "ndjson", "--duration", "1"], server: server)
            let lines = try parseLines(p.readToEnd(timeout: 20))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            #expect(lines.first?.string("source") == expected, "the start line names \(expected)")
            let loudest = lines.filter { $0.type == "frame" }.compactMap { $0.doubles("rms_db")?.max() }.max() ?? -999
            if hearsTone {
                #expect(abs(loudest - -12) < 0.5, "\(name) meters vsink.monitor, which plays the tone: \(loudest)")
            } else {
                #expect(loudest == -160, "\(name) meters the silent default source \(expected), not the tone: \(loudest)")
            }
        }
    }

    /// Failures give one `pulsemeter: ` line and the exit code README.md "Exit codes" gives.
    @Suite("errors and exit codes")
    struct Errors {
        @Test("no server: exit 69 within seconds, one line naming the server, nothing created",
              arguments: [["record", "FILE", "-f", "ndjson"], ["monitor", "-f", "ndjson"], ["devices"], ["devices", "--json"]])
        func noServer(args: [String]) throws {
            let dir = try Live.tempDir("nosrv")
            defer { Live.removeTree(dir) }
            let file = dir + "/x.wav"
            let argv = args.map { $0 == "FILE" ? file : $0 }
            let t0 = monotonic()
            let p = try Subprocess([try Live.bin()] + argv, env: ["PULSE_SERVER": "unix:/nonexistent"])
            let out = p.readToEnd(timeout: 10)
            let status = p.wait(timeout: 5)
            #expect(status == 69)
            #expect(monotonic() - t0 < 5)
            let line = LiveSuite.errorLine(p.stderrText)
            #expect(line != nil, "one `pulsemeter: ` line on stderr, got: \(p.stderrText)")
            #expect(line?.contains("unix:/nonexistent") == true, "names the server: \(line ?? "")")
            #expect(out.isEmpty, "nothing on stdout: \(out)")
            #expect(!FileManager.default.fileExists(atPath: file), "no recording without a server")
        }

        @Test("unknown device: exit 69, pointing at `pulsemeter devices`",
              arguments: [["record", "FILE", "-d", "nosuch", "-f", "ndjson"], ["monitor", "-d", "nosuch", "-f", "ndjson"],
                          ["play", "TONE", "-d", "nosuch", "-f", "ndjson"]])
        func unknownDevice(args: [String]) throws {
            let server = try Live.server()
            let dir = try Live.tempDir("nodev")
            defer { Live.removeTree(dir) }
            let file = dir + "/x.wav"
            let tone = dir + "/tone.wav"
            try writeWav(TestSignal.make(frames: 4800, seed: 51), to: tone)
            let p = try pulsemeter(args.map { $0 == "FILE" ? file : $0 == "TONE" ? tone : $0 }, server: server)
            let out = p.readToEnd(timeout: 10)
            #expect(p.wait(timeout: 5) == 69)
            let line = LiveSuite.errorLine(p.stderrText)
            #expect(line != nil, "one `pulsemeter: ` line, got: \(p.stderrText)")
            #expect(line?.contains("nosuch") == true)
            #expect(line?.contains("pulsemeter devices") == true)
            #expect(out.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: file))
        }

        @Test("a sink given where a source is wanted suggests its monitor; a source given to play says it is one")
        func wrongKind() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("kind")
            defer { Live.removeTree(dir) }
            let tone = dir + "/tone.wav"
            try writeWav(TestSignal.make(frames: 4800, seed: 52), to: tone)
            for (args, hint) in [(["monitor", "-d", "vsink"], "-d vsink.monitor"),
                                 (["play", tone, "-d", "vsink.monitor"], "vsink.monitor is a source")] {
                let p = try pulsemeter(args + ["-f", "ndjson"], server: server)
                let out = p.readToEnd(timeout: 10)
                #expect(p.wait(timeout: 5) == 69, "\(args)")
                let line = LiveSuite.errorLine(p.stderrText)
                #expect(line?.contains(hint) == true, "\(args): \(p.stderrText)")
                #expect(out.isEmpty)
            }
        }

        @Test("recording into a missing directory: exit 73 before capturing anything")
        func missingDirectory() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("nodir")
            defer { Live.removeTree(dir) }
            server.drainFeed()
            let t0 = monotonic()
            let p = try pulsemeter(["record", dir + "/missing/x.wav", "-d", server.feedSource, "-f", "ndjson"], server: server)
            let out = p.readToEnd(timeout: 10)
            #expect(p.wait(timeout: 5) == 73)
            #expect(monotonic() - t0 < 5)
            let line = LiveSuite.errorLine(p.stderrText)
            #expect(line != nil, "one `pulsemeter: ` line, got: \(p.stderrText)")
            #expect(line?.contains(dir + "/missing/x.wav") == true)
            #expect(out.isEmpty, "no start line, no capture: \(out)")
        }

        @Test("unknown container: exit 64 listing the supported ones")
        func unknownExtension() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("xyz")
            defer { Live.removeTree(dir) }
            for args in [["record", dir + "/x.xyz"], ["monitor", "--record", dir + "/x.xyz"]] {
                let p = try pulsemeter(args + ["-d", server.feedSource, "-f", "ndjson"], server: server)
                let out = p.readToEnd(timeout: 10)
                #expect(p.wait(timeout: 5) == 64)
                let line = LiveSuite.errorLine(p.stderrText)
                #expect(line != nil, "one `pulsemeter: ` line, got: \(p.stderrText)")
                #expect(line?.contains(".xyz") == true)
                for ext in ["wav", "flac", "ogg", "aiff", "caf"] {
                    #expect(line?.contains(ext) == true, "lists \(ext): \(line ?? "")")
                }
                #expect(out.isEmpty)
                #expect(!FileManager.default.fileExists(atPath: dir + "/x.xyz"))
            }
        }

        @Test("meter output to /dev/full: exit 74, and the recording is still a valid file",
              arguments: ["-o", "stdout"])
        func diskFull(via: String) throws {
            let server = try Live.server()
            let dir = try Live.tempDir("full")
            defer { Live.removeTree(dir) }
            server.drainFeed()
            let file = dir + "/x.wav"
            let input = TestSignal.make(frames: 3 * 48000, seed: 20)
            let feeder = server.startFeeding(input, speed: 1)  // audio flowing whenever pulsemeter connects
            defer { server.stopFeeding(feeder) }
            let args = ["record", file, "-d", server.feedSource, "-f", "ndjson"]
            let p: Subprocess
            if via == "-o" {
                p = try pulsemeter(args + ["-o", "/dev/full"], server: server)
            } else {
                // stdout itself is /dev/full
                p = try Subprocess(["/bin/sh", "-c", "exec \"$0\" \"$@\" >/dev/full", try Live.bin()] + args,
                                   env: ["PULSE_SERVER": server.address])
            }
            _ = p.readToEnd(timeout: 10)
            #expect(p.wait(timeout: 5) == 74)
            let line = LiveSuite.errorLine(p.stderrText)
            #expect(line != nil, "one `pulsemeter: ` line, got: \(p.stderrText)")
            #expect(line?.contains("No space left") == true || line?.contains("space") == true, "\(line ?? "")")
            let samples = try decodeWithSox(file)
            let w = try readWithPythonWave(file, expected: samples)
            #expect(w.channels == 2 && w.rate == 48000 && w.sampleWidth == 2)
            #expect(w.matchesExpectedPrefix && w.frames == samples.count / 2, "Python's wave reads what sox reads")
            #expect(fedAudioProblem(samples, [input], server: server, complete: false) == nil)

            // Without recording too.
            let m = try pulsemeter(["monitor", "-d", server.feedSource, "-f", "ndjson", "-o", "/dev/full"], server: server)
            _ = m.readToEnd(timeout: 10)
            #expect(m.wait(timeout: 5) == 74)
            #expect(LiveSuite.errorLine(m.stderrText) != nil, "got: \(m.stderrText)")
        }
    }
}
