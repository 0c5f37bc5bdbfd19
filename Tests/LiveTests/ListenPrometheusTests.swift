import Foundation
import Glibc
import Testing
import TestSupport

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
        var levels: [String: Double] = [:]
        var up: Double?
        let landed = Wait.until(timeout: 30, interval: 0.5) {  // 0.5 s: the next scrape
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
            return levels.count >= 2 && up != nil
        }
        #expect(landed, "no scrape with both channels and pulsemeter_up within 30 s")
        #expect(levels.count == 2, "Prometheus returned \(levels); stderr: \(prom.stderrText.suffix(500))")
        for (c, v) in levels { #expect(abs(v - Self.rms) < 0.05, "channel \(c): \(v)") }
        #expect(up == 1)
    }

    @Test("a meter that serves says once where, when it starts listening; /metrics has the silence gauge without --events (no event lines on stdout), the process families moving as they should, and the build's version")
    func processMetricsAndSilenceGauge() throws {
        let server = try Live.server()
        let before = Date().timeIntervalSince1970
        let m = try Self.startMeter([], server: server)
        defer { m.stop() }
        _ = try m.steadyFrame()
        let said = "pulsemeter: serving http://127.0.0.1:\(m.port)/\n"
        #expect(Wait.until(timeout: 10) { m.process.stderrText == said }, "stderr: \(m.process.stderrText)")
        let version = try run([try Live.bin(), "--version"]).stdout
        func scrape() throws -> String {
            _ = m.drain()
            let r = try HTTP.request(port: m.port, "/metrics")
            #expect(r.status == 200)
            let check = try Self.runWithInput(["promtool", "check", "metrics"], input: r.body)
            #expect(check.status == 0, "promtool: \(check.stdout) \(check.stderr)")
            return r.text
        }
        let first = try scrape()
        let source = "source=\"\(server.feedSource)\""
        #expect(Self.value("pulsemeter_silence{\(source)}", in: first) == 0)
        #expect(first.contains("pulsemeter_build_info{version=\"\(version.dropFirst("pulsemeter ".count).dropLast())\"} 1\n"),
                "\(version)")
        let start = try #require(Self.value("process_start_time_seconds", in: first))
        #expect(start >= before - 1 && start <= Date().timeIntervalSince1970, "started at \(start), the test at \(before)")
        let cpu = try #require(Self.value("process_cpu_seconds_total", in: first))
        #expect(try #require(Self.value("process_resident_memory_bytes", in: first)) > 1_000_000)
        #expect(try #require(Self.value("process_open_fds", in: first)) >= 4)
        // The meter works on: its CPU time grows, its start time stays.
        var later = first
        let grew = Wait.until(timeout: 20, interval: 0.5) {
            later = (try? scrape()) ?? later
            return (Self.value("process_cpu_seconds_total", in: later) ?? 0) > cpu
        }
        #expect(grew, "CPU stayed at \(cpu)")
        #expect(Self.value("process_start_time_seconds", in: later) == start)
        // The silence detector ran for the gauge only: no event line on stdout, none in the end line.
        server.stopFeeding(m.feeder)
        let zeros = server.startFeeding([Int16](repeating: 0, count: 2 * Live.rate * 20), speed: 1)
        defer { server.stopFeeding(zeros) }
        #expect(Wait.until(timeout: 15, interval: 0.5) {
            (try? scrape()).flatMap { Self.value("pulsemeter_silence{\(source)}", in: $0) } == 1
        }, "the gauge never read 1 after the feed stopped")
        m.process.signal(SIGTERM)
        #expect(m.process.wait(timeout: 10) == 0)
        let rest = m.process.readToEnd(timeout: 5)
        #expect(!rest.contains { $0.hasPrefix("{\"type\":\"event\"") })
        let end = try #require(rest.last { $0.hasPrefix("{\"type\":\"end\"") })
        #expect(!end.contains("silence_seconds"))
        #expect(m.process.stderrText == said, "said once")
    }

    @Test("/metrics carries each alarm per channel (0 or 1, following its alarm lines), the true peak and the sound level per channel; promtool accepts it")
    func alarmTruePeakAndSoundLevelGauges() throws {
        let server = try Live.server()
        let m = try Self.startMeter(["--loudness", "--spl", "--alarm", "loud:rms_db>-60/0.5"], server: server)
        defer { m.stop() }
        var lines: [JSONLine] = []
        let on = m.process.readLines(until: { line in
            if let l = try? JSONLine(line) { lines.append(l) }
            return lines.filter { $0.type == "event" && $0.string("event") == "alarm_on" }.count == 2
        }, timeout: 15)
        #expect(on.matched, "two alarm_on lines, one a channel; stderr: \(m.process.stderrText)")
        let r = try HTTP.request(port: m.port, "/metrics")
        let check = try Self.runWithInput(["promtool", "check", "metrics"], input: r.body)
        #expect(check.status == 0, "promtool: \(check.stdout) \(check.stderr)")
        let rows = r.text.split(separator: "\n").map(String.init)
        let alarms = rows.filter { $0.hasPrefix("pulsemeter_alarm{") }
        #expect(alarms.count == 2 && alarms.allSatisfy { $0.contains("name=\"loud\"") && $0.hasSuffix(" 1") }, "\(alarms)")
        let names = try #require(m.start.object["channel_names"] as? [String])
        for name in names {
            #expect(alarms.contains { $0.contains("channel=\"\(name)\"") }, "\(alarms)")
        }
        // The sine's true peak is its amplitude, 0.25 (-12.04 dBTP); the sound level a number.
        let peaks = rows.filter { $0.hasPrefix("pulsemeter_true_peak_dbtp{") }.compactMap { Double($0.split(separator: " ").last!) }
        #expect(peaks.count == 2 && peaks.allSatisfy { abs($0 - 20 * log10(0.25)) < 0.1 }, "\(peaks)")
        let spl = rows.filter { $0.hasPrefix("pulsemeter_spl_db{") }.compactMap { Double($0.split(separator: " ").last!) }
        #expect(spl.count == 2 && spl.allSatisfy { $0 > -40 && $0 < 0 }, "\(spl)")
    }
}
