import Glibc
import MeterCore
import Synchronization

/// Process signals as flags: handlers only store into atomics and post a semaphore
/// (`sem_post(3)`, async-signal-safe); a watcher thread blocked in `sem_wait(3)` turns a stop
/// signal into `Cancellation.cancel()` for every run registered with `cancelOnStop`, so the
/// layers below see an ordinary cancellation and never read these flags themselves.
/// Installed with `sigaction(2)`; SIGPIPE is ignored so a closed reader shows up as EPIPE.
public enum Signals {
    /// The signal that asked to stop (SIGINT or SIGTERM), or 0.
    public static var stopSignal: Int32 { stopFlag.load(ordering: .acquiring) }
    public static var stopRequested: Bool { stopSignal != 0 }

    /// True once since the last call when the terminal was resized (SIGWINCH).
    public static func takeResize() -> Bool { resizeFlag.exchange(false, ordering: .acquiringAndReleasing) }

    /// Ignores SIGPIPE (`signal(2)`), so writes to a closed pipe fail with EPIPE instead.
    public static func ignorePipe() { signal(SIGPIPE, SIG_IGN) }

    /// Installs the SIGINT/SIGTERM stop handler and the SIGWINCH resize handler.
    public static func installStopHandlers() {
        _ = stopFlag.load(ordering: .relaxed)   // initialize the globals before any handler runs
        _ = resizeFlag.load(ordering: .relaxed)
        _ = stopSemaphore
        install(SIGINT) { sig in
            stopFlag.store(sig, ordering: .releasing)
            sem_post(stopSemaphore)
        }
        install(SIGTERM) { sig in
            stopFlag.store(sig, ordering: .releasing)
            sem_post(stopSemaphore)
        }
        install(SIGWINCH) { _ in resizeFlag.store(true, ordering: .releasing) }
        // A parent may hand down a mask that blocks these (Foundation's Process launched from a
        // worker thread does); a meter that ignored Ctrl-C and SIGTERM would never finish.
        var set = sigset_t()
        sigemptyset(&set)
        for sig in [SIGINT, SIGTERM, SIGWINCH] { sigaddset(&set, sig) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Cancels `cancellation` on SIGINT or SIGTERM (at once if one already came). Needs
    /// `installStopHandlers()`; starts the watcher thread on first use.
    public static func cancelOnStop(_ cancellation: Cancellation) throws {
        let startWatcher = watched.withLock { list -> Bool in
            list.append(cancellation)
            return !watcherStarted.exchange(true, ordering: .acquiringAndReleasing)
        }
        if startWatcher {
            try OSThread.spawn(role: "pm-signals") {
                while true {
                    if sem_wait(stopSemaphore) != 0 { continue }  // EINTR
                    let due = watched.withLock { list -> [Cancellation] in defer { list.removeAll() }; return list }
                    for c in due { c.cancel() }
                }
            }
        }
        if stopRequested {
            let due = watched.withLock { list -> [Cancellation] in defer { list.removeAll() }; return list }
            for c in due { c.cancel() }
        }
    }

    private static func install(_ sig: Int32, _ handler: @convention(c) (Int32) -> Void) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: blocking reads return EINTR and see the flag
        sigaction(sig, &action, nil)
    }
}

private let stopFlag = Atomic<Int32>(0)
private let resizeFlag = Atomic<Bool>(false)
private let watcherStarted = Atomic<Bool>(false)
private let watched = Mutex<[Cancellation]>([])
/// Posted by the stop handlers, waited on by the watcher thread (`sem_init(3)`, process-private).
nonisolated(unsafe) private let stopSemaphore: UnsafeMutablePointer<sem_t> = {
    let s = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    sem_init(s, 0, 0)
    return s
}()
