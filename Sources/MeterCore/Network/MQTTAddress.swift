/// Where `--mqtt` publishes: `mqtt[s]://[USER@]HOST[:PORT]/PREFIX`. The password never comes
/// in the address (it would show in `ps`): a `USER:PASSWORD@` form is refused.
public struct MQTTAddress: Sendable, Equatable {
    public var tls: Bool
    public var user: String?
    public var host: String
    public var port: Int
    /// The topics' prefix, without a leading or trailing `/`.
    public var prefix: String

    public enum Problem: Error, Equatable {
        /// Not `mqtt://` or `mqtts://`.
        case scheme
        /// `USER:PASSWORD@`: a password in the address.
        case password
        /// No host, or a port that is no number in 1...65535.
        case hostOrPort
        /// No prefix, or one holding `+`, `#`, an empty level or a control character.
        case prefix
    }

    public static func parse(_ text: String) -> Result<MQTTAddress, Problem> {
        let tls: Bool
        let rest: Substring
        if text.hasPrefix("mqtts://") { tls = true; rest = text.dropFirst(8) }
        else if text.hasPrefix("mqtt://") { tls = false; rest = text.dropFirst(7) }
        else { return .failure(.scheme) }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<slash]
        let prefix = slash < rest.endIndex ? String(rest[rest.index(after: slash)...]) : ""
        var user: String?
        if let at = authority.lastIndex(of: "@") {
            let u = authority[..<at]
            if u.contains(":") { return .failure(.password) }
            user = String(u)
            authority = authority[authority.index(after: at)...]
        }
        var host = String(authority), port = tls ? 8883 : 1883
        if let colon = authority.lastIndex(of: ":") {
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else {
                return .failure(.hostOrPort)
            }
            port = p
            host = String(authority[..<colon])
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace }) else { return .failure(.hostOrPort) }
        let trimmed = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        guard !trimmed.isEmpty, !trimmed.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty),
              !trimmed.contains(where: { $0 == "+" || $0 == "#" || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true })
        else { return .failure(.prefix) }
        return .success(MQTTAddress(tls: tls, user: user, host: host, port: port, prefix: trimmed))
    }

    public init(tls: Bool, user: String?, host: String, port: Int, prefix: String) {
        self.tls = tls
        self.user = user
        self.host = host
        self.port = port
        self.prefix = prefix
    }

    /// `HOST:PORT`, as messages name the broker.
    public var broker: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
