import Synchronization

/// A request to stop, passed down to whatever runs long (a reader, a session, a handoff).
///
/// Only the command line decides when to cancel (Ctrl-C, SIGTERM); the layers below take a
/// `Cancellation` as a parameter, check `isCancelled` between steps, and register a wake-up
/// (`onCancel`) for any wait they block in, so cancelling never needs a timed poll. A wait
/// that ends before the cancellation does `remove`s its wake-up, so one cancellation can
/// outlive many of them (a process's Ctrl-C over many inputs).
public final class Cancellation: Sendable {
    /// A wake-up registered with `onCancel`, for `remove`.
    public struct Registration: Sendable, Equatable {
        fileprivate let id: Int
    }

    private let flag = Atomic<Bool>(false)
    /// The registered wake-ups in registration order, and the next registration's id.
    private let handlers = Mutex<(next: Int, wakes: [(id: Int, wake: @Sendable () -> Void)])>((0, []))
    /// The cancellation this one follows (`init(following:)`) and its wake-up there.
    private let parent: Cancellation?
    private let link = Mutex<Registration?>(nil)

    public init() { parent = nil }

    /// A cancellation cancelled with `parent` and also on its own (a part of a run that can
    /// stop alone: a live source whose sink failed). Its wake-up leaves `parent` with it.
    public init(following parent: Cancellation) {
        self.parent = parent
        let registration = parent.onCancel { [weak self] in self?.cancel() }
        link.withLock { $0 = registration }
    }

    deinit {
        if let parent, let registration = link.withLock({ $0 }) { parent.remove(registration) }
    }

    public var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// The wake-ups registered and not removed (tests: nothing is kept once its wait is over).
    public var registered: Int { handlers.withLock { $0.wakes.count } }

    /// Sets the flag, then runs every registered wake-up once (on the caller's thread).
    public func cancel() {
        guard !flag.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let pending = handlers.withLock { h in
            defer { h.wakes.removeAll() }
            return h.wakes.map(\.wake)
        }
        for wake in pending { wake() }
    }

    /// Runs `wake` when cancelled (at once when already cancelled). `wake` must not block.
    @discardableResult
    public func onCancel(_ wake: @escaping @Sendable () -> Void) -> Registration {
        let (registration, runNow) = handlers.withLock { h -> (Registration, Bool) in
            defer { h.next += 1 }
            if flag.load(ordering: .acquiring) { return (Registration(id: h.next), true) }
            h.wakes.append((h.next, wake))
            return (Registration(id: h.next), false)
        }
        if runNow { wake() }
        return registration
    }

    /// Forgets a wake-up whose wait is over (and what it holds); nothing if it already ran.
    public func remove(_ registration: Registration) {
        handlers.withLock { h in h.wakes.removeAll { $0.id == registration.id } }
    }
}
