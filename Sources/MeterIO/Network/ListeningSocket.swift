import Glibc

/// A TCP socket bound and listening on HOST:PORT (`getaddrinfo(3)`, `socket(2)`, `bind(2)`,
/// `listen(2)`), made before the HTTP daemon starts so that a port that cannot be bound is
/// reported with the system's reason (the daemon's own start only says that it failed).
///
/// `SO_REUSEADDR` lets a restarted meter take its port back at once; an IPv6 wildcard (`::`)
/// also takes IPv4 connections. The descriptor is handed to the daemon, which closes it.
///
/// The queue of connections not yet accepted is as long as the system allows (`SOMAXCONN`,
/// capped by `net.core.somaxconn`): with 128, clients reconnecting as the daemon closed them
/// (the 200 half-open connections of the live tests) filled it, the kernel dropped a
/// scraper's SYN (6 to 15 `TcpExtListenOverflows` a run), and the scraper's answer came after
/// TCP's first retransmission, a second later.
public final class ListeningSocket: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `fd` is immutable; after `take()` only the daemon uses it.
    public let fd: Int32
    public let host: String
    /// The port bound (the one asked for, or the system's choice for port 0).
    public let port: Int
    private var taken = false

    /// The address could not be resolved or bound: `reason` in the system's words.
    public struct Failure: Error, Sendable, Equatable {
        public let host: String
        public let port: Int
        public let reason: String
    }

    /// `host` is a name or a numeric address (IPv6 without brackets).
    public init(host: String, port: Int) throws(Failure) {
        self.host = host
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw Failure(host: host, port: port, reason: String(cString: gai_strerror(rc)))
        }
        defer { freeaddrinfo(list) }
        var reason = "no address"
        var ai: UnsafeMutablePointer<addrinfo>? = first
        while let a = ai {
            ai = a.pointee.ai_next
            let s = socket(a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), a.pointee.ai_protocol)
            if s < 0 {
                reason = errnoText()
                continue
            }
            var one: Int32 = 1, zero: Int32 = 0
            setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if a.pointee.ai_family == AF_INET6 {
                setsockopt(s, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size))
            }
            if bind(s, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 && listen(s, SOMAXCONN) == 0 {
                fd = s
                self.port = port == 0 ? Self.boundPort(s) : port
                return
            }
            reason = errnoText()
            close(s)
        }
        throw Failure(host: host, port: port, reason: reason)
    }

    /// Hands the descriptor over (to the daemon, which closes it from then on).
    func take() -> Int32 {
        taken = true
        return fd
    }

    deinit { if !taken { close(fd) } }

    /// The port the system chose (`getsockname(2)`).
    private static func boundPort(_ s: Int32) -> Int {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &len) == 0 }
        }
        guard ok else { return 0 }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        default: return 0
        }
    }
}
