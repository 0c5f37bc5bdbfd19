import Glibc

/// The service manager's side of the `sd_notify` protocol, for tests: an `AF_UNIX` datagram
/// socket bound at a path or in the abstract namespace (`@name`), whose address goes into a
/// child's `NOTIFY_SOCKET`; each datagram read with its arrival time (monotonic seconds).
public final class NotifyListener {
    /// What `NOTIFY_SOCKET` takes: the path, or `@name` for the abstract namespace.
    public let address: String
    private let fd: Int32

    public struct Datagram: Sendable, Equatable {
        public let at: Double
        public let text: String
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `address`: a path (a new name; the socket is created there) or `@name`.
    public init(_ address: String) throws {
        self.address = address
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var bytes = Array(address.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 } else { bytes.append(0) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        guard bytes.count <= MemoryLayout.size(ofValue: addr.sun_path) else {
            close(fd)
            throw Failure(description: "\(address) is too long for a socket address")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard r == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "bind \(address): \(reason)")
        }
    }

    deinit { close(fd) }

    /// The next datagram, or nil when none came within `timeout` seconds.
    public func receive(timeout: Double) -> Datagram? {
        let deadline = Wait.now() + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = deadline - Wait.now()
            var watched = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watched, 1, Int32(max(0, left) * 1000))
            if ready > 0 {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n >= 0 { return Datagram(at: Wait.now(), text: String(decoding: buffer[0..<n], as: UTF8.self)) }
            }
            if left <= 0 { return nil }
        }
    }

    /// Datagrams until one satisfies `predicate` (included) or `timeout` seconds pass.
    public func receive(until predicate: (Datagram) -> Bool, timeout: Double) -> (datagrams: [Datagram], matched: Bool) {
        let deadline = Wait.now() + timeout
        var got: [Datagram] = []
        while let d = receive(timeout: max(0, deadline - Wait.now())) {
            got.append(d)
            if predicate(d) { return (got, true) }
        }
        return (got, false)
    }

    /// Every datagram that comes within the next `seconds` (a test whose input is time).
    public func receive(for seconds: Double) -> [Datagram] {
        receive(until: { _ in false }, timeout: seconds).datagrams
    }
}
