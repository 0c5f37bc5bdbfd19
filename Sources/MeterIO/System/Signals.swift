import Glibc
import MeterCore
import Synchronization

/// Process signals as flags: handlers only store into atomics and post a semaphore
/// (`sem_post(3)`, async-signal-safe); a watcher thread blocked in `sem_wait(3)` acts on them
/// outside the handler:
/// - SIGINT, SIGTERM and SIGHUP (the terminal closed) become `Cancellation.cancel()` of every
///   cancellation `stopCancellation()` made (every command's stop set-up, in this one place),
///   so the layers below see an ordinary cancellation and never read these flags themselves;
/// - SIGTSTP (Ctrl-Z), handled only while a full-screen view is registered with
///   `handleJobControl`: the view gives the terminal back, then the process stops itself with
///   the default action (`raise(3)`), so the shell sees an ordinary stopped job;
/// - SIGCONT: counted (`continuations`, for measuring what a stop cost) and passed to the
///   registered view, which takes the terminal again;
/// - SIGUSR1 and SIGUSR2, handled only once a recording registered with `pauseOnSignals`:
///   `PauseControl.pause()` and `.resume()` (the last one sent wins), for scripts.
/// Installed with `sigaction(2)`; SIGPIPE is ignored so a closed reader shows up as EPIPE.
public enum Signals {
    /// The signal that asked to stop (SIGINT, SIGTERM or SIGHUP), or 0.
    public static var stopSignal: Int32 { stopFlag.load(ordering: .acquiring) }
    public static var stopRequested: Bool { stopSignal != 0 }

    /// True once since the last call when the terminal was resized (SIGWINCH).
    public static func takeResize() -> Bool { resizeFlag.exchange(false, ordering: .acquiringAndReleasing) }

    /// How many times the process was continued after a stop (SIGCONT) so far.
    @Sendable public static func continuations() -> Int { continueCount.load(ordering: .acquiring) }

    /// Ignores SIGPIPE (`signal(2)`), so writes to a closed pipe fail with EPIPE instead.
    public static func ignorePipe() { signal(SIGPIPE, SIG_IGN) }

    /// A command's stop set-up: installs the handlers (the first time) and returns a
    /// cancellation that SIGINT, SIGTERM or SIGHUP fires (at once if one came already). Every
    /// command calls this, once for each thing a stop signal ends.
    public static func stopCancellation() throws -> Cancellation {
        if !handlersInstalled.exchange(true, ordering: .acquiringAndReleasing) { installStopHandlers() }
        let cancellation = Cancellation()
        try cancelOnStop(cancellation)
        return cancellation
    }

    private static let handlersInstalled = Atomic<Bool>(false)

    /// Installs the stop handler (SIGINT, SIGTERM, SIGHUP), the SIGWINCH resize handler and the
    /// SIGCONT counter.
    private static func installStopHandlers() {
        _ = stopFlag.load(ordering: .relaxed)   // initialize the globals before any handler runs
        _ = resizeFlag.load(ordering: .relaxed)
        _ = continueCount.load(ordering: .relaxed)
        _ = terminalStop.load(ordering: .relaxed)
        _ = signalSemaphore
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            install(sig) { sig in
                stopFlag.store(sig, ordering: .releasing)
                sem_post(signalSemaphore)
            }
        }
        install(SIGWINCH) { _ in resizeFlag.store(true, ordering: .releasing) }
        install(SIGCONT) { _ in
            continueCount.add(1, ordering: .releasing)
            sem_post(signalSemaphore)
        }
        // A parent may hand down a mask that blocks these (Foundation's Process launched from a
        // worker thread does); a meter that ignored Ctrl-C and SIGTERM would never finish.
        unblock([SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGCONT])
    }

    /// Cancels `cancellation` on SIGINT, SIGTERM or SIGHUP (at once if one already came).
    /// Needs `stopCancellation()` first; starts the watcher thread on first use.
    private static func cancelOnStop(_ cancellation: Cancellation) throws {
        watched.withLock { $0.append(cancellation) }
        try startWatcher()
        if stopRequested { cancelWatched() }
    }

    /// Pauses `control` on SIGUSR1 and resumes it on SIGUSR2 from now on (without this, both
    /// keep their default action). Needs `stopCancellation()` first.
    public static func pauseOnSignals(_ control: PauseControl) throws {
        _ = pauseRequest.load(ordering: .relaxed)
        pausable.withLock { $0 = control }
        try startWatcher()
        install(SIGUSR1) { _ in
            pauseRequest.store(1, ordering: .releasing)
            sem_post(signalSemaphore)
        }
        install(SIGUSR2) { _ in
            pauseRequest.store(2, ordering: .releasing)
            sem_post(signalSemaphore)
        }
        unblock([SIGUSR1, SIGUSR2])
    }

    /// Handles Ctrl-Z (SIGTSTP) through `view` from now on: the view suspends, the process
    /// stops; on SIGCONT the view resumes. Needs `stopCancellation()` first.
    public static func handleJobControl(_ view: JobControl) throws {
        jobControl.withLock { $0 = view }
        try startWatcher()
        installTerminalStop()
        unblock([SIGTSTP])
    }

    /// Back to the default Ctrl-Z (the view is gone: stop at once, nothing to restore).
    public static func endJobControl() {
        signal(SIGTSTP, SIG_DFL)
        jobControl.withLock { $0 = nil }
    }

    private static func installTerminalStop() {
        install(SIGTSTP) { _ in
            terminalStop.store(true, ordering: .releasing)
            sem_post(signalSemaphore)
        }
    }

    /// Stops the process as Ctrl-Z would have (`raise(SIGTSTP)` with the default action), and
    /// returns once it is continued, with the handler back in place.
    private static func stopProcess() {
        signal(SIGTSTP, SIG_DFL)
        unblock([SIGTSTP])  // on this thread, so the stop happens inside raise
        raise(SIGTSTP)
        if jobControl.withLock({ $0 != nil }) { installTerminalStop() }
    }

    private static func startWatcher() throws {
        guard !watcherStarted.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try OSThread.spawn(role: "pm-signals") {
            var seenContinues = continueCount.load(ordering: .acquiring)
            while true {
                if sem_wait(signalSemaphore) != 0 { continue }  // EINTR
                if stopRequested { cancelWatched() }
                switch pauseRequest.exchange(0, ordering: .acquiringAndReleasing) {
                case 1: pausable.withLock { $0 }?.pause()
                case 2: pausable.withLock { $0 }?.resume()
                default: break
                }
                if terminalStop.exchange(false, ordering: .acquiringAndReleasing) {
                    jobControl.withLock { $0 }?.suspend()
                    stopProcess()
                }
                let continues = continueCount.load(ordering: .acquiring)
                if continues != seenContinues {
                    seenContinues = continues
                    jobControl.withLock { $0 }?.resume()
                }
            }
        }
    }

    private static func cancelWatched() {
        let due = watched.withLock { list -> [Cancellation] in defer { list.removeAll() }; return list }
        for c in due { c.cancel() }
    }

    private static func unblock(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for sig in signals { sigaddset(&set, sig) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    private static func install(_ sig: Int32, _ handler: @convention(c) (Int32) -> Void) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: the call the signal interrupted returns EINTR (SystemCall)
        sigaction(sig, &action, nil)
    }
}

private let stopFlag = Atomic<Int32>(0)
private let resizeFlag = Atomic<Bool>(false)
private let continueCount = Atomic<Int>(0)
/// Set by the SIGTSTP handler, taken by the watcher.
private let terminalStop = Atomic<Bool>(false)
private let watcherStarted = Atomic<Bool>(false)
private let watched = Mutex<[Cancellation]>([])
private let jobControl = Mutex<JobControl?>(nil)
/// The last pause request (1: SIGUSR1 pause, 2: SIGUSR2 resume), taken by the watcher.
private let pauseRequest = Atomic<Int32>(0)
private let pausable = Mutex<PauseControl?>(nil)
/// Posted by the handlers, waited on by the watcher thread (`sem_init(3)`, process-private).
nonisolated(unsafe) private let signalSemaphore: UnsafeMutablePointer<sem_t> = {
    let s = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    sem_init(s, 0, 0)
    return s
}()
