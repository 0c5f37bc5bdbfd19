/// One message for the broker: a topic, its payload, and whether the broker keeps it for
/// subscribers that come later (retained).
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var retained: Bool
    /// A state: a newer one makes it worthless (`MQTTOutbox` keeps the newest only).
    public var latestOnly: Bool

    public init(topic: String, payload: [UInt8], retained: Bool = false, latestOnly: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
        self.latestOnly = latestOnly
    }
}

/// The topics of one meter: `PREFIX/NAME/state`, `/event`, `/status`, and the names they are
/// built from.
public struct MQTTTopics: Sendable, Equatable {
    public let prefix: String
    /// The meter's name as it stands in topics (`topicSafe`).
    public let name: String

    public init(prefix: String, name: String) {
        self.prefix = prefix
        self.name = name
    }

    public var state: String { "\(prefix)/\(name)/state" }
    public var event: String { "\(prefix)/\(name)/event" }
    /// Availability: `online` (retained) while connected, `offline` (the last will, retained).
    public var status: String { "\(prefix)/\(name)/status" }
    public static let online: [UInt8] = Array("online".utf8)
    public static let offline: [UInt8] = Array("offline".utf8)

    /// A name fit for one topic level: no `+`, `#` or `/` (MQTT's wildcards and separator),
    /// no control characters, spaces as `_`, lowercase; "meter" when nothing is left.
    public static func topicSafe(_ name: String) -> String {
        var out = ""
        for ch in name.lowercased() {
            switch ch {
            case "+", "#", "/": continue
            case " ", "\t": out.append("_")
            default:
                if let a = ch.asciiValue, a < 0x20 || a == 0x7F { continue }
                out.append(ch)
            }
        }
        return out.isEmpty ? "meter" : out
    }

    /// An id Home Assistant takes in a discovery topic and as `unique_id`: ASCII letters,
    /// digits, `_` and `-`; everything else becomes `_`.
    public static func objectID(_ text: String) -> String {
        String(text.map { ch -> Character in
            if let a = ch.asciiValue, ch.isLetter || ch.isNumber || a == UInt8(ascii: "_") || a == UInt8(ascii: "-") {
                return Character(Unicode.Scalar(a).properties.lowercaseMapping)
            }
            return "_"
        })
    }
}
