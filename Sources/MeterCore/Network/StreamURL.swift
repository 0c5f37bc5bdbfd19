/// A network stream's address as typed (`--url`) and the form that is ever shown: the same
/// without its password (`http://user:pw@host/x` shows as `http://user@host/x`). The typed
/// form goes to the decoder only, never on a command line (where `ps` shows it).
public struct StreamURL: Sendable, Equatable {
    /// As typed, password and all.
    public let full: String
    /// Without the password: the start line's `source`, and every message.
    public let shown: String
    /// The password ("" when there is none).
    public let password: String

    /// Nil when `text` is no `scheme://...` address or holds a control character (it could
    /// not pass to the decoder as one line).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }),
              let sep = Self.find(Array("://".utf8), in: bytes, from: 0), sep > 0,
              bytes[0..<sep].allSatisfy({ Self.isSchemeByte($0) }) else { return nil }
        full = text
        let authorityStart = sep + 3
        let authorityEnd = bytes[authorityStart...].firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) ?? bytes.count
        let authority = bytes[authorityStart..<authorityEnd]
        guard let at = authority.lastIndex(of: UInt8(ascii: "@")),
              let colon = authority[..<at].firstIndex(of: UInt8(ascii: ":")) else {
            shown = text
            password = ""
            return
        }
        password = String(decoding: bytes[(colon + 1)..<at], as: UTF8.self)
        shown = String(decoding: bytes[..<colon] + bytes[at...], as: UTF8.self)
    }

    /// `text` (a decoder's message) with the typed address shown without its password, and
    /// the password itself nowhere.
    public func redact(_ text: String) -> String {
        guard !password.isEmpty else { return text }
        var out = Self.replacing(Array(full.utf8), with: Array(shown.utf8), in: Array(text.utf8))
        out = Self.replacing(Array((":" + password + "@").utf8), with: Array("@".utf8), in: out)
        out = Self.replacing(Array(password.utf8), with: Array("***".utf8), in: out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func isSchemeByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-")
            || b == UInt8(ascii: ".")
    }

    private static func find(_ needle: [UInt8], in hay: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count, start <= hay.count - needle.count else { return nil }
        for i in start...(hay.count - needle.count) where hay[i] == needle[0] && Array(hay[i..<(i + needle.count)]) == needle {
            return i
        }
        return nil
    }

    private static func replacing(_ target: [UInt8], with replacement: [UInt8], in hay: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while let j = find(target, in: hay, from: i) {
            out += hay[i..<j] + replacement
            i = j + target.count
        }
        return out + hay[i...]
    }
}
