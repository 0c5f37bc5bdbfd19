import Glibc

/// A counting wake-up between two threads: a process-private POSIX semaphore (`sem_init(3)`).
///
/// `signal()` (`sem_post`) never blocks, so a real-time thread may call it; `wait()`
/// (`sem_wait`) sleeps in the kernel until signalled, without polling.
final class Wakeup: @unchecked Sendable {
    // Invariant for @unchecked Sendable: the semaphore is only used through sem_* calls, which
    // are thread-safe; it lives as long as the object.
    private let sem = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() { sem_init(sem, 0, 0) }

    deinit {
        sem_destroy(sem)
        sem.deallocate()
    }

    /// Wakes one waiter, or the next `wait` (`sem_post`).
    func signal() { sem_post(sem) }

    /// Sleeps until signalled (`sem_wait`, again after a signal handler ran: EINTR).
    func wait() {
        while sem_wait(sem) != 0 && errno == EINTR {}
    }

    /// Like `wait`, but gives up after `seconds` (`sem_timedwait` on CLOCK_REALTIME); may
    /// return early when a signal handler ran, so callers re-check their condition.
    func wait(seconds: Double) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let ns = Int(now.tv_nsec) + Int(seconds * 1e9)
        var until = timespec(tv_sec: now.tv_sec + ns / 1_000_000_000, tv_nsec: ns % 1_000_000_000)
        _ = sem_timedwait(sem, &until)
    }
}
