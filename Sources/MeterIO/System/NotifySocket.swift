import Glibc
import MeterCore

/// The service manager's notification socket (systemd's `NOTIFY_SOCKET`, the `sd_notify`
/// protocol written directly, no libsystemd): an `AF_UNIX` datagram socket, each notice one
/// `sendto(2)` to the address the variable names (a path, or with a leading `@` a name in the
/// abstract namespace). `send` never blocks (`MSG_DONTWAIT`): a manager that reads nothing
/// loses notices, the run goes on.
///
/// Thread-safety invariant for `Sendable`: the descriptor and the address never change after
/// `init`; `sendto(2)` on one datagram socket from several threads is safe.
public final class NotifySocket: Sendable {
    private let fd: Int32
    /// The `sockaddr_un` bytes and the length to give `sendto`.
    private let address: [UInt8]
    /// Half of `WATCHDOG_USEC` in seconds when the manager watches this process; else nil.
    public let watchdogInterval: Double?

    /// From this process's environment: nil when `NOTIFY_SOCKET` is not set (or names no
    /// address this protocol reaches); nothing is opened then. The variables are removed from
    /// the environment once read, so the children (hooks, ffmpeg) do not inherit them, as
    /// `sd_notify`'s `unset_environment` does.
    public static func fromEnvironment() -> NotifySocket? {
        let name = ProcessEnvironment.get("NOTIFY_SOCKET")
        let interval = ServiceWatchdog.pingInterval(usec: ProcessEnvironment.get("WATCHDOG_USEC"),
                                                    pid: ProcessEnvironment.get("WATCHDOG_PID"), ourPID: Int(getpid()))
        for variable in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { unsetenv(variable) }
        guard let name else { return nil }
        return NotifySocket(name, watchdogInterval: interval)
    }

    /// `name`: a path (`/run/user/1000/systemd/notify`) or `@name` (abstract namespace).
    public init?(_ name: String, watchdogInterval: Double?) {
        var path = Array(name.utf8)
        guard let first = path.first, first == UInt8(ascii: "/") || first == UInt8(ascii: "@") else { return nil }
        if first == UInt8(ascii: "@") { path[0] = 0 } else { path.append(0) }
        var addr = sockaddr_un()
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard path.count <= capacity else { return nil }
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: path) }
        let length = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + path.count
        address = withUnsafeBytes(of: &addr) { Array($0.prefix(length)) }
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        self.watchdogInterval = watchdogInterval
    }

    deinit { close(fd) }

    /// Sends one notice; false when it could not be sent (no one listens, the queue is full).
    @discardableResult
    public func send(_ notice: ServiceNotice) -> Bool {
        let text = Array(notice.datagram.utf8)
        let sent = text.withUnsafeBytes { bytes in
            address.withUnsafeBytes { addr in
                SystemCall.retryingInterrupted {
                    sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL),
                           addr.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(addr.count))
                }
            }
        }
        return sent == text.count
    }
}
