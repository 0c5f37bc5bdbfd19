import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    @Suite("following the default source")
    struct DefaultFollow {
        /// Two null sinks, `pm-a` playing a -20 dBFS tone and `pm-b` a -8 dBFS one, with `pm-a`'s
        /// monitor the default source; everything undone after `body`.
        static func withTwoSources(_ server: PulseServer, _ body: () throws -> Void) throws {
            let dir = try Live.tempDir("default")
            defer { Live.removeTree(dir) }
            let before = try #require(try Devices.pactlInfo(server)["Default Source"])
            var modules: [String] = []
            defer {
                _ = try? run(["pactl", "set-default-source", before], env: server.environment)
                for m in modules { _ = try? run(["pactl", "unload-module", m], env: server.environment) }
            }
            for name in ["pm-a", "pm-b"] {
                let load = try run(["pactl", "load-module", "module-null-sink", "sink_name=\(name)"], env: server.environment)
                #expect(load.status == 0, "\(load.stderr)")
                modules.append(load.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            _ = try ChannelNameLive.pactlChannelMap("pm-b.monitor", server: server)  // the nodes exist
            let a = try server.play(AppSource.tone(rmsDb: -20, hz: 440, seconds: 12), into: "pm-a", dir: dir)
            defer { a.kill() }
            let b = try server.play(AppSource.tone(rmsDb: -8, hz: 660, seconds: 12), into: "pm-b", dir: dir)
            defer { b.kill() }
            #expect(try run(["pactl", "set-default-source", "pm-a.monitor"], env: server.environment).status == 0)
            try Live.waitForTones([("pm-a.monitor", -20), ("pm-b.monitor", -8)], within: 0.5, server: server)
            try body()
        }

        /// Runs `args` for 5 s, switching the default source to pm-b's monitor after 1.5 s, then
        /// calling `afterSwitch` while the run goes on.
        static func switchMidRun(_ args: [String], server: PulseServer, afterSwitch: () throws -> Void = {}) throws -> [JSONLine] {
            let p = try pulsemeter(args + ["-f", "ndjson", "--duration", "5"], server: server)
            let (head, reached) = try LiveSuite.readUntil(pos: 3 * Live.rate / 2, p, timeout: 10)
            #expect(reached, "1.5 s metered; stderr: \(p.stderrText)")
            #expect(try run(["pactl", "set-default-source", "pm-b.monitor"], env: server.environment).status == 0)
            try afterSwitch()
            let rest = try parseLines(p.readToEnd(timeout: 15))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            return head + rest
        }

        static func levels(_ lines: [JSONLine], from: Int, to: Int) -> [Double] {
            lines.filter { $0.type == "frame" && ($0.int("pos") ?? 0) > from && ($0.int("pos") ?? 0) <= to }
                .compactMap { $0.doubles("rms_db")?.first }
        }

        @Test("without -d: the default switched mid-run is followed (a device line, the new level, one continuous file, /metrics relabelled)")
        func followsDefault() throws {
            let server = try Live.server()
            try Self.withTwoSources(server) {
                let dir = try Live.tempDir("follow")
                defer { Live.removeTree(dir) }
                let file = dir + "/take.wav"
                let port = try HTTP.freePort()
                let lines = try Self.switchMidRun(["record", file, "--listen", "127.0.0.1:\(port)"], server: server) {
                    // /metrics labels its samples with the device metered now; /status quotes the device line.
                    let relabelled = Wait.until(timeout: 3) {
                        (try? HTTP.request(port: port, "/metrics"))?.text.contains("pulsemeter_up{source=\"pm-b.monitor\"} 1") == true
                    }
                    let serverDefault = (try? Devices.pactlInfo(server))?["Default Source"] ?? "?"
                    #expect(relabelled, "the server's default: \(serverDefault); \((try? HTTP.request(port: port, "/metrics"))?.text ?? "no reply")")
                    let status = try HTTP.json(HTTP.request(port: port, "/status"))
                    #expect((status["device"] as? [String: Any])?["source"] as? String == "pm-b.monitor", "\(status)")
                }
                #expect(lines.first?.string("source") == "pm-a.monitor")
                let device = try #require(lines.first { $0.type == "device" }, "a device line")
                #expect(device.string("source") == "pm-b.monitor", "\(device.raw)")
                let at = try #require(device.int("pos"))
                let before = Self.levels(lines, from: Live.rate / 2, to: at - Live.rate / 10)
                let after = Self.levels(lines, from: at + Live.rate / 2, to: 5 * Live.rate)
                #expect(Live.heardAt(-20, before, within: 0.5), "before: \(before)")
                #expect(after.count > 30 && Live.heardAt(-8, after, within: 0.5), "after: \(after)")
                let end = try #require(lines.last)
                #expect(end.type == "end" && end.int("recorded_frames") == 5 * Live.rate, "\(end.raw)")
                #expect(try soxFrames(file) == 5 * Live.rate, "one file holding every frame")
            }
        }

        @Test("a source named with -d is kept when the default switches: no device line, its level throughout")
        func namedIsKept() throws {
            let server = try Live.server()
            try Self.withTwoSources(server) {
                let lines = try Self.switchMidRun(["monitor", "-d", "pm-a.monitor"], server: server)
                #expect(lines.filter { $0.type == "device" }.isEmpty, "\(lines.filter { $0.type == "device" }.map(\.raw))")
                let levels = Self.levels(lines, from: Live.rate / 2, to: 5 * Live.rate)
                // A moment on pm-b (the server moves the stream, the meter moves it back) shows
                // as a few frames at most.
                #expect(levels.count > 100 && Live.heardAt(-20, levels, within: 0.5, louder: 3), "\(levels)")
            }
        }
    }
}
