import Synchronization

/// A request to stop, passed down to whatever runs long (a reader, a session, a handoff).
///
/// Only the command line decides when to cancel (Ctrl-C, SIGTERM); the layers below take a
/// `Cancellation` as a parameter, check `isCancelled` between steps, and register a wake-up
/// (`onCancel`) for any wait they block in, so cancelling never needs a timed poll.
public final class Cancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    private let handlers = Mutex<[@Sendable () -> Void]>([])

    public init() {}

    public var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Sets the flag, then runs every registered wake-up once (on the caller's thread).
    public func cancel() {
        guard !flag.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let pending = handlers.withLock { h -> [@Sendable () -> Void] in defer { h.removeAll() }; return h }
        for wake in pending { wake() }
    }

    /// Runs `wake` when cancelled (at once when already cancelled). `wake` must not block.
    public func onCancel(_ wake: @escaping @Sendable () -> Void) {
        let runNow = handlers.withLock { h -> Bool in
            if flag.load(ordering: .acquiring) { return true }
            h.append(wake)
            return false
        }
        if runNow { wake() }
    }
}
