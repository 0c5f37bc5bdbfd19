import Foundation
import Glibc
import Testing

extension LiveSuite.Listen {
    @Test("a real Prometheus server scrapes /metrics: its query API returns the sine's level per channel and up == 1")
    func prometheusScrapes() throws {
        let server = try Live.server()
        let m = try Self.startMeter([], server: server)
        defer { m.stop() }
        _ = try m.steadyFrame()
        let dir = try Live.tempDir("prom")
        defer { Live.removeTree(dir) }
        let promPort = try HTTP.freePort()
        let config = """
            global:
              scrape_interval: 1s
            scrape_configs:
              - job_name: pulsemeter
                static_configs:
                  - targets: ["127.0.0.1:\(m.port)"]
            """
        try config.write(toFile: dir + "/prometheus.yml", atomically: true, encoding: .utf8)
        let prom = try Subprocess(["prometheus", "--config.file=\(dir)/prometheus.yml", "--storage.tsdb.path=\(dir)/data",
                                   "--web.listen-address=127.0.0.1:\(promPort)"])
        defer {
            prom.signal(SIGTERM)
            if prom.wait(timeout: 10) == nil { prom.kill() }
        }
        // Wait until a scrape has landed: the query returns both channels.
        let deadline = monotonic() + 30
        var levels: [String: Double] = [:]
        var up: Double?
        while monotonic() < deadline && (levels.count < 2 || up == nil) {
            _ = m.drain()
            if let r = try? HTTP.request(port: promPort, "/api/v1/query?query=pulsemeter_rms_dbfs", timeout: 5),
               r.status == 200, let o = try? HTTP.json(r),
               let data = o["data"] as? [String: Any], let result = data["result"] as? [[String: Any]] {
                for series in result {
                    guard let labels = series["metric"] as? [String: String], let value = series["value"] as? [Any],
                          let text = value.last as? String, let v = Double(text), let c = labels["channel"] else { continue }
                    #expect(labels["source"] == server.feedSource && labels["job"] == "pulsemeter")
                    levels[c] = v
                }
            }
            if let r = try? HTTP.request(port: promPort, "/api/v1/query?query=pulsemeter_up", timeout: 5),
               let o = try? HTTP.json(r), let data = o["data"] as? [String: Any],
               let result = data["result"] as? [[String: Any]], let value = result.first?["value"] as? [Any],
               let text = value.last as? String {
                up = Double(text)
            }
            if levels.count < 2 || up == nil { _ = prom.wait(timeout: 0.5) }  // the next scrape
        }
        #expect(levels.count == 2, "Prometheus returned \(levels); stderr: \(prom.stderrText.suffix(500))")
        for (c, v) in levels { #expect(abs(v - Self.rms) < 0.05, "channel \(c): \(v)") }
        #expect(up == 1)
    }
}
