import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// `--listen`: the monitoring server, read by real clients (a plain socket, promtool, a
    /// Prometheus server, headless Chromium), against a monitor metering a fed sine.
    @Suite("listen")
    struct Listen {
        /// A 1 kHz sine of amplitude 0.25 on both channels: RMS 20*log10(0.25) - 3.01 =
        /// -15.05 dBFS; at 48 kHz every period has a sample on the crest, so the peak is
        /// 20*log10(0.25) = -12.04 dBFS.
        static let rms = 20 * log10(0.25) - 10 * log10(2.0)
        static let peak = 20 * log10(0.25)
        static func sine(seconds: Double) -> [Int16] {
            let frames = Int(seconds * Double(Live.rate))
            var out = [Int16](repeating: 0, count: 2 * frames)
            for i in 0..<frames {
                let v = Int16((8192 * sin(2 * Double.pi * 1000 * Double(i) / Double(Live.rate))).rounded())
                out[2 * i] = v
                out[2 * i + 1] = v
            }
            return out
        }

        /// A running monitor with `--listen`, its NDJSON on stdout, fed the sine at real time.
        struct Meter {
            let process: Subprocess
            let start: JSONLine
            let port: Int
            let feeder: FifoFeeder
            let server: PulseServer

            /// Reads stdout until a frame at the sine's level on both channels (plus `calibration`
            /// in a calibrated run); returns it.
            func steadyFrame(timeout: Double = 15, calibration: Double = 0) throws -> JSONLine {
                let level = Listen.rms + calibration
                let r = process.readLines(until: { line in
                    guard let l = try? JSONLine(line), l.type == "frame", let rms = l.doubles("rms_db") else { return false }
                    return rms.allSatisfy { abs($0 - level) < 0.05 }
                }, timeout: timeout)
                guard r.matched, let last = r.lines.last else {
                    throw LiveSetupError("no frame at \(level) dB within \(timeout) s; stderr: \(process.stderrText)")
                }
                return try JSONLine(last)
            }

            /// Reads what stdout holds now (so the meter never waits on a full pipe); the
            /// newest frame among it, if any.
            func drain() -> JSONLine? {
                var newest: JSONLine?
                while let line = process.readLine(timeout: 0.005) {
                    if let l = try? JSONLine(line), l.type == "frame" { newest = l }
                }
                return newest
            }

            func stop() {
                process.signal(SIGTERM)
                _ = process.wait(timeout: 10)
                server.stopFeeding(feeder)
            }
        }

        static func startMeter(_ args: [String], server: PulseServer, port: Int? = nil, seconds: Double = 40,
                               samples: [Int16]? = nil) throws -> Meter {
            server.drainFeed()
            let port = try port ?? HTTP.freePort()
            let p = try pulsemeter(["monitor", "-d", server.feedSource, "-f", "ndjson", "--listen", "127.0.0.1:\(port)"] + args,
                                   server: server)
            guard let first = p.readLine(timeout: 15), let start = try? JSONLine(first), start.type == "start" else {
                p.kill()
                throw LiveSetupError("no start line within 15 s; stderr: \(p.stderrText)")
            }
            let feeder = server.startFeeding(samples ?? sine(seconds: seconds), speed: 1)
            return Meter(process: p, start: start, port: port, feeder: feeder, server: server)
        }

        /// The value of one series (`name{labels}`) in an exposition body.
        static func value(_ series: String, in text: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
                .flatMap { Double($0.dropFirst(series.count + 1)) }
        }

        /// Runs `args` with `input` on its stdin.
        static func runWithInput(_ args: [String], input: [UInt8]) throws -> RunResult {
            let dir = try Live.tempDir("in")
            defer { Live.removeTree(dir) }
            let path = dir + "/stdin"
            _ = FileManager.default.createFile(atPath: path, contents: Data(input))
            return try run(["/bin/sh", "-c", "exec \"$0\" \"$@\" < \"\(path)\""] + args)
        }

        @Test("/metrics passes promtool with the sine's levels; /status and /events carry exactly the NDJSON lines; 404, 405, HEAD; the end line ends the streams")
        func endpoints() throws {
            let server = try Live.server()
            let m = try Self.startMeter(["--events", "--loudness"], server: server)
            defer { m.stop() }
            let steady = try m.steadyFrame()

            // stdout gets each frame just before the HTTP side does: wait for the server to
            // have this one (a condition, not a sleep).
            let deadline = monotonic() + 5
            var metrics = try HTTP.request(port: m.port, "/metrics")
            let feed = "source=\"\(server.feedSource)\""
            let names = try #require(m.start.object["channel_names"] as? [String])
            #expect(names.count == 2)
            while (Self.value("pulsemeter_rms_dbfs{\(feed),channel=\"\(names[0])\"}", in: metrics.text) == nil
                   || (Self.value("pulsemeter_frames_total{\(feed)}", in: metrics.text) ?? 0) < Double(steady.int("pos") ?? 1))
                    && monotonic() < deadline {
                _ = m.drain()
                metrics = try HTTP.request(port: m.port, "/metrics")
            }
            #expect(metrics.status == 200)
            #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
            let check = try Self.runWithInput(["promtool", "check", "metrics"], input: metrics.body)
            #expect(check.status == 0, "promtool: \(check.stdout) \(check.stderr)")
            let s = { (series: String) in Self.value(series, in: metrics.text) }
            let source = "source=\"\(server.feedSource)\""
            for c in names {
                let rms = try #require(s("pulsemeter_rms_dbfs{\(source),channel=\"\(c)\"}"), "\(metrics.text)")
                let peak = try #require(s("pulsemeter_peak_dbfs{\(source),channel=\"\(c)\"}"))
                #expect(abs(rms - Self.rms) < 0.05 && abs(peak - Self.peak) < 0.05)
            }
            #expect(s("pulsemeter_up{\(source)}") == 1)
            #expect(s("pulsemeter_silence{\(source)}") == 0)
            #expect((s("pulsemeter_frames_total{\(source)}") ?? 0) >= Double(steady.int("pos") ?? 1))
            #expect(s("pulsemeter_lufs_momentary{\(source)}") != nil)
            #expect(!metrics.text.contains("NaN"))

            let status = try HTTP.json(try HTTP.request(port: m.port, "/status"))
            let startInStatus = try #require((status["start"] as? [[String: Any]])?.first)
            #expect(NSDictionary(dictionary: startInStatus) == NSDictionary(dictionary: m.start.object))
            let frame = try #require(status["frame"] as? [String: Any])
            #expect(((frame["rms_db"] as? [Double]) ?? []).allSatisfy { abs($0 - Self.rms) < 0.05 })

            // The stream: retry, the start line first, then frames equal to stdout's lines.
            let sse = try SSEStream(port: m.port)
            #expect(sse.status == 200 && sse.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            #expect(sse.next(timeout: 5)?.type == "retry")
            let startEvent = try #require(sse.next(timeout: 5))
            #expect(startEvent.type == "start" && startEvent.data == m.start.raw)
            var streamed: [Int: String] = [:]
            while streamed.count < 20, let e = sse.next(timeout: 5) {
                guard e.type == "frame", let l = try? JSONLine(e.data), let pos = l.int("pos") else { continue }
                streamed[pos] = e.data
            }
            #expect(streamed.count == 20)
            let last = streamed.keys.max() ?? 0
            var printed: [Int: String] = [:]
            let upToLast = m.process.readLines(until: { line in
                guard let l = try? JSONLine(line), l.type == "frame", let pos = l.int("pos") else { return false }
                printed[pos] = line
                return pos >= last
            }, timeout: 10)
            #expect(upToLast.matched, "stdout never reached the last streamed frame (\(last)) within 10 s")
            for (pos, data) in streamed { #expect(printed[pos] == data, "frame at \(pos)") }

            // Events only: the start line, then no frames, only the keep-alive.
            let quiet = try SSEStream(port: m.port, path: "/events?frames=0")
            #expect(quiet.next(timeout: 5)?.type == "retry")
            #expect(quiet.next(timeout: 5)?.type == "start")
            let idle = quiet.next(timeout: 3)
            #expect(idle?.type == ":", "expected a keep-alive comment, got \(String(describing: idle))")

            let notFound = try HTTP.request(port: m.port, "/index.html")
            #expect(notFound.status == 404)
            let post = try HTTP.request(port: m.port, "/metrics", method: "POST", body: Array("{}".utf8))
            #expect(post.status == 405 && post.headers["allow"] == "GET, HEAD")
            let head = try HTTP.request(port: m.port, "/metrics", method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty)
            let page = try HTTP.request(port: m.port, "/")
            #expect(page.status == 200 && page.headers["content-type"]?.hasPrefix("text/html") == true)

            // Stopping: the end line reaches the stream as on stdout, then the stream ends.
            m.process.signal(SIGTERM)
            var endEvent: SSEEvent?
            while endEvent == nil, let e = sse.next(timeout: 5) { if e.type == "end" { endEvent = e } }
            #expect(m.process.wait(timeout: 10) == 0)
            let rest = m.process.readToEnd(timeout: 5)
            let endLine = try #require(rest.last { $0.hasPrefix("{\"type\":\"end\"") })
            #expect(endEvent?.data == endLine)
            #expect(sse.waitForEnd(timeout: 5))
        }

        @Test("libmicrohttpd is loaded only by a run that serves: mapped with --listen, not without")
        func libraryLoadedOnDemand() throws {
            let server = try Live.server()
            func mapsLibrary(_ p: Subprocess) throws -> Bool {
                // Read to the end (the file's size says 0), every mapping of the process.
                let path = "/proc/\(p.process.processIdentifier)/maps"
                let file = try #require(FileHandle(forReadingAtPath: path), "cannot open \(path)")
                defer { try? file.close() }
                let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
                #expect(maps.contains("libpulse"), "\(path) holds no libpulse: \(maps.prefix(200))")
                return maps.contains("libmicrohttpd")
            }
            let m = try Self.startMeter([], server: server)
            defer { m.stop() }
            _ = try m.steadyFrame()
            #expect(try mapsLibrary(m.process))
            // A plain monitor, once it meters (its start line is out, so its libraries are in).
            let plain = try pulsemeter(["monitor", "-d", server.feedSource, "-f", "ndjson"], server: server)
            defer { plain.signal(SIGTERM); _ = plain.wait(timeout: 10) }
            let start = try #require(plain.readLine(timeout: 15), "stderr: \(plain.stderrText)")
            #expect(try JSONLine(start).type == "start")
            #expect(try !mapsLibrary(plain))
        }

        @Test("a port that cannot be bound: exit 69 naming the address and the reason, before the server is asked")
        func takenPort() throws {
            let port = try HTTP.freePort()
            // Somebody else listens there.
            let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(s) }
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_addr.s_addr = inet_addr("127.0.0.1")
            a.sin_port = UInt16(port).bigEndian
            let bound = withUnsafePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            #expect(bound && listen(s, 1) == 0)
            // No server at all: the port is what fails, first.
            let p = try pulsemeter(["monitor", "--listen", String(port)], server: nil, env: ["PULSE_SERVER": "/nonexistent/socket"])
            let status = p.wait(timeout: 10)
            #expect(status == 69)
            #expect(p.stderrText == "pulsemeter: cannot listen on 127.0.0.1:\(port): Address already in use\n")
            let bad = try pulsemeter(["monitor", "--listen", "99999"], server: nil)
            #expect(bad.wait(timeout: 10) == 64)
            #expect(bad.stderrText.hasPrefix("pulsemeter: --listen '99999': give [HOST:]PORT"))
        }
    }
}
