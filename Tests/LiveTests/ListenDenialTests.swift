import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

extension LiveSuite.Listen {
    /// Connections from `address` that each send part of a request's headers and never the
    /// rest, kept at `count` on a thread of their own: one the server closes is opened again
    /// at once (an attacker that reconnects). Counts what the server closed, and of that what
    /// it had held for more than 2 s (closed for sending no headers, not refused).
    final class HalfOpenClients: @unchecked Sendable {
        // Invariant for @unchecked Sendable: the sockets belong to the thread; the counters
        // and the stop flag are Atomics.
        let closedByServer = Atomic<Int>(0)
        let timedOut = Atomic<Int>(0)
        let opened = Atomic<Int>(0)
        private let stopping = Atomic<Bool>(false)
        private let done = DispatchSemaphore(value: 0)

        init(port: Int, from address: String, count: Int) {
            let thread = Thread { [self] in
                var sockets: [(fd: Int32, at: Double)] = []
                defer {
                    for s in sockets { close(s.fd) }
                    done.signal()
                }
                while !stopping.load(ordering: .acquiring) {
                    while sockets.count < count, let s = Self.open(port: port, from: address) {
                        sockets.append((s, monotonic()))
                        opened.add(1, ordering: .relaxed)
                    }
                    // Which did the server close? (readable: its end of file, or a reset)
                    var fds = sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
                    _ = poll(&fds, nfds_t(fds.count), 100)
                    var kept: [(fd: Int32, at: Double)] = []
                    for (f, s) in zip(fds, sockets) {
                        if f.revents != 0 {
                            var b: UInt8 = 0
                            if recv(f.fd, &b, 1, Int32(MSG_DONTWAIT)) <= 0 {
                                close(f.fd)
                                closedByServer.add(1, ordering: .relaxed)
                                if monotonic() - s.at > 2 { timedOut.add(1, ordering: .relaxed) }
                                continue
                            }
                        }
                        kept.append(s)
                    }
                    sockets = kept
                }
            }
            thread.start()
        }

        /// A non-blocking connect from `address` and the start of a request, never finished.
        static func open(port: Int, from address: String) -> Int32? {
            let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
            guard s >= 0, HTTP.bind(s, to: address) else { close(s); return nil }
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_addr.s_addr = inet_addr("127.0.0.1")
            a.sin_port = UInt16(port).bigEndian
            let rc = withUnsafePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if rc != 0 && errno != EINPROGRESS { close(s); return nil }
            var w = pollfd(fd: s, events: Int16(POLLOUT), revents: 0)
            guard poll(&w, 1, 200) == 1 else { close(s); return nil }
            let head = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: half"
            _ = head.withCString { Glibc.send(s, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            return s
        }

        func stop() {
            stopping.store(true, ordering: .releasing)
            done.wait()
        }
    }

    @Test("200 half-open connections from 127.0.0.2, reopened as the server closes them: /metrics from 127.0.0.1 answers 200 within 1 s, at once and 10 s later; the meter keeps its pace and drops nothing")
    func halfOpenConnections() throws {
        let server = try Live.server()
        let m = try Self.startMeter([], server: server)
        defer { m.stop() }
        _ = try m.steadyFrame()
        let source = "source=\"\(server.feedSource)\""
        let t0 = monotonic()
        var latest = m.drain()?.int("pos") ?? 0
        let pos0 = latest
        /// Reads the meter's output (so it never waits on its pipe), keeping the newest position.
        func pump() {
            if let f = m.drain(), let p = f.int("pos") { latest = p }
        }

        let attacker = HalfOpenClients(port: m.port, from: "127.0.0.2", count: 200)
        defer { attacker.stop() }
        // The attack is on: 200 opened, and the server refused those past its limit per address.
        #expect(Wait.until(timeout: 10) {
            pump()
            return attacker.opened.load(ordering: .relaxed) >= 200 && attacker.closedByServer.load(ordering: .relaxed) >= 150
        }, "opened \(attacker.opened.load(ordering: .relaxed)), closed by the server \(attacker.closedByServer.load(ordering: .relaxed))")

        func scrape() throws {
            let asked = monotonic()
            let r = try HTTP.request(port: m.port, "/metrics", timeout: 1)
            let took = monotonic() - asked
            #expect(r.status == 200 && took < 1, "status \(r.status) after \(took) s")
            #expect(Self.value("pulsemeter_up{\(source)}", in: r.text) == 1)
        }
        try scrape()
        // Ten seconds on, the attacker reconnecting all along: the connections the server held
        // were closed for sending no headers (5 s), and it holds new ones.
        Wait.passing(seconds: 10, every: 0.1) { pump() }  // the input: ten seconds of it
        #expect(attacker.timedOut.load(ordering: .relaxed) >= MonitorLimits.perAddress,
                "held connections closed for their missing headers: \(attacker.timedOut.load(ordering: .relaxed))")
        try scrape()

        // The meter kept its pace: audio time advanced with wall time, nothing dropped.
        pump()
        let audio = Double(latest - pos0) / Double(Live.rate), wall = monotonic() - t0
        #expect(audio > 0.9 * wall - 0.5, "\(audio) s of frames in \(wall) s")
        #expect(try Self.metric("pulsemeter_dropped_frames_total{\(source)}", port: m.port) == 0)
    }
}
