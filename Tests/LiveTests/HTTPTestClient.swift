import Foundation
import Glibc

// A plain-socket HTTP/1.1 client for the network tests: requests read to the end, and an
// event-stream reader that decodes chunked transfer encoding and SSE framing itself, so what
// the server sends is checked byte for byte rather than through a library's interpretation.

struct HTTPReply {
    var status: Int
    var headers: [String: String]  // names in lower case
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

enum HTTP {
    /// A port nobody listens on now (bound to port 0, read back, closed).
    static func freePort() throws -> Int {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(s) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        a.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(s, $0, len) == 0 && getsockname(s, $0, &len) == 0 }
        }
        guard ok else { throw LiveSetupError("cannot bind a test socket: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: a.sin_port))
    }

    /// A connected socket to 127.0.0.1:`port` (nil when refused); `receiveBuffer` shrinks
    /// SO_RCVBUF before connecting (a client that stalls sooner); `from`: the client's own
    /// address (Linux routes all of 127.0.0.0/8 to lo, so 127.0.0.2 is another client).
    static func connect(port: Int, receiveBuffer: Int32? = nil, from: String? = nil) -> Int32? {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        if var size = receiveBuffer { setsockopt(s, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        if let from, !bind(s, to: from) { close(s); return nil }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        a.sin_port = UInt16(port).bigEndian
        let ok = withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        if !ok { close(s); return nil }
        return s
    }

    /// Binds `s` to `address`, port chosen by the system (bind before connect).
    static func bind(_ s: Int32, to address: String) -> Bool {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr(address)
        a.sin_port = 0
        return withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    static func send(_ s: Int32, _ text: String, body: [UInt8] = []) {
        let bytes = Array(text.utf8) + body
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.send(s, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            done += n
        }
    }

    /// Reads from `s` with a deadline; nil at end of file or error, [] on timeout.
    static func receive(_ s: Int32, until deadline: Double) -> [UInt8]? {
        var pfd = pollfd(fd: s, events: Int16(POLLIN), revents: 0)
        let left = deadline - monotonic()
        guard left > 0, poll(&pfd, 1, Int32(left * 1000) + 1) > 0 else { return [] }
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = buf.withUnsafeMutableBytes { recv(s, $0.baseAddress, 65536, 0) }
        return n > 0 ? Array(buf[0..<n]) : nil
    }

    /// One request (`Connection: close`), read to the end.
    static func request(port: Int, _ path: String, method: String = "GET", body: [UInt8]? = nil,
                        timeout: Double = 10, from: String? = nil) throws -> HTTPReply {
        guard let s = connect(port: port, from: from) else { throw LiveSetupError("nothing listens on 127.0.0.1:\(port)") }
        defer { close(s) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        send(s, head + "\r\n", body: body ?? [])
        var raw: [UInt8] = []
        let deadline = monotonic() + timeout
        // To the end of the stream, or of the body its Content-Length announces (a server may
        // keep the connection open after it).
        while monotonic() < deadline, let chunk = receive(s, until: deadline) {
            raw += chunk
            if let (reply, start) = try? parseHead(raw), let length = reply.headers["content-length"].flatMap({ Int($0) }),
               raw.count - start >= length || method == "HEAD" { break }
        }
        var reply = try parseHead(raw)
        let rest = Array(raw[reply.bodyStart...])
        reply.reply.body = reply.reply.headers["transfer-encoding"] == "chunked" ? try dechunk(rest) : rest
        return reply.reply
    }

    static func parseHead(_ raw: [UInt8]) throws -> (reply: HTTPReply, bodyStart: Int) {
        let sep: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, raw.count - 3)).first(where: { Array(raw[$0..<$0 + 4]) == sep }) else {
            throw LiveSetupError("no complete HTTP header in \(raw.count) bytes: \(String(decoding: raw.prefix(200), as: UTF8.self))")
        }
        let lines = String(decoding: raw[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw LiveSetupError("bad status line \(lines[0])") }
        var headers: [String: String] = [:]
        for l in lines.dropFirst() {
            guard let colon = l.firstIndex(of: ":") else { continue }
            headers[l[..<colon].lowercased()] = l[l.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (HTTPReply(status: status, headers: headers, body: []), end + 4)
    }

    /// A whole chunked body decoded.
    static func dechunk(_ raw: [UInt8]) throws -> [UInt8] {
        var d = Dechunker()
        let out = d.feed(raw)
        return out
    }

    /// JSON of a reply's body.
    static func json(_ reply: HTTPReply) throws -> [String: Any] {
        guard let o = try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any] else {
            throw LiveSetupError("not a JSON object: \(reply.text.prefix(300))")
        }
        return o
    }
}

/// Incremental chunked transfer decoding.
struct Dechunker {
    private var pending: [UInt8] = []
    private var left = 0       // bytes of the current chunk still to come
    private var skipCRLF = 0   // the CRLF after a chunk's data
    private(set) var ended = false

    mutating func feed(_ bytes: [UInt8]) -> [UInt8] {
        pending += bytes
        var out: [UInt8] = []
        var i = 0
        while i < pending.count && !ended {
            if skipCRLF > 0 {
                let k = min(skipCRLF, pending.count - i)
                i += k
                skipCRLF -= k
                continue
            }
            if left > 0 {
                let k = min(left, pending.count - i)
                out += pending[i..<i + k]
                i += k
                left -= k
                if left == 0 { skipCRLF = 2 }
                continue
            }
            guard let nl = pending[i...].firstIndex(of: 10) else { break }
            let sizeText = String(decoding: pending[i..<nl], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) ?? 0
            i = nl + 1
            if size == 0 { ended = true } else { left = size }
        }
        pending.removeFirst(i)
        return out
    }
}

/// One Server-Sent Event (or a comment line, `type` ":").
struct SSEEvent {
    var type: String
    var data: String
}

/// A GET of an event stream on a plain socket, read event by event.
final class SSEStream {
    let socket: Int32
    private(set) var status = 0
    private(set) var headers: [String: String] = [:]
    private var chunked = false
    private var dechunker = Dechunker()
    private var text: [UInt8] = []
    private var headRaw: [UInt8] = []
    private(set) var closed = false

    /// Connects and sends the request; `readHead` waits for the status line and headers.
    init(port: Int, path: String = "/events", receiveBuffer: Int32? = nil, readHead: Bool = true, from: String? = nil) throws {
        guard let s = HTTP.connect(port: port, receiveBuffer: receiveBuffer, from: from) else {
            throw LiveSetupError("nothing listens on 127.0.0.1:\(port)")
        }
        socket = s
        HTTP.send(s, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
        if readHead { try self.readHead(timeout: 10) }
    }

    deinit { close(socket) }

    func readHead(timeout: Double) throws {
        let deadline = monotonic() + timeout
        while status == 0 {
            guard let chunk = HTTP.receive(socket, until: deadline) else { closed = true; break }
            if chunk.isEmpty && monotonic() >= deadline { break }
            headRaw += chunk
            if let (reply, start) = try? HTTP.parseHead(headRaw) {
                status = reply.status
                headers = reply.headers
                chunked = reply.headers["transfer-encoding"] == "chunked"
                absorb(Array(headRaw[start...]))
            }
        }
        guard status != 0 else { throw LiveSetupError("no response head within \(timeout) s") }
    }

    private func absorb(_ bytes: [UInt8]) {
        text += chunked ? dechunker.feed(bytes) : bytes
    }

    /// The next event or comment; nil on timeout or once the stream ended.
    func next(timeout: Double) -> SSEEvent? {
        let deadline = monotonic() + timeout
        while true {
            if let e = takeEvent() { return e }
            if closed || dechunker.ended { return nil }
            guard let chunk = HTTP.receive(socket, until: deadline) else { closed = true; continue }
            if chunk.isEmpty { return nil }
            absorb(chunk)
        }
    }

    /// Reads until end of stream (true) or `timeout` (false), discarding.
    func waitForEnd(timeout: Double) -> Bool {
        let deadline = monotonic() + timeout
        while !closed && !dechunker.ended && monotonic() < deadline {
            guard let chunk = HTTP.receive(socket, until: deadline) else { closed = true; break }
            absorb(chunk)
        }
        return closed || dechunker.ended
    }

    private func takeEvent() -> SSEEvent? {
        guard let end = (0..<max(0, text.count - 1)).first(where: { text[$0] == 10 && text[$0 + 1] == 10 }) else { return nil }
        let block = String(decoding: text[..<end], as: UTF8.self)
        text.removeFirst(end + 2)
        var e = SSEEvent(type: "message", data: "")
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") { return SSEEvent(type: ":", data: String(line.dropFirst())) }
            if line.hasPrefix("event: ") { e.type = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { e.data += String(line.dropFirst(6)) }
            if line.hasPrefix("retry: ") { e.type = "retry"; e.data = String(line.dropFirst(7)) }
        }
        return e
    }
}
