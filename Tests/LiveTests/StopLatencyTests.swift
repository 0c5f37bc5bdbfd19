import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

extension LiveSuite {
    /// A stop is instant in every state of a live run: a stop request wakes whatever the run
    /// waits in (a network stream opening, a reconnection, a read from a source that delivers
    /// nothing), and the process exits 0, with its end line once a start line was written.
    @Suite("a stop is instant")
    struct StopLatency {
        /// The most a stop may take, from the signal to the process's exit. The product wakes
        /// every wait at once (tenths of a millisecond measured); this bound is the README's
        /// promise with room for a loaded machine's scheduling.
        static let bound = 0.2

        /// Sends SIGTERM and returns the exit status with the seconds it took.
        static func stop(_ p: Subprocess) -> (status: Int32?, seconds: Double) {
            let t0 = monotonic()
            p.signal(SIGTERM)
            let status = p.wait(timeout: 20)
            return (status, monotonic() - t0)
        }

        /// Waits for the start line, sends SIGTERM, and expects exit 0 within `bound` with the
        /// end line last.
        static func expectInstantStopAfterStart(_ p: Subprocess) throws {
            let start = try #require(p.readLine(timeout: 10), "no start line; stderr: \(p.stderrText)")
            #expect(try JSONLine(start).type == "start")
            let (status, seconds) = Self.stop(p)
            #expect(status == 0, "stderr: \(p.stderrText)")
            #expect(seconds < Self.bound, "the stop took \(seconds) s")
            let end = try #require(try parseLines(p.readToEnd(timeout: 5)).last)
            #expect(end.type == "end", "\(end.raw)")
        }

        /// A TCP listener on 127.0.0.1 that never accepts: the kernel completes each connection
        /// and takes the request, and no answer ever comes (a stream server that hangs).
        final class SilentServer: Sendable {
            let fd: Int32
            let port: Int

            init() throws {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
                self.fd = fd
                guard fd >= 0 else { throw LiveSetupError("socket: \(String(cString: strerror(errno)))") }
                var addr = sockaddr_in()
                addr.sin_family = sa_family_t(AF_INET)
                addr.sin_addr.s_addr = inet_addr("127.0.0.1")
                var len = socklen_t(MemoryLayout<sockaddr_in>.size)
                let ok = withUnsafeMutablePointer(to: &addr) { p in
                    p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 && listen(fd, 16) == 0
                    }
                }
                guard ok else { throw LiveSetupError("listen: \(String(cString: strerror(errno)))") }
                port = Int(UInt16(bigEndian: addr.sin_port))
            }

            deinit { close(fd) }

            /// Takes the next connection and reads its request, never answering; the
            /// connection stays open until `close(fd)` of what it returns (-1: none came).
            func acceptSilently() -> Int32 {
                let c = accept(fd, nil, nil)
                guard c >= 0 else { return -1 }
                var request = [UInt8](repeating: 0, count: 4096)
                _ = read(c, &request, request.count)
                return c
            }

            /// A connection waits in the backlog (ffmpeg has connected).
            func waitForConnection(timeout: Double) -> Bool {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                return poll(&pfd, 1, Int32(timeout * 1000)) == 1
            }

            /// Takes the next connection, answers it with `body` as an HTTP/1.0 response of
            /// `type`, and closes it (the stream ends).
            func serveOnce(type: String, body: [UInt8]) {
                let c = accept(fd, nil, nil)
                guard c >= 0 else { return }
                var request = [UInt8](repeating: 0, count: 4096)
                _ = read(c, &request, request.count)
                let bytes = Array("HTTP/1.0 200 OK\r\nContent-Type: \(type)\r\n\r\n".utf8) + body
                _ = bytes.withUnsafeBytes { write(c, $0.baseAddress, $0.count) }
                close(c)
            }
        }

        /// A WAV file's bytes: `seconds` of a 440 Hz stereo tone at 48 kHz.
        static func wav(seconds: Double) -> [UInt8] {
            let frames = Int(seconds * 48000)
            var samples = [Int16](repeating: 0, count: frames * 2)
            for i in 0..<frames {
                let v = Int16(8000 * sin(2 * Double.pi * 440 * Double(i) / 48000))
                samples[2 * i] = v
                samples[2 * i + 1] = v
            }
            return WAV.file(samples, rate: 48000, channels: 2)
        }

        @Test("SIGTERM while --url opens on a server that never answers: exit 0 at once, nothing written",
              .enabled(if: Live.kind == .pulseaudio, "no sound server involved: run once"))
        func whileOpening() throws {
            let server = try SilentServer()
            let p = try pulsemeter(["monitor", "--url", "http://127.0.0.1:\(server.port)/live", "-f", "ndjson"], server: nil)
            defer { p.kill() }
            #expect(server.waitForConnection(timeout: 20), "ffmpeg never connected; stderr: \(p.stderrText)")
            let (status, seconds) = Self.stop(p)
            #expect(status == 0, "stderr: \(p.stderrText)")
            #expect(seconds < Self.bound, "the stop took \(seconds) s")
            #expect(p.readToEnd(timeout: 5).isEmpty, "no start line, so no end line")
            #expect(LiveSuite.errorLine(p.stderrText) == nil, "stderr: \(p.stderrText)")
        }

        @Test("SIGTERM while --url waits on a server that accepts, takes the request and sends nothing: exit 0 at once, nothing written",
              .enabled(if: Live.kind == .pulseaudio, "no sound server involved: run once"))
        func whileTheServerSendsNothing() throws {
            let server = try SilentServer()
            try Self.expectInstantStopWhileAsking(server) {
                try pulsemeter(["monitor", "--url", "http://127.0.0.1:\(server.port)/live", "-f", "ndjson"], server: nil)
            }
        }

        @Test("SIGTERM while the server is first asked (it accepts and never answers): exit 0 at once, nothing written",
              .enabled(if: Live.kind == .pulseaudio, "no sound server involved: run once"),
              arguments: [["monitor", "-f", "ndjson"], ["calibrate"]])
        func whileTheServerIsFirstAsked(_ args: [String]) throws {
            // A hung PulseAudio: the connection's first look (the native format) waits up to 5 s.
            let server = try SilentServer()
            try Self.expectInstantStopWhileAsking(server) {
                try pulsemeter(args, server: nil, env: ["PULSE_SERVER": "tcp:127.0.0.1:\(server.port)"])
            }
        }

        @Test("SIGTERM while play opens its stream on a server that accepts and never answers: exit 0 at once, nothing written",
              .enabled(if: Live.kind == .pulseaudio, "no sound server involved: run once"))
        func whilePlayOpens() throws {
            let dir = try TempDir("stop-play")
            let file = try dir.write(Self.wav(seconds: 1), "tone.wav")
            let server = try SilentServer()
            try Self.expectInstantStopWhileAsking(server) {
                try pulsemeter(["play", file, "-f", "ndjson"], server: nil, env: ["PULSE_SERVER": "tcp:127.0.0.1:\(server.port)"])
            }
        }

        @Test("SIGTERM while play waits for a stream the server never starts (PipeWire without WirePlumber): exit 0 at once, nothing written",
              .enabled(if: Live.kind == .pipewire, "PulseAudio starts every stream"))
        func whilePlayWaitsForItsStream() throws {
            let server = try PulseServer.startPrivate()
            defer { server.stop() }
            try server.stopSessionManager()
            let dir = try TempDir("stop-play")
            let file = try dir.write(Self.wav(seconds: 1), "tone.wav")
            let p = try pulsemeter(["play", file, "-d", "vsink", "-f", "ndjson"], server: server)
            defer { p.kill() }
            // The look at the server answers at once; the stream's start then waits out its 4 s.
            Wait.passing(seconds: 1.5)
            let (status, seconds) = Self.stop(p)
            #expect(status == 0, "stderr: \(p.stderrText)")
            #expect(seconds < Self.bound, "the stop took \(seconds) s")
            #expect(p.readToEnd(timeout: 5).isEmpty, "no start line, so no end line")
            #expect(LiveSuite.errorLine(p.stderrText) == nil, "stderr: \(p.stderrText)")
        }

        /// Starts the process `start` makes, waits until it connected to `server` and sent its
        /// request (never answered), sends SIGTERM, and expects exit 0 within `bound` with
        /// nothing written and no error.
        static func expectInstantStopWhileAsking(_ server: SilentServer, _ start: () throws -> Subprocess) throws {
            let accepted = Atomic<Int32>(-1)
            let acceptor = Thread { accepted.store(server.acceptSilently(), ordering: .releasing) }
            acceptor.start()
            defer { if accepted.load(ordering: .acquiring) >= 0 { close(accepted.load(ordering: .acquiring)) } }
            let p = try start()
            defer { p.kill() }
            let asked = Wait.until(timeout: 20) { accepted.load(ordering: .acquiring) >= 0 }
            #expect(asked, "it never connected; stderr: \(p.stderrText)")
            let (status, seconds) = Self.stop(p)
            #expect(status == 0, "stderr: \(p.stderrText)")
            #expect(seconds < Self.bound, "the stop took \(seconds) s")
            #expect(p.readToEnd(timeout: 5).isEmpty, "no start line, so no end line")
            #expect(LiveSuite.errorLine(p.stderrText) == nil, "stderr: \(p.stderrText)")
        }

        @Test("SIGTERM while --reconnect waits for a lost stream to open again: exit 0 at once with the end line",
              .enabled(if: Live.kind == .pulseaudio, "no sound server involved: run once"))
        func whileReconnecting() throws {
            let server = try SilentServer()
            let body = Self.wav(seconds: 1)
            let served = Thread { server.serveOnce(type: "audio/wav", body: body) }
            served.start()
            let p = try pulsemeter(["monitor", "--url", "http://127.0.0.1:\(server.port)/live", "--reconnect", "-f", "ndjson"],
                                   server: nil)
            defer { p.kill() }
            // The one second served is metered, the stream ends, and the reconnection's
            // ffmpeg waits on the server that no longer answers.
            #expect(try LiveSuite.readUntil(pos: 24000, p, timeout: 20).reached, "stderr: \(p.stderrText)")
            #expect(server.waitForConnection(timeout: 20), "no reconnection; stderr: \(p.stderrText)")
            let (status, seconds) = Self.stop(p)
            #expect(status == 0, "stderr: \(p.stderrText)")
            #expect(seconds < Self.bound, "the stop took \(seconds) s")
            let end = try #require(try parseLines(p.readToEnd(timeout: 5)).last)
            #expect(end.type == "end", "\(end.raw)")
        }

        @Test("SIGTERM while the source delivers nothing (the feed source, never fed): exit 0 at once with the end line")
        func whileTheSourceIsSilent() throws {
            let server = try Live.server()
            _ = server.drainFeed()
            let p = try pulsemeter(["monitor", "-d", server.feedSource, "-f", "ndjson"], server: server)
            defer { p.kill() }
            try Self.expectInstantStopAfterStart(p)
        }

        @Test("SIGTERM while the source delivers nothing (a suspended null sink's monitor): exit 0 at once with the end line")
        func whileASuspendedMonitorIsSilent() throws {
            let server = try Live.server()
            let name = "pm-stop-silent"
            let load = try run(["pactl", "load-module", "module-null-sink", "sink_name=\(name)", "rate=\(Live.rate)"],
                               env: server.environment)
            try #require(load.status == 0, "pactl load-module: \(load.stderr)")
            defer { _ = try? run(["pactl", "unload-module", load.stdout.trimmingCharacters(in: .whitespacesAndNewlines)],
                                 env: server.environment) }
            // PulseAudio suspends the sink, so its monitor delivers nothing; PipeWire keeps a
            // node with a stream running whatever pactl asks (its monitor delivers silence).
            let suspend = try run(["pactl", "suspend-sink", name, "1"], env: server.environment)
            if server.kind == .pulseaudio { try #require(suspend.status == 0, "pactl suspend-sink: \(suspend.stderr)") }
            let p = try pulsemeter(["monitor", "-d", name + ".monitor", "-f", "ndjson"], server: server)
            defer { p.kill() }
            try Self.expectInstantStopAfterStart(p)
        }
    }
}
