import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    @Suite("sd_notify")
    struct ServiceNotify {
        /// The WATCHDOG=1 datagrams among `datagrams`, by arrival time.
        static func pings(_ datagrams: [NotifyListener.Datagram]) -> [Double] {
            datagrams.filter { $0.text == "WATCHDOG=1" }.map(\.at)
        }

        /// What is queued already (sent before now), read and dropped.
        static func drain(_ listener: NotifyListener) -> [NotifyListener.Datagram] {
            var got: [NotifyListener.Datagram] = []
            while let d = listener.receive(timeout: 0) { got.append(d) }
            return got
        }

        /// Checks that pings come about every 0.5 s (WATCHDOG_USEC=1000000) for `seconds`.
        static func expectPings(_ listener: NotifyListener, for seconds: Double, _ what: String) {
            let pings = Self.pings(listener.receive(for: seconds))
            let intervals = zip(pings.dropFirst(), pings).map { $0 - $1 }
            print("sd_notify (\(Live.kind)): \(what): \(pings.count) pings in \(seconds) s, intervals \(intervals.map { (($0 * 1000).rounded()) / 1000 })")
            #expect(pings.count >= Int(seconds / 0.5) - 2, "\(what): \(pings.count) pings in \(seconds) s")
            #expect(intervals.allSatisfy { $0 > 0.2 && $0 < 1.5 }, "\(what): intervals \(intervals)")
        }

        /// SIGTERM: STOPPING=1, nothing after it, exit 0.
        static func expectStopsOnSIGTERM(_ p: Subprocess, _ listener: NotifyListener) {
            p.signal(SIGTERM)
            let stopping = listener.receive(until: { $0.text == "STOPPING=1" }, timeout: 10)
            #expect(stopping.matched, "no STOPPING=1: \(stopping.datagrams.map(\.text))")
            _ = p.readToEnd(timeout: 10)
            #expect(p.wait(timeout: 10) == 0, "exit status; stderr: \(p.stderrText)")
            #expect(Self.drain(listener).isEmpty, "nothing after STOPPING=1")
        }

        /// After `waiting` took effect: no ping for 2 s.
        static func expectNoPings(_ listener: NotifyListener, _ what: String) {
            let during = listener.receive(for: 2)
            print("sd_notify (\(Live.kind)): \(what): \(during.map(\.text))")
            #expect(Self.pings(during).isEmpty, "\(what): pings \(during.map(\.text))")
        }

        @Test("monitor under NOTIFY_SOCKET and WATCHDOG_USEC=1000000: READY=1 after the first audio, WATCHDOG=1 about every 0.5 s while audio flows, none while the capture waits (the sink suspended on PulseAudio, the pulse server stopped on PipeWire) or the process is stopped (SIGSTOP), again after; STOPPING=1 on SIGTERM and exit 0")
        func notifiesTheServiceManager() throws {
            let server = try PulseServer.startPrivate()
            defer { server.stop() }
            let dir = try Live.tempDir("notify")
            defer { Live.removeTree(dir) }
            let listener = try NotifyListener(dir + "/notify")
            let p = try pulsemeter(["monitor", "-d", "vsink.monitor", "-f", "ndjson"], server: server,
                                   env: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "1000000"])
            defer { if p.isRunning { p.kill() } }

            // READY=1 first, once the first frame was written (the notifier is the last sink).
            let ready = listener.receive(until: { $0.text == "READY=1" }, timeout: 20)
            #expect(ready.matched, "no READY=1: \(ready.datagrams.map(\.text)); stderr: \(p.stderrText)")
            #expect(ready.datagrams.count == 1, "READY=1 comes first: \(ready.datagrams.map(\.text))")
            let lines = p.readLines(until: { $0.hasPrefix("{\"type\":\"frame\"") }, timeout: 1)
            #expect(lines.matched, "READY=1 came before the first frame: \(lines.lines)")
            let status = try #require(listener.receive(timeout: 5), "no STATUS with READY")
            #expect(status.text.hasPrefix("STATUS=vsink.monitor ") && status.text.contains(" dB RMS"), "\(status.text)")

            // Pings while audio flows.
            Self.expectPings(listener, for: 3, "audio flowing")
            _ = p.readLines(until: { _ in false }, timeout: 0.05)  // keep stdout from filling

            // The capture waits: PulseAudio suspends the sink (so its monitor) on request;
            // PipeWire keeps a node with a running stream going whatever pactl asks (measured:
            // pings went on), so its pulse server is stopped instead (the read waits for data).
            let daemon = try #require(server.daemonPid)
            if server.kind == .pulseaudio {
                let r = try run(["pactl", "suspend-sink", "vsink", "1"], env: server.environment)
                try #require(r.status == 0, "pactl suspend-sink: \(r.stderr)")
            } else {
                Glibc.kill(daemon, SIGSTOP)
            }
            // What the analysis had in hand when the capture stopped delivering may still ping.
            _ = listener.receive(for: 0.5)
            Self.expectNoPings(listener, "the capture waiting")
            if server.kind == .pulseaudio {
                let r = try run(["pactl", "suspend-sink", "vsink", "0"], env: server.environment)
                #expect(r.status == 0, "pactl suspend-sink 0: \(r.stderr)")
            } else {
                Glibc.kill(daemon, SIGCONT)
            }
            let back = listener.receive(until: { $0.text == "WATCHDOG=1" }, timeout: 10)
            #expect(back.matched, "no ping once the capture delivers again: \(back.datagrams.map(\.text)); stderr: \(p.stderrText)")
            Self.expectPings(listener, for: 2, "audio back")
            _ = p.readLines(until: { _ in false }, timeout: 0.05)

            // The process stopped: nothing is sent until it continues.
            p.signal(SIGSTOP)
            #expect(Wait.until(timeout: 5) { Self.processState(p.pid) == "T" }, "not stopped: \(Self.processState(p.pid) ?? "?")")
            _ = Self.drain(listener)
            Self.expectNoPings(listener, "the process stopped")
            p.signal(SIGCONT)
            let resumed = listener.receive(until: { $0.text == "WATCHDOG=1" }, timeout: 10)
            #expect(resumed.matched, "no ping after SIGCONT: \(resumed.datagrams.map(\.text)); stderr: \(p.stderrText)")
            _ = p.readLines(until: { _ in false }, timeout: 0.05)

            Self.expectStopsOnSIGTERM(p, listener)
        }

        @Test("two sources (-d A -d B): READY=1 once both deliver, pings only while both do (on PulseAudio the pipe source delivers only what is fed; on PipeWire the feed's monitor runs on the clock, so there both deliver from the start)")
        func severalSources() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("notify2")
            defer { Live.removeTree(dir) }
            _ = server.drainFeed()
            let listener = try NotifyListener(dir + "/notify")
            let p = try pulsemeter(["monitor", "-d", "vsink.monitor", "-d", server.feedSource, "-f", "ndjson"], server: server,
                                   env: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "1000000"])
            defer { if p.isRunning { p.kill() } }
            var feeder: FifoFeeder?
            defer { if let feeder { server.stopFeeding(feeder) } }
            if server.alignedFeed {
                // vsink.monitor delivers, the pipe source nothing: not ready.
                let first = p.readLines(until: { $0.hasPrefix("{\"type\":\"frame\"") && $0.contains("\"stream\":0") }, timeout: 20)
                #expect(first.matched, "no frame of vsink.monitor; stderr: \(p.stderrText)")
                let before = listener.receive(for: 1.5)
                #expect(before.isEmpty, "one source of two delivers: \(before.map(\.text))")
                _ = p.readLines(until: { _ in false }, timeout: 0.05)
                feeder = server.startFeeding(LiveSuite.Listen.sine(seconds: 6), speed: 1)
            }
            let ready = listener.receive(until: { $0.text == "READY=1" }, timeout: 20)
            #expect(ready.matched && ready.datagrams.count == 1, "READY=1 first: \(ready.datagrams.map(\.text)); stderr: \(p.stderrText)")
            let status = listener.receive(timeout: 5)?.text ?? ""
            #expect(status.hasPrefix("STATUS=vsink.monitor ") && status.contains("; \(server.feedSource) "), "\(status)")
            Self.expectPings(listener, for: 2, "two sources delivering")
            _ = p.readLines(until: { _ in false }, timeout: 0.05)
            if let f = feeder {
                // The feed stops: the pipe source delivers nothing, vsink.monitor goes on.
                server.stopFeeding(f)
                feeder = nil
                // What the pipe and the server still held arrives first (seconds of it on a
                // loaded machine): from the pipe source's last frame on, it delivers nothing.
                var quiet = false
                for _ in 0..<40 where !quiet {
                    let got = p.readLines(until: { _ in false }, timeout: 0.5)
                    quiet = !got.lines.contains { $0.contains("\"stream\":1") }
                }
                #expect(quiet, "the pipe source went on delivering 20 s after the feed stopped")
                _ = listener.receive(for: 0.6)  // a ping due from the last frames
                Self.expectNoPings(listener, "one source of two delivering")
                _ = p.readLines(until: { _ in false }, timeout: 0.05)
            }
            Self.expectStopsOnSIGTERM(p, listener)
        }

        /// The state letter of /proc/PID/stat ("T" stopped), nil when gone.
        static func processState(_ pid: pid_t) -> String? {
            processTable().first { $0.pid == pid }.map { String($0.state) }
        }
    }
}
