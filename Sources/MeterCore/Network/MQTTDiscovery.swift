/// Home Assistant's MQTT discovery for one meter: a retained config message per sensor under
/// `homeassistant/sensor/pulsemeter_NAME_METRIC/config`, each reading its value from the state
/// JSON (`MQTTState`) with a template, all of one device (the meter), with the meter's
/// availability topic; and a `binary_sensor` per alarm name, switched by the alarm's
/// `alarm_on` / `alarm_off` event lines.
public struct MQTTDiscovery {
    /// One sensor: its id in the topic and `unique_id`, its name, unit and template.
    public struct Sensor: Equatable {
        public var metric: String
        public var label: String
        public var unit: String
        public var template: String
        public var soundPressure: Bool
    }

    public let topics: MQTTTopics
    public let version: String

    public init(topics: MQTTTopics, version: String) {
        self.topics = topics
        self.version = version
    }

    /// The sensors a run with these settings and channels has: RMS and peak per channel; with
    /// loudness momentary, short-term and integrated; with the sound level meter its level and
    /// Leq per channel; with periods the last period's Leq, L10 and L90 per channel.
    public static func sensors(_ info: StreamInfo, periods: Bool) -> [Sensor] {
        var out: [Sensor] = []
        let channels = info.channelNames.enumerated().map { ($0.offset, MQTTTopics.objectID($0.element)) }
        for (c, ch) in channels {
            out.append(Sensor(metric: "rms_db_\(ch)", label: "RMS \(ch)", unit: "dBFS",
                              template: "{{ value_json.rms_db[\(c)] }}", soundPressure: false))
            out.append(Sensor(metric: "peak_db_\(ch)", label: "Peak \(ch)", unit: "dBFS",
                              template: "{{ value_json.peak_db[\(c)] }}", soundPressure: false))
        }
        if info.settings.loudness {
            for (key, label) in [("lufs_m", "Momentary loudness"), ("lufs_s", "Short-term loudness"),
                                 ("lufs_i", "Integrated loudness")] {
                out.append(Sensor(metric: key, label: label, unit: "LUFS", template: "{{ value_json.\(key) }}",
                                  soundPressure: false))
            }
        }
        if let spl = info.settings.spl {
            // Home Assistant's sound_pressure class takes "dB" and "dBA" only: an A-weighted
            // calibrated level is "dBA" there; an uncalibrated one is no sound pressure.
            let (unit, pressure) = splUnit(spl)
            for (c, ch) in channels {
                out.append(Sensor(metric: "spl_db_\(ch)", label: "Sound level \(ch)", unit: unit,
                                  template: "{{ value_json.spl_db[\(c)] }}", soundPressure: pressure))
                out.append(Sensor(metric: "leq_db_\(ch)", label: "Leq \(ch)", unit: unit,
                                  template: "{{ value_json.leq_db[\(c)] }}", soundPressure: pressure))
            }
        }
        if periods {
            let unit = info.settings.spl.map { splUnit($0).unit } ?? "dBFS"
            let pressure = info.settings.spl.map { splUnit($0).pressure } ?? false
            for (c, ch) in channels {
                for key in ["leq_db", "l10_db", "l90_db"] {
                    out.append(Sensor(metric: "period_\(key)_\(ch)", label: "Period \(key.dropLast(3).uppercased()) \(ch)",
                                      unit: unit, template: periodTemplate(key, c), soundPressure: pressure))
                }
            }
        }
        return out
    }

    /// Empty until the first period ended (Home Assistant ignores an empty value).
    static func periodTemplate(_ key: String, _ c: Int) -> String {
        "{{ value_json.period.\(key)[\(c)] if value_json.period is defined else '' }}"
    }

    static func splUnit(_ spl: SoundLevelSettings) -> (unit: String, pressure: Bool) {
        guard spl.calibrated else { return (spl.unit, false) }
        return spl.weighting == .a ? ("dBA", true) : ("dB", true)
    }

    /// Every retained config message: the sensors', then a binary sensor per alarm name.
    public func messages(_ info: StreamInfo, periods: Bool, alarms: [String] = []) -> [MQTTMessage] {
        Self.sensors(info, periods: periods).map(config) + alarms.map(alarmConfig)
    }

    private var id: String { "pulsemeter_" + MQTTTopics.objectID(topics.name) }

    public func config(_ s: Sensor) -> MQTTMessage {
        let unique = id + "_" + s.metric
        let b = JSONLineBuilder()
        b.byte(UInt8(ascii: "{"))
        b.field("name", s.label)
        b.field("unique_id", unique)
        b.field("object_id", unique)
        b.field("state_topic", topics.state)
        b.field("value_template", s.template)
        b.field("unit_of_measurement", s.unit)
        if s.soundPressure { b.field("device_class", "sound_pressure") }
        b.field("state_class", "measurement")
        common(b)
        return MQTTMessage(topic: "homeassistant/sensor/\(unique)/config", payload: b.bytes, retained: true)
    }

    public func alarmConfig(_ name: String) -> MQTTMessage {
        let unique = id + "_alarm_" + MQTTTopics.objectID(name)
        let quoted = name.replacingQuotes()
        let b = JSONLineBuilder()
        b.byte(UInt8(ascii: "{"))
        b.field("name", "Alarm \(name)")
        b.field("unique_id", unique)
        b.field("object_id", unique)
        b.field("state_topic", topics.event)
        // Other lines render nothing, which Home Assistant ignores.
        b.field("value_template", "{% if value_json.type == 'event' and value_json.name == '\(quoted)' %}"
                + "{{ 'ON' if value_json.event == 'alarm_on' else 'OFF' }}{% endif %}")
        b.field("payload_on", "ON")
        b.field("payload_off", "OFF")
        b.field("device_class", "problem")
        common(b)
        return MQTTMessage(topic: "homeassistant/binary_sensor/\(unique)/config", payload: b.bytes, retained: true)
    }

    /// Availability and the device, the same in every config; closes the object.
    private func common(_ b: JSONLineBuilder) {
        b.field("availability_topic", topics.status)
        b.field("payload_available", "online")
        b.field("payload_not_available", "offline")
        b.key("device")
        b.byte(UInt8(ascii: "{"))
        b.field("identifiers", [id])
        b.field("name", "pulsemeter \(topics.name)")
        b.field("manufacturer", "pulsemeter")
        b.field("model", "pulsemeter")
        b.field("sw_version", version)
        b.byte(UInt8(ascii: "}"))
        b.byte(UInt8(ascii: "}"))
    }
}

private extension String {
    /// For a name inside a single-quoted template string: `'` and `\` escaped.
    func replacingQuotes() -> String {
        var out = ""
        for ch in self {
            if ch == "'" || ch == "\\" { out.append("\\") }
            out.append(ch)
        }
        return out
    }
}
