import Foundation
import Glibc
import Testing
import Waiting

extension LiveSuite {
    @Suite("application sources")
    struct AppSource {
        /// A sine of RMS `rmsDb` dBFS on both channels, `seconds` long, interleaved s16.
        static func tone(rmsDb: Double, hz: Double, seconds: Double) -> [Int16] {
            let a = pow(10, rmsDb / 20) * sqrt(2) * 32767
            return (0..<Int(seconds * Double(Live.rate))).flatMap { i -> [Int16] in
                let v = Int16(a * sin(2 * Double.pi * hz * Double(i) / Double(Live.rate)))
                return [v, v]
            }
        }

        /// pacat playing `samples` into vsink as the application `name`.
        static func player(_ name: String, _ samples: [Int16], server: PulseServer, dir: String) throws -> Subprocess {
            let file = dir + "/\(name)-\(UUID().uuidString).raw"  // two players of one name: two files
            try writeRaw(samples, to: file)
            return try Subprocess(["pacat", "--latency-msec=30", "--raw", "--rate=48000", "--channels=2", "--format=s16le",
                                   "--property=application.name=\(name)", "-d", "vsink", file], env: server.environment)
        }

        /// The loudest frame level after the `device` line that says a stream is metered.
        static func check(_ lines: [JSONLine], expectDb: Double, sourceLocation: SourceLocation = #_sourceLocation) {
            let devices = lines.filter { $0.type == "device" }
            let playing = devices.firstIndex { $0.int("streams") == 1 && $0.object["waiting"] as? Bool == false }
            #expect(playing != nil, "a device line with one stream: \(devices.map(\.raw))", sourceLocation: sourceLocation)
            let levels = lines.filter { $0.type == "frame" }.compactMap { $0.doubles("rms_db")?.first }
            let loudest = levels.max() ?? -999
            #expect(abs(loudest - expectDb) < 0.5, "the application's level, not the louder one's: \(loudest)",
                    sourceLocation: sourceLocation)
            let steady = levels.filter { abs($0 - expectDb) < 0.2 }.count
            #expect(steady >= 30, "a second of frames at the level: \(steady)", sourceLocation: sourceLocation)
        }

        @Test("app:NAME started before the application: waits and says so, then meters only it while another plays louder")
        func byNameStartedFirst() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("app")
            defer { Live.removeTree(dir) }
            let p = try pulsemeter(["monitor", "-d", "app:PM-Tagged", "-f", "ndjson", "--duration", "6"], server: server)
            let waited = p.readLines(until: { $0.contains("\"type\":\"device\"") }, timeout: 10)
            #expect(waited.matched, "a device line while waiting; stderr: \(p.stderrText)")
            let first = try parseLines(waited.lines)
            #expect(first.first?.string("source") == "app:PM-Tagged")
            let waiting = try #require(first.last)
            #expect(waiting.object["waiting"] as? Bool == true && waiting.int("streams") == 0, "\(waiting.raw)")
            let tagged = try Self.player("pm-tagged", Self.tone(rmsDb: -15, hz: 440, seconds: 8), server: server, dir: dir)
            defer { tagged.kill() }
            let other = try Self.player("pm-other", Self.tone(rmsDb: -4, hz: 1000, seconds: 8), server: server, dir: dir)
            defer { other.kill() }
            let lines = try parseLines(p.readToEnd(timeout: 20))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            Self.check(first + lines, expectDb: -15)
            #expect(lines.last?.type == "end" && lines.last?.int("pos") == 6 * Live.rate)
        }

        @Test("app:PID meters the process's stream; devices --apps lists it with its pid and sink")
        func byPid() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("apppid")
            defer { Live.removeTree(dir) }
            let tagged = try Self.player("pm-bypid", Self.tone(rmsDb: -20, hz: 440, seconds: 8), server: server, dir: dir)
            defer { tagged.kill() }
            let other = try Self.player("pm-loud", Self.tone(rmsDb: -6, hz: 1000, seconds: 8), server: server, dir: dir)
            defer { other.kill() }
            let listed = try Wait.value(timeout: 5, interval: 0.1, {
                let l = try pulsemeter(["devices", "--apps", "--json"], server: server)
                let out = l.readToEnd(timeout: 10).joined()
                #expect(l.wait(timeout: 5) == 0, "stderr: \(l.stderrText)")
                let list = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
                return list.first { $0["application"] as? String == "pm-bypid" }
            }, until: { $0 != nil })
            let entry = try #require(listed, "devices --apps lists the player")
            #expect((entry["pid"] as? NSNumber)?.int32Value == tagged.pid)
            #expect(entry["binary"] as? String == "pacat" && entry["sink"] as? String == "vsink", "\(entry)")
            #expect(entry["index"] is NSNumber)
            let p = try pulsemeter(["monitor", "-d", "app:\(tagged.pid)", "-f", "ndjson", "--duration", "4"], server: server)
            let lines = try parseLines(p.readToEnd(timeout: 20))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            #expect(lines.first?.string("source") == "app:\(tagged.pid)")
            Self.check(lines, expectDb: -20)
        }

        @Test("app:NAME matching nothing waits (no error) and --duration still ends the run")
        func nothingMatches() throws {
            let server = try Live.server()
            let p = try pulsemeter(["monitor", "-d", "app:nobody-plays-this", "-f", "ndjson", "--duration", "1"], server: server)
            let lines = try parseLines(p.readToEnd(timeout: 15))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            let device = try #require(lines.first { $0.type == "device" })
            #expect(device.object["waiting"] as? Bool == true)
            #expect(lines.last?.type == "end" && lines.last?.int("pos") == Live.rate)
            #expect(lines.filter { $0.type == "frame" }.allSatisfy { $0.doubles("rms_db") == [-160, -160] })

            // The terminal meter says what it waits for (its closing line names it too).
            let ansi = try pulsemeter(["monitor", "-d", "app:nobody-plays-this", "-f", "ansi", "--duration", "0.5"],
                                      server: server, env: ["TERM": "dumb"])
            let screen = ansi.readToEnd(timeout: 15).joined(separator: "\n")
            #expect(ansi.wait(timeout: 5) == 0, "stderr: \(ansi.stderrText)")
            #expect(screen.contains("waiting for nobody-plays-this"), "\(screen)")
        }

        @Test("several streams of the application at once are summed, and followed as they come and go")
        func summedAndFollowed() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("appsum")
            defer { Live.removeTree(dir) }
            let first = try Self.player("pm-duo", Self.tone(rmsDb: -20, hz: 440, seconds: 12), server: server, dir: dir)
            defer { first.kill() }
            let p = try pulsemeter(["monitor", "-d", "app:pm-duo", "-f", "ndjson", "--duration", "7"], server: server)
            let one = p.readLines(until: { $0.contains("\"streams\":1") }, timeout: 10)
            #expect(one.matched, "one stream; stderr: \(p.stderrText)")
            Wait.passing(seconds: 1.5)  // the input: a stretch with one stream
            let second = try Self.player("pm-duo", Self.tone(rmsDb: -20, hz: 660, seconds: 12), server: server, dir: dir)
            defer { second.kill() }
            let two = p.readLines(until: { $0.contains("\"streams\":2") }, timeout: 10)
            #expect(two.matched, "two streams")
            Wait.passing(seconds: 2)  // the input: a stretch with both
            second.kill()
            let rest = try parseLines(p.readToEnd(timeout: 20))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            let lines = try parseLines(one.lines + two.lines) + rest
            let devices = lines.filter { $0.type == "device" }.compactMap { $0.int("streams") }
            #expect(devices.starts(with: [0, 1, 2]) || devices.starts(with: [1, 2]), "\(devices)")
            #expect(devices.last == 1, "back to one stream when the second ended: \(devices)")
            // Two tones of -20 dBFS RMS at different frequencies add in power: 10*log10(2) = 3.01 dB more.
            let levels = lines.filter { $0.type == "frame" }.compactMap { $0.doubles("rms_db")?.first }
            let summed = levels.filter { abs($0 - (-20 + 10 * log10(2.0))) < 0.3 }.count
            #expect(summed >= 15, "frames at the summed level: \(summed) of \(levels.count)")
            #expect(levels.suffix(20).allSatisfy { abs($0 - -20) < 0.5 }, "the first alone at the end: \(levels.suffix(5))")
        }
    }
}
