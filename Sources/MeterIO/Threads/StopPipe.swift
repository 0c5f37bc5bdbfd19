import Glibc
import MeterCore

/// A stop request as a descriptor: a pipe that a `Cancellation` writes one byte to, so that a
/// wait in `poll(2)` (on a child's output, a list on stdin, or on nothing but time) ends at
/// once when the run is stopped, with no timed polling.
///
/// The wake-up registered with the cancellation holds this object, so the pipe outlives any
/// write to it; the owner calls `release()` when its waits are over (its `deinit`), after which
/// the pipe closes as soon as a wake-up running at that moment has finished.
final class StopPipe: @unchecked Sendable {
    // Invariant for @unchecked Sendable: the descriptors are set once in `init` and closed in
    // `deinit`; the only call from another thread is the wake-up's `write(2)`.
    private let readEnd: Int32
    private let writeEnd: Int32
    private let cancellation: Cancellation
    private var registration: Cancellation.Registration?

    /// What a wait ended on.
    enum Outcome: Equatable {
        /// The descriptor waited on is readable (data, its end, or an error to read).
        case ready
        /// The time given ran out.
        case timedOut
        /// The run was stopped.
        case stopped
    }

    /// Nil when no pipe can be made (out of descriptors): the caller then waits as if no stop
    /// could come, which `Cancellation.isCancelled` checks between waits still catch.
    init?(_ cancellation: Cancellation) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        (readEnd, writeEnd) = (fds[0], fds[1])
        self.cancellation = cancellation
        registration = cancellation.onCancel { [self] in
            var byte: UInt8 = 1
            _ = Glibc.write(writeEnd, &byte, 1)
        }
    }

    /// Unregisters the wake-up; the pipe closes once nothing holds it.
    func release() {
        if let registration { cancellation.remove(registration) }
        registration = nil
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    var isStopped: Bool { cancellation.isCancelled }

    /// Waits until `fd` is readable, `seconds` pass (nil: no limit), or the run is stopped.
    func wait(for fd: Int32, seconds: Double?) -> Outcome {
        if isStopped { return .stopped }
        var fds = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        let count = fd >= 0 ? 2 : 1
        let deadline = seconds.map { monotonicSeconds() + max(0, $0) }
        while true {
            let timeout = deadline.map { Int32(max(0, min(Double(Int32.max / 2), ($0 - monotonicSeconds()) * 1000).rounded(.up))) } ?? -1
            let r = poll(&fds, nfds_t(count), timeout)
            if r < 0 && errno == EINTR { continue }
            if fds[0].revents != 0 || isStopped { return .stopped }
            if r < 0 { return .ready }  // poll itself failed: the caller's read says why
            if r > 0 && count == 2 && fds[1].revents != 0 { return .ready }
            if r <= 0, let deadline, monotonicSeconds() >= deadline { return .timedOut }
        }
    }

    /// Sleeps `seconds`; false when the run was stopped meanwhile.
    func sleep(seconds: Double) -> Bool { wait(for: -1, seconds: seconds) != .stopped }
}
