import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

extension LiveSuite {
    /// The shipped alert rules (share/alerts.yml) end to end: pulsemeter instances scraped by a
    /// real Prometheus loaded with the rules, its alerts sent by a real Alertmanager to a
    /// webhook the test serves.
    @Suite("alerts")
    struct Alerts {
        /// The repository's share/ directory (the shipped rules and dashboard).
        static let share = Live.packageRoot.appendingPathComponent("share").path

        /// An HTTP server on 127.0.0.1 that answers every request 200 and keeps each body with
        /// its arrival time (Alertmanager's webhook receiver).
        final class Webhook: @unchecked Sendable {
            // Invariant for @unchecked Sendable: `listener` is immutable and only the accept
            // thread uses it; the received bodies are behind a Mutex.
            let port: Int
            private let listener: Int32
            private let received = Mutex<[(at: Double, body: Data)]>([])
            private let stopping = Atomic<Bool>(false)
            private let done = DispatchSemaphore(value: 0)

            init() throws {
                let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
                guard s >= 0, HTTP.bind(s, to: "127.0.0.1"), listen(s, 16) == 0 else {
                    throw LiveSetupError("cannot listen for the webhook: \(String(cString: strerror(errno)))")
                }
                var a = sockaddr_in()
                var len = socklen_t(MemoryLayout<sockaddr_in>.size)
                _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &len) } }
                listener = s
                port = Int(UInt16(bigEndian: a.sin_port))
                Thread { [self] in serve() }.start()
            }

            /// Every alert received so far, with the time its notification arrived.
            var alerts: [(at: Double, alert: [String: Any])] {
                received.withLock { $0 }.flatMap { n in
                    let o = (try? JSONSerialization.jsonObject(with: n.body)) as? [String: Any]
                    return ((o?["alerts"] as? [[String: Any]]) ?? []).map { (n.at, $0) }
                }
            }

            private func serve() {
                defer { done.signal() }
                while !stopping.load(ordering: .acquiring) {
                    var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                    guard poll(&p, 1, 100) == 1 else { continue }
                    let c = accept(listener, nil, nil)
                    guard c >= 0 else { continue }
                    // One connection at a time: Alertmanager sends one notification per request.
                    var raw: [UInt8] = []
                    let deadline = monotonic() + 5
                    while true {
                        if let (length, start) = Self.requestHead(raw), raw.count - start >= length {
                            let body = Data(raw[start...])
                            let at = monotonic()
                            received.withLock { $0.append((at, body)) }
                            HTTP.send(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                            break
                        }
                        guard let chunk = HTTP.receive(c, until: deadline), !chunk.isEmpty else { break }
                        raw += chunk
                    }
                    close(c)
                }
            }

            /// The body's length (Content-Length) and where it starts, once the head is in.
            static func requestHead(_ raw: [UInt8]) -> (length: Int, start: Int)? {
                let sep: [UInt8] = [13, 10, 13, 10]
                guard let end = (0..<max(0, raw.count - 3)).first(where: { Array(raw[$0..<$0 + 4]) == sep }) else { return nil }
                var length = 0
                for line in String(decoding: raw[..<end], as: UTF8.self).components(separatedBy: "\r\n") {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" {
                        length = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                }
                return (length, end + 4)
            }

            func stop() {
                stopping.store(true, ordering: .releasing)
                done.wait()
                close(listener)
            }
        }

        /// A null sink on the test server, unloaded by `unload`.
        struct NullSink {
            let name: String
            let module: String
            var monitor: String { name + ".monitor" }

            init(_ name: String, server: PulseServer) throws {
                let r = try run(["pactl", "load-module", "module-null-sink", "sink_name=\(name)", "rate=48000", "channels=2"],
                                env: server.environment)
                guard r.status == 0 else { throw LiveSetupError("cannot load a null sink: \(r.stderr)") }
                self.name = name
                module = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }

            func unload(_ server: PulseServer) {
                _ = try? run(["pactl", "unload-module", module], env: server.environment)
            }
        }

        /// The series of an instant query (`/api/v1/query`): labels and value each.
        static func query(_ promPort: Int, _ q: String) -> [(labels: [String: String], value: Double)] {
            let path = "/api/v1/query?query=" + (q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? q)
            guard let r = try? HTTP.request(port: promPort, path, timeout: 5), r.status == 200, let o = try? HTTP.json(r),
                  let data = o["data"] as? [String: Any], let result = data["result"] as? [[String: Any]] else { return [] }
            return result.compactMap { s in
                guard let labels = s["metric"] as? [String: String], let v = (s["value"] as? [Any])?.last as? String,
                      let value = Double(v) else { return nil }
                return (labels, value)
            }
        }

        /// The metric names a PromQL text uses (of pulsemeter's families and the process').
        static func metricNames(_ text: String) throws -> Set<String> {
            let name = try Regex(#"\b(pulsemeter_[a-z_]+|process_[a-z_]+)\b"#)
            return Set(text.matches(of: name).map { String(text[$0.range]) })
        }

        @Test("3 meters on 3 null sinks, a real Prometheus with the shipped rules and Alertmanager: one source goes silent and one meter is killed; the webhook gets the silence alert naming that source and the down alert naming the killed one's, each within 30 s plus the meter's 2 s and two scrapes, and nothing else; the rules' and the dashboard's metrics are all in /metrics")
        func silenceAndDownReachTheWebhook() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("alerts")
            defer { Live.removeTree(dir) }
            // A 1 kHz sine at -23 LUFS (amplitude 0.0708 on both channels): loud, and on the
            // loudness target, so no other rule has a reason to fire.
            let tone = dir + "/tone.wav"
            let sox = try run(["sox", "-n", "-r", "48000", "-c", "2", "-b", "16", tone, "synth", "120", "sine", "1000", "vol", "0.0708"])
            #expect(sox.status == 0, "\(sox.stderr)")

            let sinks = try (1...3).map { try NullSink("alerts\($0)", server: server) }
            defer { for s in sinks { s.unload(server) } }
            let players = try sinks.map { try Subprocess(["paplay", "-d", $0.name, tone], env: ["PULSE_SERVER": server.address]) }
            defer { for p in players { p.kill() } }
            let ports = try sinks.map { _ in try HTTP.freePort() }
            let meters = try zip(sinks, ports).map { sink, port in
                // An alarm that cannot go on within the test (an hour of silence): its gauge is
                // exported at 0, for the rule on it; the webhook gets nothing of it.
                try pulsemeter(["monitor", "-d", sink.monitor, "--loudness", "-f", "ndjson", "-o", "/dev/null",
                                "--alarm", "dead-air:rms_db<-40/3600", "--listen", "127.0.0.1:\(port)"], server: server)
            }
            defer {
                for m in meters {
                    m.signal(SIGTERM)
                    if m.wait(timeout: 10) == nil { m.kill() }
                }
            }

            let hook = try Webhook()
            defer { hook.stop() }
            let amPort = try HTTP.freePort(), promPort = try HTTP.freePort()
            try """
                route:
                  receiver: hook
                  group_by: [alertname, instance, source]
                  group_wait: 0s
                  group_interval: 1s
                  repeat_interval: 1h
                receivers:
                  - name: hook
                    webhook_configs:
                      - url: http://127.0.0.1:\(hook.port)/
                """.write(toFile: dir + "/alertmanager.yml", atomically: true, encoding: .utf8)
            let am = try Subprocess(["prometheus-alertmanager", "--config.file=\(dir)/alertmanager.yml", "--storage.path=\(dir)/am",
                                     "--web.listen-address=127.0.0.1:\(amPort)", "--cluster.listen-address="])
            defer {
                am.signal(SIGTERM)
                if am.wait(timeout: 10) == nil { am.kill() }
            }
            try """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 500ms
                rule_files: ["\(Self.share)/alerts.yml"]
                alerting:
                  alertmanagers:
                    - static_configs:
                        - targets: ["127.0.0.1:\(amPort)"]
                scrape_configs:
                  - job_name: pulsemeter
                    static_configs:
                      - targets: [\(ports.map { "\"127.0.0.1:\($0)\"" }.joined(separator: ", "))]
                """.write(toFile: dir + "/prometheus.yml", atomically: true, encoding: .utf8)
            let prom = try Subprocess(["prometheus", "--config.file=\(dir)/prometheus.yml", "--storage.tsdb.path=\(dir)/data",
                                       "--web.listen-address=127.0.0.1:\(promPort)"])
            defer {
                prom.signal(SIGTERM)
                if prom.wait(timeout: 10) == nil { prom.kill() }
            }

            // Everything runs: Prometheus has scraped the three meters, audio arriving and loud.
            let ready = Wait.until(timeout: 30, interval: 0.5) {
                Self.query(promPort, "pulsemeter_up == 1").count == 3 && Self.query(promPort, "pulsemeter_silence == 0").count == 3
                    && Self.query(promPort, "pulsemeter_rms_dbfs > -40").count == 6
            }
            try #require(ready, "Prometheus: \(Self.query(promPort, "pulsemeter_up")); \(prom.stderrText.suffix(800)); meters: \(meters.map { $0.stderrText })")

            // Every metric the rules and the dashboard use is one a meter exports.
            let metrics = try HTTP.request(port: ports[0], "/metrics").text
            let exported = Set(metrics.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { String($0.split(separator: " ")[2]) })
            let rules = try String(contentsOfFile: Self.share + "/alerts.yml", encoding: .utf8)
            let dashboard = try String(contentsOfFile: Self.share + "/grafana-dashboard.json", encoding: .utf8)
            let used = try Self.metricNames(rules).union(Self.metricNames(dashboard))
            #expect(used.count >= 15 && used.isSubset(of: exported), "not exported: \(used.subtracting(exported))")

            // The first source goes silent; the third meter is killed.
            let silenced = sinks[0].monitor, killedSource = sinks[2].monitor
            let t0 = monotonic()
            players[0].kill()
            meters[2].kill()
            // The bound: the rules' 30 s, the meter's own 2 s of silence before its gauge says
            // so, and two scrape intervals (the scrape that sees it, then the rules' evaluation,
            // every half second, and the notification on to the webhook).
            let scrape = 1.0, silenceMin = 2.0, hold = 30.0
            let bound = hold + silenceMin + 2 * scrape
            func arrival(_ name: String, _ labels: [String: String]) -> Double? {
                hook.alerts.first { a in
                    let l = a.alert["labels"] as? [String: String] ?? [:]
                    return l["alertname"] == name && labels.allSatisfy { l[$0.key] == $0.value }
                }.map { $0.at - t0 }
            }
            let both = Wait.until(timeout: bound + 15, interval: 0.2) {
                arrival("PulsemeterSilence", ["source": silenced]) != nil
                    && arrival("PulsemeterDown", ["instance": "127.0.0.1:\(ports[2])"]) != nil
            }
            let silenceAt = arrival("PulsemeterSilence", ["source": silenced])
            let downAt = arrival("PulsemeterDown", ["instance": "127.0.0.1:\(ports[2])"])
            print("alerts: silence alert \(silenceAt.map { String(format: "%.1f", $0) } ?? "-") s, down alert \(downAt.map { String(format: "%.1f", $0) } ?? "-") s after the source went silent and the meter was killed (bound \(bound) s)")
            #expect(both, "webhook got \(hook.alerts.map { $0.alert["labels"] ?? [:] }); Alertmanager: \(am.stderrText.suffix(500))")
            if let silenceAt { #expect(silenceAt <= bound, "the silence alert came \(silenceAt) s after the silence") }
            if let downAt { #expect(downAt <= bound, "the down alert came \(downAt) s after the kill") }

            // Each names its source; nothing else arrived, and nothing else is pending.
            for a in hook.alerts {
                let labels = a.alert["labels"] as? [String: String] ?? [:]
                let annotations = a.alert["annotations"] as? [String: String] ?? [:]
                switch labels["alertname"] {
                case "PulsemeterSilence":
                    #expect(labels["source"] == silenced)
                    #expect(annotations["summary"] == "\(silenced) has been silent for 30 s")
                case "PulsemeterDown":
                    #expect(labels["instance"] == "127.0.0.1:\(ports[2])" && labels["source"] == killedSource)
                    #expect(annotations["summary"] == "pulsemeter on 127.0.0.1:\(ports[2]) is down (it metered \(killedSource))")
                default:
                    Issue.record("an alert nobody caused: \(labels)")
                }
            }
            let active = Self.query(promPort, "ALERTS").map { "\($0.labels["alertname"] ?? "") \($0.labels["alertstate"] ?? "") \($0.labels["source"] ?? $0.labels["instance"] ?? "")" }
            #expect(Set(active) == ["PulsemeterSilence firing \(silenced)", "PulsemeterDown firing \(killedSource)"], "\(active)")
        }
    }
}
