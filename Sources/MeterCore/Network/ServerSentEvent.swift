/// Server-Sent Events framing of NDJSON lines (the /events stream, `text/event-stream`).
///
/// One line becomes one event: `event:` the line's `type`, `data:` the line itself (NDJSON
/// lines hold no line break, so one `data:` field carries it whole), then a blank line.
public enum ServerSentEvent {
    public static let contentType = "text/event-stream; charset=utf-8"

    /// The stream's opening: how long a browser waits before reconnecting (milliseconds).
    public static func preamble(retryMilliseconds: Int) -> [UInt8] {
        Array("retry: \(retryMilliseconds)\n\n".utf8)
    }

    /// A comment that keeps idle connections (and proxies) alive; clients ignore it.
    public static let keepalive: [UInt8] = Array(": keepalive\n\n".utf8)

    /// The event for one NDJSON line (with or without its trailing newline).
    public static func event(line: [UInt8]) -> [UInt8] {
        let body = line.last == 10 ? line.dropLast() : line[...]
        var out: [UInt8] = []
        out.reserveCapacity(body.count + 32)
        out += Array("event: ".utf8)
        out += type(of: body)
        out += Array("\ndata: ".utf8)
        out += body
        out += [10, 10]
        return out
    }

    /// The value of the line's leading `"type"` field (every NDJSON line starts with it), or
    /// `message` (the SSE default) for anything else.
    public static func type(of line: ArraySlice<UInt8>) -> [UInt8] {
        let prefix = Array("{\"type\":\"".utf8)
        guard line.count > prefix.count, line.starts(with: prefix) else { return Array("message".utf8) }
        let rest = line.dropFirst(prefix.count)
        guard let close = rest.firstIndex(of: UInt8(ascii: "\"")) else { return Array("message".utf8) }
        return Array(rest[..<close])
    }
}
