import Foundation
import Glibc
import Testing

extension LiveSuite {
    @Suite("devices")
    struct Devices {
        @Test("devices --json lists the server's sources; --sinks adds its sinks")
        func json() throws {
            let server = try Live.server()
            let p = try pulsemeter(["devices", "--json"], server: server)
            let out = p.readToEnd(timeout: 10).joined(separator: "\n")
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            let list = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
            let byName = Dictionary(list.compactMap { d in (d["name"] as? String).map { ($0, d) } }, uniquingKeysWith: { a, _ in a })
            let monitor = try #require(byName["vsink.monitor"])
            #expect(monitor["monitor"] as? Bool == true)
            #expect(monitor["monitor_of"] as? String == "vsink")
            #expect(monitor["default"] as? Bool == true)
            #expect(monitor["kind"] as? String == "source")
            let pipe = try #require(byName["pipesrc"])
            #expect(pipe["monitor"] as? Bool == false)
            #expect(pipe["default"] as? Bool == false)
            #expect(pipe["sample_format"] as? String == "s16le")
            #expect((pipe["rate"] as? NSNumber)?.intValue == 48000)
            #expect((pipe["channels"] as? NSNumber)?.intValue == 2)
            #expect(pipe["description"] as? String == "pulsemeter-test-pipe")
            #expect(byName["vsink"] == nil, "sinks only with --sinks")
            #expect(list.filter { $0["default"] as? Bool == true }.count == 1)

            let s = try pulsemeter(["devices", "--json", "--sinks"], server: server)
            let sout = s.readToEnd(timeout: 10).joined(separator: "\n")
            #expect(s.wait(timeout: 5) == 0, "stderr: \(s.stderrText)")
            let all = try #require(try JSONSerialization.jsonObject(with: Data(sout.utf8)) as? [[String: Any]])
            let sink = try #require(all.first { $0["name"] as? String == "vsink" })
            #expect(sink["kind"] as? String == "sink")
            #expect(sink["default"] as? Bool == true)
            #expect((sink["rate"] as? NSNumber)?.intValue == 48000)
            #expect((sink["channels"] as? NSNumber)?.intValue == 2)
            #expect(all.contains { $0["name"] as? String == "pipesrc" })
            #expect(all.contains { $0["name"] as? String == "vsink.monitor" })
        }
    }

    /// Issue 4: failures give one `pulsemeter: ` line and the contract's exit code.
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
              arguments: [["record", "FILE", "-d", "nosuch", "-f", "ndjson"], ["monitor", "-d", "nosuch", "-f", "ndjson"]])
        func unknownDevice(args: [String]) throws {
            let server = try Live.server()
            let dir = try Live.tempDir("nodev")
            defer { Live.removeTree(dir) }
            let file = dir + "/x.wav"
            let p = try pulsemeter(args.map { $0 == "FILE" ? file : $0 }, server: server)
            let out = p.readToEnd(timeout: 10)
            #expect(p.wait(timeout: 5) == 69)
            let line = LiveSuite.errorLine(p.stderrText)
            #expect(line != nil, "one `pulsemeter: ` line, got: \(p.stderrText)")
            #expect(line?.contains("nosuch") == true)
            #expect(line?.contains("pulsemeter devices") == true)
            #expect(out.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: file))
        }

        @Test("recording into a missing directory: exit 73 before capturing anything")
        func missingDirectory() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("nodir")
            defer { Live.removeTree(dir) }
            Fifo.drain(server.fifo)
            let t0 = monotonic()
            let p = try pulsemeter(["record", dir + "/missing/x.wav", "-d", "pipesrc", "-f", "ndjson"], server: server)
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
                let p = try pulsemeter(args + ["-d", "pipesrc", "-f", "ndjson"], server: server)
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
            Fifo.drain(server.fifo)
            let file = dir + "/x.wav"
            let input = TestSignal.make(frames: 3 * 48000, seed: 20)
            let feeder = server.startFeeding(input, speed: 1)  // audio flowing whenever pulsemeter connects
            defer { server.stopFeeding(feeder) }
            let args = ["record", file, "-d", "pipesrc", "-f", "ndjson"]
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
            let w = try readWithPythonWave(file, expected: input)
            #expect(w.channels == 2 && w.rate == 48000 && w.sampleWidth == 2)
            #expect(w.matchesExpectedPrefix)
            #expect(try soxFrames(file) == w.frames)

            // Without recording too.
            let m = try pulsemeter(["monitor", "-d", "pipesrc", "-f", "ndjson", "-o", "/dev/full"], server: server)
            _ = m.readToEnd(timeout: 10)
            #expect(m.wait(timeout: 5) == 74)
            #expect(LiveSuite.errorLine(m.stderrText) != nil, "got: \(m.stderrText)")
        }
    }
}
