import Foundation
import Testing
import TestSupport
@testable import MeterCore

/// The pure parts of `--mqtt`: the address, topic-safe names, discovery and state JSON, the
/// outbox that never grows past its bound, and the sink's timing.
@Suite struct MQTTTests {
    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func addresses() throws {
        #expect(MQTTAddress.parse("mqtt://meter@broker.lan/home/noise") == .success( MQTTAddress(tls: false, user: "meter", host: "broker.lan", port: 1883, prefix: "home/noise")))
        #expect(MQTTAddress.parse("mqtts://h:9000/p/") == .success(MQTTAddress(tls: true, user: nil, host: "h", port: 9000, prefix: "p")))
        #expect((try? MQTTAddress.parse("mqtts://h/p").get())?.port == 8883)
        #expect(MQTTAddress.parse("http://h/p") == .failure(.scheme))
        #expect(MQTTAddress.parse("mqtt://u:pw@h/p") == .failure(.password))
        #expect(MQTTAddress.parse("mqtt://h:0/p") == .failure(.hostOrPort))
        #expect(MQTTAddress.parse("mqtt://h") == .failure(.prefix))
        #expect(MQTTAddress.parse("mqtt://h/a/+/b") == .failure(.prefix))
        #expect(MQTTAddress.parse("mqtt://h/a//b") == .failure(.prefix))
    }

    @Test func topicSafeNames() {
        #expect(MQTTTopics.topicSafe("Heat Pump #2/left+") == "heat_pump_2left")
        #expect(MQTTTopics.topicSafe("alsa_input.usb-Mic") == "alsa_input.usb-mic")
        #expect(MQTTTopics.topicSafe("+#/") == "meter")
        #expect(MQTTTopics.objectID("alsa_input.usb-Mic") == "alsa_input_usb-mic")
        let t = MQTTTopics(prefix: "home", name: "garden")
        #expect([t.state, t.event, t.status] == ["home/garden/state", "home/garden/event", "home/garden/status"])
    }

    @Test func discoveryHasWhatHomeAssistantRequires() throws {
        let settings = MeterSettings(channels: 1, loudness: true, spl: SoundLevelSettings(calibrationDb: 94))
        let info = StreamInfo(source: "Mic", settings: settings, live: true, channelNames: ["mono"])
        let d = MQTTDiscovery(topics: MQTTTopics(prefix: "p", name: "garden"), version: "9.9")
        let messages = d.messages(info, periods: true, alarms: ["dead air"])
        #expect(messages.allSatisfy { $0.retained })
        var units: [String: String] = [:]
        for m in messages {
            let o = try Self.object(m.payload)
            for key in ["name", "unique_id", "state_topic", "value_template", "availability_topic", "payload_available",
                        "payload_not_available", "device"] {
                #expect(o[key] != nil, "\(m.topic) lacks \(key)")
            }
            let device = try #require(o["device"] as? [String: Any])
            #expect(device["identifiers"] as? [String] == ["pulsemeter_garden"] && device["sw_version"] as? String == "9.9")
            #expect(device["manufacturer"] as? String == "pulsemeter" && device["model"] as? String == "pulsemeter")
            #expect(m.topic == "homeassistant/\(m.topic.contains("binary_sensor") ? "binary_sensor" : "sensor")/\(o["unique_id"]!)/config")
            if let unit = o["unit_of_measurement"] as? String { units[o["unique_id"] as! String] = unit }
            if !m.topic.contains("binary_sensor") { #expect(o["state_class"] as? String == "measurement") }
        }
        #expect(units["pulsemeter_garden_rms_db_mono"] == "dBFS")
        #expect(units["pulsemeter_garden_lufs_i"] == "LUFS")
        #expect(units["pulsemeter_garden_spl_db_mono"] == "dBA")
        let spl = try Self.object(try #require(messages.first { $0.topic.contains("spl_db_mono") }).payload)
        #expect(spl["device_class"] as? String == "sound_pressure")
        #expect(messages.last?.topic == "homeassistant/binary_sensor/pulsemeter_garden_alarm_dead_air/config")
        #expect(d.messages(info, periods: false).count == messages.count - 1 - 3)
    }

    @Test func stateCarriesLevelsAndTheLastPeriod() throws {
        let info = StreamInfo(source: "s", settings: MeterSettings(), live: true, channelNames: ["L", "R"])
        var f = MeterFrame(pos: 4800, ts: 1_700_000_000.5, rmsDb: [-20, -21.5], peakDb: [-3, -4])
        f.loudness = LoudnessReading(momentary: -23, shortTerm: -22, integrated: -24)
        let o = try Self.object(MQTTState().encode(f, info: info, period: Array("{\"type\":\"period\",\"x\":1}\n".utf8)))
        #expect(o["rms_db"] as? [Double] == [-20, -21.5] && o["peak_db"] as? [Double] == [-3, -4])
        #expect(o["lufs_i"] as? Double == -24 && o["channel_names"] as? [String] == ["L", "R"])
        #expect((o["period"] as? [String: Any])?["x"] as? Int == 1)
    }

    @Test func outboxIsBoundedKeepsTheNewestStateAndCountsDrops() {
        var box = MQTTOutbox(limit: 3)
        for k in 0..<5 { box.push(MQTTMessage(topic: "e", payload: [UInt8(k)])) }
        for k in 0..<4 { box.push(MQTTMessage(topic: "s", payload: [UInt8(k)], latestOnly: true)) }
        #expect(box.count == 4 && box.dropped == 2 + 3)
        var out: [MQTTMessage] = []
        while let m = box.pop() { out.append(m) }
        #expect(out.map(\.payload) == [[2], [3], [4], [3]] && out.last?.topic == "s")
        #expect(box.count == 0)
    }

    final class Recorder: MQTTPublisher {
        var published: [MQTTMessage] = []
        var announced: [MQTTMessage] = []
        func publish(_ message: MQTTMessage) { published.append(message) }
        func announce(_ messages: [MQTTMessage]) { announced = messages }
        func finish() -> Int { 7 }
    }

    @Test func sinkPublishesAStateEveryIntervalAndCountsDropsOnTheEndLine() throws {
        let r = Recorder(), next = RecordingSink()
        let sink = MQTTSink(next: next, publisher: r, topics: MQTTTopics(prefix: "p", name: "n"), version: "1",
                            every: 1, periods: false, events: true)
        try sink.start(StreamInfo(source: "s", settings: MeterSettings(rate: 48000, fps: 10), live: true))
        #expect(!r.announced.isEmpty)
        for k in 0..<31 { try sink.frame(MeterFrame(pos: 4800 * k, ts: 100 + Double(k) / 10, rmsDb: [-20, -20], peakDb: [-1, -1])) }
        let states = r.published.filter { $0.topic == "p/n/state" }
        #expect(states.count == 4 && states.allSatisfy { $0.latestOnly }, "at 100, 101, 102, 103 s")
        try sink.end(StreamSummary(pos: 0, rate: 48000, rmsDb: [], peakDb: []))
        #expect(next.summary?.mqttDropped == 7)
    }
}
