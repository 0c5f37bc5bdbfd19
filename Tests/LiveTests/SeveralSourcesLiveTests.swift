import Foundation
import Glibc
import Testing

extension LiveSuite {
    @Suite("several sources side by side")
    struct SeveralSources {
        /// The tones' levels: null sink `pm-s1` plays a -6 dBFS sine, `pm-s2` a -20 dBFS one.
        static let levels = [-6.0, -20.0]

        /// Two 48 kHz null sinks each playing its tone for `body`; everything undone after.
        static func withTwoTones(_ server: PulseServer, _ body: (_ dir: String) throws -> Void) throws {
            let dir = try Live.tempDir("several")
            defer { Live.removeTree(dir) }
            var modules: [String] = [], players: [Subprocess] = []
            defer {
                for p in players { p.kill() }
                for m in modules { _ = try? run(["pactl", "unload-module", m], env: server.environment) }
            }
            for (k, db) in levels.enumerated() {
                let name = "pm-s\(k + 1)"
                let load = try run(["pactl", "load-module", "module-null-sink", "sink_name=\(name)", "rate=\(Live.rate)"],
                                   env: server.environment)
                #expect(load.status == 0, "\(load.stderr)")
                modules.append(load.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
                _ = try ChannelNameLive.pactlChannelMap(name + ".monitor", server: server)  // the node exists
                // 1 kHz and 600 Hz: whole periods in every 50 ms window, so each frame's rms is the tone's.
                players.append(try server.play(AppSource.tone(rmsDb: db, hz: k == 0 ? 1000 : 600, seconds: 20),
                                               into: name, dir: dir))
            }
            try body(dir)
        }

        static let devices = ["-d", "pm-s1.monitor", "-d", "pm-s2.monitor"]

        /// Waits until both monitors carry their tones.
        static func waitForTones(_ server: PulseServer) throws {
            try Live.waitForTones([("pm-s1.monitor", levels[0]), ("pm-s2.monitor", levels[1])], server: server)
        }

        /// Reads until `count` frames of stream `k` arrived (10 s at most); the lines read.
        static func readUntil(frames count: Int, of k: Int, _ p: Subprocess) throws -> (lines: [JSONLine], reached: Bool) {
            var seen = 0
            let r = p.readLines(until: { line in
                if line.contains("\"frame\""), (try? JSONLine(line))?.int("stream") == k { seen += 1 }
                return seen >= count
            }, timeout: 10)
            return (try parseLines(r.lines), r.matched)
        }

        @Test("two sources metered side by side: a start line each first, every line tagged with its stream, each at its tone's level")
        func meteredSideBySide() throws {
            let server = try Live.server()
            try Self.withTwoTones(server) { _ in
                try Self.waitForTones(server)
                let p = try pulsemeter(["monitor"] + Self.devices + ["-f", "ndjson", "--duration", "1"], server: server)
                let lines = try parseLines(p.readToEnd(timeout: 15))
                #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
                #expect(lines.prefix(2).map(\.type) == ["start", "start"], "\(lines.prefix(3).map(\.raw))")
                #expect(lines.prefix(2).map { $0.int("stream") } == [0, 1])
                #expect(lines.prefix(2).map { $0.string("source") } == ["pm-s1.monitor", "pm-s2.monitor"])
                #expect(lines.allSatisfy { $0.int("stream") != nil }, "a line without stream")
                for k in 0..<2 {
                    let mine = lines.filter { $0.int("stream") == k }
                    #expect(mine.filter { $0.type == "end" }.count == 1 && mine.last?.type == "end", "stream \(k)")
                    #expect(mine.last?.int("pos") == Live.rate, "one second each: \(mine.last?.raw ?? "")")
                    // The frames whose window lies in the run: at the tone's rms within 0.1 dB.
                    let rms = mine.filter { $0.type == "frame" && ($0.int("pos") ?? 0) >= Live.rate / 10 }
                        .flatMap { $0.doubles("rms_db") ?? [] }
                    #expect(rms.count > 40 && Live.heardAt(Self.levels[k], rms, within: 0.1), "stream \(k): \(rms)")
                }
                // The terminal meter: a group of rows headed by each source's name, then each
                // source's summary line with its tone's peak.
                let ansi = try pulsemeter(["monitor"] + Self.devices + ["-f", "ansi", "--duration", "0.5"],
                                          server: server, env: ["TERM": "dumb"])
                let screen = ansi.readToEnd(timeout: 15).joined(separator: "\n")
                #expect(ansi.wait(timeout: 5) == 0, "stderr: \(ansi.stderrText)")
                let drawn = screen.components(separatedBy: "\u{1B}[H").dropFirst().dropLast().last ?? ""
                let heads = ["pm-s1.monitor", "pm-s2.monitor"].map { drawn.range(of: "\($0)  48000 Hz") }
                #expect(heads[0] != nil && heads[1] != nil && heads[0]!.lowerBound < heads[1]!.lowerBound, "\(drawn)")
                for (k, db) in Self.levels.enumerated() {
                    let summary = screen.split(separator: "\n").first { $0.contains("pm-s\(k + 1).monitor: ") }  // the first after the leave sequence
                    // The peak of a sine is 3.01 dB above its rms (a dropout at a PipeWire stream's
                    // start lowers the whole run's rms, never its peak).
                    #expect(summary?.contains("L rms ") == true && summary?.contains(" pk \(String(format: "%.1f", db + 3))") == true,
                            "\(summary ?? "no summary")")
                }
            }
        }

        @Test("record FILE with two sources: x-1.wav and x-2.wav, each its own tone for the whole run")
        func recordsOneFileEach() throws {
            let server = try Live.server()
            try Self.withTwoTones(server) { dir in
                try Self.waitForTones(server)
                let file = dir + "/x.wav"
                let p = try pulsemeter(["record", file] + Self.devices + ["-f", "ndjson", "--duration", "1"], server: server)
                let lines = try parseLines(p.readToEnd(timeout: 15))
                #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
                #expect(!FileManager.default.fileExists(atPath: file), "no file of the bare name")
                for k in 0..<2 {
                    let path = dir + "/x-\(k + 1).wav"
                    let end = try #require(lines.first { $0.type == "end" && $0.int("stream") == k })
                    #expect(end.string("file") == path && end.int("recorded_frames") == Live.rate, "\(end.raw)")
                    #expect(try soxFrames(path) == Live.rate, "\(path)")
                    let stats = try run(["sox", path, "-n", "stats"])
                    func overall(_ label: String) throws -> Double {
                        let row = try #require(stats.stderr.split(separator: "\n").first { $0.hasPrefix(label) })
                        return try #require(row.split(separator: " ").compactMap { Double($0) }.first)
                    }
                    // Its own tone: the sine's peak (3.01 dB over its rms) to 0.1 dB, the rms
                    // to 0.1 dB unless a dropout at a stream's start took a little of it.
                    let peak = try overall("Pk lev dB"), rms = try overall("RMS lev dB")
                    #expect(abs(peak - (Self.levels[k] + 3.01)) < 0.1, "\(path): sox says peak \(peak) dB")
                    #expect(rms < Self.levels[k] + 0.1 && rms > Self.levels[k] - 0.5, "\(path): sox says rms \(rms) dB")
                }
            }
        }

        @Test("--reconnect with two sources: after a server loss the one whose device is back goes on while the other waits for its own")
        func reconnectsEachOnItsOwn() throws {
            let server = try PulseServer.startPrivate()
            defer { server.stop() }
            let late = ["pactl", "load-module", "module-null-sink", "sink_name=pm-late", "rate=\(Live.rate)"]
            #expect(try run(late, env: server.environment).status == 0)
            _ = try ChannelNameLive.pactlChannelMap("pm-late.monitor", server: server)
            let p = try pulsemeter(["monitor", "-d", "vsink.monitor", "-d", "pm-late.monitor", "--reconnect", "-f", "ndjson"],
                                   server: server)
            defer { p.kill() }
            #expect(try LiveSuite.readUntil(pos: Live.rate / 2, p, timeout: 15).reached, "stderr: \(p.stderrText)")
            try server.kill9()
            try server.restart()  // vsink is back, pm-late is not
            let first = p.readLines(until: { $0.contains("\"gap\"") }, timeout: 15)
            #expect(first.matched && first.lines.last?.contains("\"stream\":0") == true, "\(first.lines.suffix(2))")
            // Stream 0 goes on (five frames; a fresh PulseAudio null sink's monitor takes a
            // moment to deliver) while stream 1 waits: no line of stream 1 meanwhile.
            let going = try Self.readUntil(frames: 5, of: 0, p)
            #expect(going.reached, "stream 0 goes on; stderr: \(p.stderrText)")
            #expect(!going.lines.contains { $0.int("stream") == 1 }, "stream 1 waits: \(going.lines.filter { $0.int("stream") == 1 }.map(\.raw))")
            #expect(try run(late, env: server.environment).status == 0)
            let second = p.readLines(until: { $0.contains("\"gap\"") }, timeout: 15)
            #expect(second.matched && second.lines.last?.contains("\"stream\":1") == true, "\(second.lines.suffix(2))")
            #expect(try Self.readUntil(frames: 1, of: 1, p).reached, "stream 1 metered again")
            let rest = try ServerLoss.terminate(p)
            #expect(rest.filter { $0.type == "end" }.compactMap { $0.int("stream") }.sorted() == [0, 1], "an end line each")
        }
    }
}
