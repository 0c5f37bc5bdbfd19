import Foundation
import Testing

/// The shipped alert rules (share/alerts.yml) and Grafana dashboard, checked by Prometheus' own
/// tool: the rules load, and their unit tests (share/alerts.test.yml) pass, with for every alert
/// series that fire it and series that do not. Against a running meter, Prometheus and
/// Alertmanager: the live suite's alerts test.
@Suite struct AlertRulesTests {
    static let share: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("share")
    }()

    static func text(_ name: String) throws -> String {
        try String(contentsOf: share.appendingPathComponent(name), encoding: .utf8)
    }

    /// The alerts' names, in the file's order.
    static func alertNames() throws -> [String] {
        try text("alerts.yml").split(separator: "\n").compactMap { line in
            let t = line.trimmingCharacters(in: .whitespaces)
            return t.hasPrefix("- alert: ") ? String(t.dropFirst("- alert: ".count)) : nil
        }
    }

    /// promtool with `args` and a file of share/: it must exit 0 and say SUCCESS.
    static func promtool(_ args: [String], _ file: String) throws {
        let promtool = try #require(Tool.which("promtool"), "promtool (Debian prometheus) is not installed")
        let r = try Tool.exec(promtool, args + [share.appendingPathComponent(file).path])
        #expect(r.status == 0, "\(r.out) \(r.err)")
        #expect(r.out.contains("SUCCESS"), "\(r.out)")
    }

    @Test("promtool check rules: the rules load")
    func rulesLoad() throws { try Self.promtool(["check", "rules"], "alerts.yml") }

    @Test("promtool test rules: every rule's unit tests pass")
    func rulesUnitTests() throws { try Self.promtool(["test", "rules"], "alerts.test.yml") }

    @Test("the alerts the issue asks for are there; each is tested firing and not firing; each names its source (or says none can be)")
    func everyAlertTestedBothWays() throws {
        let names = try Self.alertNames()
        #expect(Set(names) == ["PulsemeterDown", "PulsemeterAbsent", "PulsemeterNoAudio", "PulsemeterSilence", "PulsemeterAudioGaps",
                               "PulsemeterClipping", "PulsemeterLoudnessOffTarget", "PulsemeterDroppedFrames", "PulsemeterAlarm"])
        let tests = try Self.text("alerts.test.yml")
        for name in names {
            // An expectation of no alert, and one of an alert (exp_alerts: then a list).
            let quiet = try Regex("alertname: \(name)\\n\\s+exp_alerts: \\[\\]")
            let fires = try Regex("alertname: \(name)\\n\\s+exp_alerts:\\n\\s+- exp_labels:")
            #expect(tests.contains(quiet), "\(name) is never tested not firing")
            #expect(tests.contains(fires), "\(name) is never tested firing")
        }
        let rules = try Self.text("alerts.yml")
        let blocks = rules.components(separatedBy: "- alert: ").dropFirst()
        for block in blocks {
            let name = String(block.prefix { $0 != "\n" })
            #expect(block.contains("summary: ") && block.contains("description: "), "\(name) lacks its annotations")
            if name != "PulsemeterAbsent" {
                #expect(block.contains("$labels.source"), "\(name)'s annotations do not name the source")
            }
        }
        #expect(rules.contains("expr: pulsemeter_silence{job=\"pulsemeter\"} == 1\n        for: 30s\n"), "the silence rule: 30 s")
    }

    @Test("the Grafana dashboard is a dashboard: JSON, a Prometheus data source input, panels each with queries")
    func dashboardParses() throws {
        let data = try Data(contentsOf: Self.share.appendingPathComponent("grafana-dashboard.json"))
        let o = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let inputs = try #require(o["__inputs"] as? [[String: Any]])
        #expect(inputs.first?["pluginId"] as? String == "prometheus" && inputs.first?["name"] as? String == "DS_PROMETHEUS")
        #expect(o["uid"] as? String == "pulsemeter" && o["schemaVersion"] is Int)
        let panels = try #require(o["panels"] as? [[String: Any]])
        #expect(panels.count >= 10)
        var ids = Set<Int>()
        for p in panels {
            let id = try #require(p["id"] as? Int)
            #expect(ids.insert(id).inserted, "panel id \(id) twice")
            #expect(p["gridPos"] is [String: Any] && p["type"] is String && p["title"] is String)
            let targets = try #require(p["targets"] as? [[String: Any]])
            #expect(!targets.isEmpty && targets.allSatisfy { ($0["expr"] as? String)?.isEmpty == false })
        }
    }
}
