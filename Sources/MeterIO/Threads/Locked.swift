import Glibc

/// A value that several threads share, reached only under a `pthread_mutex_t`
/// (`pthread_mutex_lock` / `pthread_mutex_unlock`). The one lock of MeterIO's shared state
/// (the hook runner, the monitoring server, the terminal screen): a pthread mutex rather than
/// Synchronization's `Mutex`, whose futex ThreadSanitizer does not see, so that under
/// `--sanitize=thread` every access the lock guards is checked instead of reported as a race.
///
/// Thread-safety invariant for `@unchecked Sendable`: `value` is read and written only inside
/// `withLock`, between the lock and the unlock.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` on the value with the lock held; keep it to a few assignments.
    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` on a copy of the value outside the lock: reading a large value (rendering
    /// it) without holding its writers back. The copy shares the value's storage (copy on
    /// write) and is dropped under the lock, so a writer that then finds that storage unshared
    /// and changes it in place does so after `body`'s reads, in the lock's order. Dropped
    /// outside it, the runtime's reference count, which ThreadSanitizer does not see, was the
    /// only order between them: CI66 reported /history's read of the frame ring and the next
    /// append into it as a race.
    public func withCopy<Result>(_ body: (Value) -> Result) -> Result {
        withCopy(of: { $0 }, body)
    }

    /// `withCopy` of the part of the value `part` makes under the lock (a field, or one built
    /// from several): only that part's storage is shared with the copy, so writers of the rest
    /// go on changing it in place.
    public func withCopy<Part, Result>(of part: (Value) -> Part, _ body: (Part) -> Result) -> Result {
        var copy: Part? = withLock { part($0) }
        defer { withLock { _ in copy = nil } }
        return body(copy!)
    }
}
