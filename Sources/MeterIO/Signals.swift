import Glibc
import Synchronization

/// Process signals as flags: handlers only store into atomics (async-signal-safe); the loops
/// poll them, stop, drain, finish files and restore the terminal on their own thread.
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
        install(SIGINT) { sig in stopFlag.store(sig, ordering: .releasing) }
        install(SIGTERM) { sig in stopFlag.store(sig, ordering: .releasing) }
        install(SIGWINCH) { _ in resizeFlag.store(true, ordering: .releasing) }
        // A parent may hand down a mask that blocks these (Foundation's Process launched from a
        // worker thread does); a meter that ignored Ctrl-C and SIGTERM would never finish.
        var set = sigset_t()
        sigemptyset(&set)
        for sig in [SIGINT, SIGTERM, SIGWINCH] { sigaddset(&set, sig) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
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
