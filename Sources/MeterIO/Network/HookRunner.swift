import Glibc
import MeterCore
import Synchronization

/// Runs the user's hook (`--exec CMD`) for each `HookLine`: `/bin/sh -c CMD` through
/// `ChildProcess` (posix_spawn), the line on its stdin, its variables added to the environment,
/// its stdout and stderr on pulsemeter's stderr (never in the NDJSON), on threads of its own.
///
/// - `submit` never blocks (the analysis calls it): at most `maxRunning` hooks run at once
///   and `maxWaiting` wait; a line beyond that is dropped and counted.
/// - Everything said about hooks (a failure, dropping) goes through `report`, from the hook
///   threads and `finish`, never from `submit`'s caller: a stderr that blocks cannot hold up
///   the meter either.
/// - `finish` ends the run's hooks: those waiting still run and those running may finish
///   within the grace period; then the rest are ended (SIGTERM to each hook's process group,
///   which holds what its shell started; SIGKILL a second later), so no hook outlives
///   pulsemeter. Hooks run in their own process groups (a Ctrl-C on the terminal reaches
///   pulsemeter alone, which then ends them itself).
///
/// The process must ignore SIGPIPE (`Signals.ignorePipe`, as the command line does): a hook
/// that exits before reading its line is then an EPIPE, which is no error.
///
/// Thread-safety invariant for `@unchecked Sendable`: every mutable field is inside `state`
/// (a `Locked`); a running `ChildProcess` is reaped only by its worker, after it has left
/// `state.running`, so `finish` signals only children that are not yet reaped.
public final class HookRunner: @unchecked Sendable {
    public static let maxRunning = 4
    public static let maxWaiting = 64
    public static let shell = "/bin/sh"

    /// What the command line words on stderr.
    public enum Report: Sendable {
        /// The hook for `line` exited with a non-zero status or was killed by a signal.
        case failed(HookLine, ChildProcess.Termination)
        /// The hook for `line` was still running after the grace period and was ended.
        case ended(HookLine)
        /// `/bin/sh` could not be started for `line`.
        case couldNotStart(HookLine, reason: String)
        /// The first line dropped because `maxRunning` run and `maxWaiting` wait. A run reports
        /// dropping once: this, or at the end `dropped`.
        case dropping
        /// At the end: how many lines were dropped, when none was dropped before the end (those
        /// still waiting when the grace period ran out).
        case dropped(Int)
    }

    public let command: String
    private let report: @Sendable (Report) -> Void
    private let baseEnvironment: [String]

    private struct State {
        var waiting: [HookLine] = []
        var head = 0  // first waiting line in `waiting`
        var running: [Int: ChildProcess] = [:]
        var nextID = 0
        var dropped = 0
        var dropWarningDue = false
        var warned = false   // `dropping` was due: the end says nothing more
        var closing = false  // no more lines (finish was called)
        var stopped = false  // the grace period is over: start nothing, end what runs
        var waitingCount: Int { waiting.count - head }
    }
    private let state = Locked(State())
    private let work = Wakeup()       // one post per queued line (and wake-ups to leave)
    private let progress = Wakeup()   // posted when a hook ends or a worker leaves
    private let workersLeft = Atomic<Int>(0)

    /// Starts the `maxRunning` hook threads. `command` goes to `/bin/sh -c` as typed.
    public init(command: String, report: @escaping @Sendable (Report) -> Void) throws(OSThread.StartError) {
        self.command = command
        self.report = report
        baseEnvironment = ProcessEnvironment.all().filter { !$0.hasPrefix(HookLine.variablePrefix) }
        for _ in 0..<Self.maxRunning {
            workersLeft.add(1, ordering: .releasing)
            do {
                try OSThread.spawn(role: "pm-hook") { [self] in worker() }
            } catch {
                workersLeft.subtract(1, ordering: .releasing)
                finish(grace: 0)  // the threads started leave
                throw error
            }
        }
    }

    /// Queues `line` for a hook, or drops and counts it when `maxWaiting` already wait.
    /// Never blocks for longer than a lock held for a few assignments.
    public func submit(_ line: HookLine) {
        let queued = state.withLock { s -> Bool in
            guard !s.closing else { return false }
            guard s.waitingCount < Self.maxWaiting else {
                s.dropped += 1
                if s.dropped == 1 { s.dropWarningDue = true; s.warned = true }
                return s.dropped == 1  // wake a worker to say so
            }
            if s.head > 64 {
                s.waiting.removeFirst(s.head)
                s.head = 0
            }
            s.waiting.append(line)
            return true
        }
        if queued { work.signal() }
    }

    /// Lines dropped so far.
    public var droppedCount: Int { state.withLock { $0.dropped } }

    /// After the run: lets the waiting and running hooks finish for up to `grace` seconds,
    /// then ends those still running (SIGTERM to their groups, SIGKILL after `kill` seconds)
    /// and drops those not started. Returns once every hook thread has left.
    public func finish(grace: Double = 2, kill: Double = 1) {
        state.withLock { $0.closing = true }
        for _ in 0..<Self.maxRunning { work.signal() }
        let deadline = monotonicSeconds() + grace
        func idle() -> Bool { workersLeft.load(ordering: .acquiring) == 0 }
        while !idle() && monotonicSeconds() < deadline { progress.wait(seconds: deadline - monotonicSeconds()) }
        if !idle() {
            signalRunning(SIGTERM, stopping: true)
            let hard = monotonicSeconds() + kill
            while !idle() && monotonicSeconds() < hard { progress.wait(seconds: hard - monotonicSeconds()) }
            signalRunning(SIGKILL, stopping: false)
            while !idle() { progress.wait(seconds: 0.1) }
        }
        let (dropped, warned) = state.withLock { ($0.dropped, $0.warned) }
        if dropped > 0 && !warned { report(.dropped(dropped)) }
    }

    private func signalRunning(_ sig: Int32, stopping: Bool) {
        state.withLock { s in
            if stopping {
                s.stopped = true
                s.dropped += s.waitingCount
                s.waiting.removeAll()
                s.head = 0
            }
            for child in s.running.values { child.signalGroup(sig) }
        }
    }

    // MARK: hook threads

    private func worker() {
        defer {
            workersLeft.subtract(1, ordering: .releasing)
            progress.signal()
        }
        while true {
            work.wait()
            let (line, warn, leave) = state.withLock { s -> (HookLine?, Bool, Bool) in
                let warn = s.dropWarningDue
                s.dropWarningDue = false
                guard !s.stopped, s.waitingCount > 0 else { return (nil, warn, s.closing || s.stopped) }
                let line = s.waiting[s.head]
                s.head += 1
                return (line, warn, false)
            }
            if warn { report(.dropping) }
            if let line { run(line) }
            if leave { return }
        }
    }

    private func run(_ line: HookLine) {
        let env = baseEnvironment + line.environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let child: ChildProcess
        do {
            child = try ChildProcess(executable: Self.shell, arguments: ["-c", command], stdin: .pipe,
                                     stdout: .descriptor(2), stderr: .descriptor(2), environment: env)
        } catch {
            report(.couldNotStart(line, reason: error.reason))
            return
        }
        let id = state.withLock { s -> Int in
            defer { s.nextID += 1 }
            s.running[s.nextID] = child
            if s.stopped { child.signalGroup(SIGTERM) }
            return s.nextID
        }
        // A line is far smaller than a pipe holds: this never waits on a hook that does not
        // read; EPIPE (it exited first) is no error of ours.
        _ = line.line.withUnsafeBytes { child.writeToStdin($0) }
        child.closeStdin()
        child.waitUntilExited()
        let stopped = state.withLock { s -> Bool in
            s.running[id] = nil
            return s.stopped
        }
        let end = child.wait()
        progress.signal()
        if !end.isCleanExit { report(stopped ? .ended(line) : .failed(line, end)) }
    }
}
