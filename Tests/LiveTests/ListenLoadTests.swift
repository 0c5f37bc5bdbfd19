import Foundation
import Glibc
import Testing

extension LiveSuite.Listen {
    /// The value of one series in the meter's /metrics now.
    static func metric(_ series: String, port: Int) throws -> Double? {
        value(series, in: try HTTP.request(port: port, "/metrics").text)
    }

    @Test("70 clients: 64 streams, each fed, and 503 for the rest; a stalled client is dropped and counted while another reads on; the meter keeps its pace and drops nothing")
    func manyClients() throws {
        let server = try Live.server()
        // Wide lines (64 bands, 50 fps) so a client that stops reading falls behind in seconds.
        let m = try Self.startMeter(["--bands", "64", "--fps", "50"], server: server)
        defer { m.stop() }
        _ = try m.steadyFrame()
        let source = "source=\"\(server.feedSource)\""
        let t0 = monotonic()
        let pos0 = m.drain()?.int("pos") ?? 0

        var streams: [SSEStream] = []
        var refused = 0
        for i in 0..<70 {
            // Each from an address of its own: one address may hold 8 connections.
            let s = try SSEStream(port: m.port, from: "127.0.1.\(i + 1)")
            if s.status == 200 { streams.append(s) } else if s.status == 503 { refused += 1 }
            _ = m.drain()
        }
        #expect(streams.count == MonitorLimits.maxClients && refused == 70 - MonitorLimits.maxClients)
        var fed = 0
        for s in streams {
            while let e = s.next(timeout: 5) { if e.type == "frame" { fed += 1; break } }
            _ = m.drain()
        }
        #expect(fed == streams.count, "\(fed) of \(streams.count) streams got a frame")
        streams.removeAll()  // closes them

        // Once the closed streams are noticed (at the next lines sent to them), a new client
        // is served again and fed the newest frames.
        var reader = try SSEStream(port: m.port)
        let admitted = monotonic() + 5
        while reader.status != 200 && monotonic() < admitted {
            _ = m.drain()
            reader = try SSEStream(port: m.port)
        }
        #expect(reader.status == 200)
        var readerPos = 0, latest = 0
        let deadline = monotonic() + 10
        while monotonic() < deadline, let e = reader.next(timeout: 2) {
            if e.type == "frame", let l = try? JSONLine(e.data), let p = l.int("pos") { readerPos = p }
            if let f = m.drain() { latest = f.int("pos") ?? latest }
            if latest > 0 && readerPos >= latest { break }
        }
        #expect(readerPos >= latest - 2 * 960 && readerPos > 0, "reader at \(readerPos), meter at \(latest)")

        // A client that stops reading (a small receive buffer, never read after its head) is
        // dropped and counted within seconds; the reader goes on being fed.
        let stalled = try SSEStream(port: m.port, receiveBuffer: 4096)
        #expect(stalled.status == 200)
        var dropped: Double?
        let cutBy = monotonic() + 15
        while monotonic() < cutBy {
            if let f = m.drain() { latest = f.int("pos") ?? latest }
            while let e = reader.next(timeout: 0.05) {
                if e.type == "frame", let l = try? JSONLine(e.data), let p = l.int("pos") { readerPos = p }
            }
            dropped = try Self.metric("pulsemeter_http_clients_dropped_total", port: m.port)
            if dropped == 1 { break }
        }
        #expect(dropped == 1)
        #expect(stalled.waitForEnd(timeout: 10), "the dropped client's connection was not closed")
        if let f = m.drain() { latest = f.int("pos") ?? latest }
        while let e = reader.next(timeout: 2) {
            if e.type == "frame", let l = try? JSONLine(e.data), let p = l.int("pos") { readerPos = p }
            if readerPos >= latest { break }
        }
        #expect(readerPos >= latest - 2 * 960, "reader at \(readerPos), meter at \(latest)")

        // The meter kept its pace throughout: audio time advanced with wall time, nothing dropped.
        if let f = m.drain() { latest = f.int("pos") ?? latest }
        let audio = Double(latest - pos0) / Double(Live.rate), wall = monotonic() - t0
        #expect(audio > 0.9 * wall - 0.5, "\(audio) s of frames in \(wall) s")
        #expect(try Self.metric("pulsemeter_dropped_frames_total{\(source)}", port: m.port) == 0)
    }
}

/// The server's limits as README.md "Monitoring over the network" states them.
enum MonitorLimits {
    static let maxClients = 64
    /// Connections one client address may hold at once.
    static let perAddress = 8
}
