import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite.ServerLoss {
    @Test("monitor --reconnect --listen with no server (or no device) yet: it waits (one stderr line), /metrics says pulsemeter_up 0 meanwhile, and metering starts within 2 s of the server (the device) appearing",
          arguments: [false, true])
    func waitsForTheServerAtStart(serverUp: Bool) throws {
        let server = try PulseServer.startPrivate()
        defer { server.stop() }
        try server.kill9()  // its socket path is known; nothing answers there
        if serverUp { try server.restartWithoutDevices() }  // the server, not the device
        let port = try HTTP.freePort()
        let device = server.feedSource
        let p = try pulsemeter(["monitor", "-d", device, "--reconnect", "-f", "ndjson",
                                "--listen", "127.0.0.1:\(port)"], server: server)
        defer {
            p.signal(SIGTERM)
            if p.wait(timeout: 10) == nil { p.kill() }
        }
        let first = try #require(p.readLine(timeout: 15), "no start line; stderr: \(p.stderrText)")
        #expect(try JSONLine(first).type == "start")
        let source = "source=\"\(device)\""
        var metrics = ""
        #expect(Wait.until(timeout: 10, interval: 0.2) {
            metrics = (try? HTTP.request(port: port, "/metrics").text) ?? ""
            return LiveSuite.Listen.value("pulsemeter_up{\(source)}", in: metrics) == 0
        }, "/metrics: \(metrics)")
        #expect(p.isRunning, "it waits; stderr: \(p.stderrText)")
        let status = try HTTP.json(try HTTP.request(port: port, "/status"))
        #expect(status["up"] as? Bool == false && status["source_lost"] as? Bool == true, "\(status)")
        let waiting = "pulsemeter: waiting for \(device) (--reconnect): "
            + (serverUp ? "no source named \(device) on " : "cannot connect to ")
        #expect(Wait.until(timeout: 5) { p.stderrText.hasPrefix(waiting) })
        #expect(p.stderrText.components(separatedBy: waiting).count == 2, "once: \(p.stderrText)")

        // The server appears: a frame within 2 s of its devices being there, fed from then on.
        // (A fresh null sink's monitor takes 1.7 s to deliver its first bytes here, to parec
        // too; the pipe source delivers what is fed at once.)
        if serverUp { try server.loadDevices() } else { try server.restart() }
        let back = monotonic()
        let feeder = server.startFeeding(LiveSuite.Listen.sine(seconds: 10), speed: 1)
        defer { server.stopFeeding(feeder) }
        var gapAt: Double?
        let metered = p.readLines(until: { line in
            if line.hasPrefix("{\"type\":\"gap\"") { gapAt = monotonic() - back }
            return line.hasPrefix("{\"type\":\"frame\"")
        }, timeout: 10)
        let frameAt = monotonic() - back
        print("waiting at start: the gap line \(gapAt ?? -1) s, the first frame \(frameAt) s after the server was back")
        #expect(metered.matched, "no frame after the server came back; stderr: \(p.stderrText)")
        #expect(frameAt < 2, "the first frame came \(frameAt) s after the server")
        #expect(metered.lines.contains { $0.hasPrefix("{\"type\":\"gap\"") }, "the wait is a gap line: \(metered.lines)")
        #expect(Wait.until(timeout: 5, interval: 0.2) {
            _ = p.readLines(until: { _ in false }, timeout: 0.05)
            return LiveSuite.Listen.value("pulsemeter_up{\(source)}", in: (try? HTTP.request(port: port, "/metrics").text) ?? "") == 1
        })
        let metering = try HTTP.json(try HTTP.request(port: port, "/status"))
        #expect(metering["up"] as? Bool == true && metering["source_lost"] as? Bool == false, "\(metering)")
        p.signal(SIGTERM)
        #expect(p.wait(timeout: 10) == 0)
    }
}
