import MeterCore
import MeterIO

/// `--listen [HOST:]PORT` (monitor, record): the address of the monitoring server, its
/// wording, and binding it before capture starts.
enum ListenOptions {
    static let specs = [OptionSpec("--listen")]
    /// Where the server listens unless a host is given: this machine only.
    static let defaultHost = "127.0.0.1"

    /// `PORT`, `HOST:PORT` or `[IPV6]:PORT` as host and port (the IPv6 host without brackets).
    static func address(_ raw: String) throws(PulsemeterError) -> (host: String, port: Int) {
        let bad = PulsemeterError(.usage, "--listen '\(raw)': give [HOST:]PORT with a port from 1 to 65535, e.g. 8080, 0.0.0.0:8080 or [::]:8080")
        var host = defaultHost
        var portText = Substring(raw)
        if raw.hasPrefix("[") {
            guard let close = raw.firstIndex(of: "]"), raw[raw.index(after: close)...].hasPrefix(":") else { throw bad }
            host = String(raw[raw.index(after: raw.startIndex)..<close])
            portText = raw[raw.index(close, offsetBy: 2)...]
        } else if let colon = raw.lastIndex(of: ":") {
            host = String(raw[..<colon])
            portText = raw[raw.index(after: colon)...]
            if host.contains(":") { throw bad }  // an IPv6 address needs its brackets
        }
        guard !host.isEmpty, !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = Int(portText), (1...65535).contains(port) else { throw bad }
        return (host, port)
    }

    /// HOST:PORT as a user writes it (IPv6 in brackets).
    static func display(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The bound socket for `--listen`, or nil without it; a port that cannot be bound is
    /// exit 69 with the address and the system's reason.
    static func bind(_ a: ParsedArguments) throws(PulsemeterError) -> ListeningSocket? {
        guard let raw = a.string("listen") else { return nil }
        let (host, port) = try address(raw)
        do {
            return try ListeningSocket(host: host, port: port)
        } catch {
            throw unavailable(error)
        }
    }

    static func unavailable(_ e: ListeningSocket.Failure) -> PulsemeterError {
        PulsemeterError(.unavailable, "cannot listen on \(display(host: e.host, port: e.port)): \(e.reason)")
    }
}
