import Glibc
import MeterCore
import Synchronization

/// Runs the user's hook (`--exec CMD`) for each `HookLine`: `/bin/sh -c CMD` through
/// `ChildProcess` (posix_spawn), the line on its stdin, its variables added to the environment,
/// its stdout and stderr on pulsemeter's stderr (never in the NDJSON), on threads of its own.
///
/// - `submit` never blocks (the analysis calls it): at most `maxRunning` hooks run at once
///   and `maxWaiting` wait; a line beyond that is dropped and counted.
/// - Everything said about hooks (a failure, dropping, a stop) goes through `report`, from the
///   hook threads and `finish`, never from `submit`'s caller: a stderr that blocks cannot hold
///   up the meter either.
/// - `finish` ends the run's hooks. At a normal end every hook accepted runs to completion,
///   `maxRunning` at once. After `stop` (the stop signals' cancellation) nothing more starts,
///   the waiting lines are discarded, and the running hooks get the grace period from the stop;
///   then they are ended (SIGTERM to each hook's process group, which holds what its shell
///   started; SIGKILL a second later), so no hook outlives pulsemeter. A stop that comes
///   while `finish` waits at a normal end does the same. Hooks run in their own process
///   groups (a Ctrl-C on the terminal reaches pulsemeter alone, which then ends them itself).
///
/// The process must ignore SIGPIPE (`Signals.ignorePipe`, as the command line does): a hook
/// that exits before reading its line is then an EPIPE, which is no error.
///
/// Thread-safety invariant for `@unchecked Sendable`: every mutable field is inside `state`
/// (a `Locked`) but `stopWake`, set in `init` and read by `finish` only; a running
/// `ChildProcess` is reaped only by its worker, after it has left `state.running`, so the
/// signals `finish` sends reach only children that are not yet reaped.
public final class HookRunner: @unchecked Sendable {
    public static let maxRunning = 4
    public static let maxWaiting = 64
    public static let shell = "/bin/sh"

    /// What the command line words on stderr.
    public enum Report: Sendable {
        /// The hook for `line` exited with a non-zero status or was killed by a signal.
        case failed(HookLine, ChildProcess.Termination)
        /// `/bin/sh` could not be started for `line`.
        case couldNotStart(HookLine, reason: String)
        /// The first line dropped because `maxRunning` run and `maxWaiting` wait; said once
        /// (the total is in `finish`'s `HookTotals`).
        case dropping
        /// After a stop, once: `killed` hooks were still running after the grace period and
        /// were ended, `discarded` were waiting and never ran.
        case stopped(killed: Int, discarded: Int)
    }

    public let command: String
    private let report: @Sendable (Report) -> Void
    private let baseEnvironment: [String]
    private let stop: Cancellation
    private var stopWake: Cancellation.Registration?

    private struct State {
        var waiting: [HookLine] = []
        var head = 0  // first waiting line in `waiting`
        var running: [Int: ChildProcess] = [:]
        var nextID = 0
        /// `killed` counts the discarded lines too.
        var totals = HookTotals()
        var discarded = 0
        var dropWarningDue = false
        var closing = false     // no more lines (finish was called)
        var stoppedAt: Double?  // when the stop came: nothing starts after it
        var killing = false     // the grace period is over: what runs is ended
        var waitingCount: Int { waiting.count - head }
    }
    private let state = Locked(State())
    private let work = Wakeup()       // one post per queued line (and wake-ups to leave)
    private let progress = Wakeup()   // posted when a hook ends, a worker leaves, or the stop comes
    private let workersLeft = Atomic<Int>(0)
    /// What `finish` found, once it has.
    private let settled = Locked<HookTotals?>(nil)

    /// Starts the `maxRunning` hook threads. `command` goes to `/bin/sh -c` as typed; `stop`:
    /// the cancellation the stop signals fire (not one a normal end fires, such as q).
    public init(command: String, stop: Cancellation, report: @escaping @Sendable (Report) -> Void) throws(OSThread.StartError) {
        self.command = command
        self.report = report
        self.stop = stop
        baseEnvironment = ProcessEnvironment.all().filter { !$0.hasPrefix(HookLine.variablePrefix) }
        stopWake = stop.onCancel { [self] in stopped() }
        for _ in 0..<Self.maxRunning {
            workersLeft.add(1, ordering: .releasing)
            do {
                try OSThread.spawn(role: "pm-hook") { [self] in worker() }
            } catch {
                workersLeft.subtract(1, ordering: .releasing)
                finish()  // the threads started leave
                throw error
            }
        }
    }

    /// Queues `line` for a hook, or drops and counts it when `maxWaiting` already wait (after
    /// a stop: counts it as ended by the stop). Never blocks for longer than a lock held for a
    /// few assignments.
    public func submit(_ line: HookLine) {
        let queued = state.withLock { s -> Bool in
            guard !s.closing else { return false }
            guard s.stoppedAt == nil else {
                s.totals.killed += 1
                s.discarded += 1
                return false
            }
            guard s.waitingCount < Self.maxWaiting else {
                s.totals.dropped += 1
                if s.totals.dropped == 1 { s.dropWarningDue = true }
                return s.totals.dropped == 1  // wake a worker to say so
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

    /// The counts so far.
    public var totals: HookTotals { state.withLock { $0.totals } }

    /// After the run: waits for every hook accepted to run to completion, or, once the stop
    /// has come, for the running ones until `grace` seconds after it; then ends those still
    /// running (SIGTERM to their groups, SIGKILL after `kill` seconds) and says how many it
    /// ended (`stopped`). Returns once every hook thread has left, with the totals; a second
    /// call returns them at once.
    @discardableResult
    public func finish(grace: Double = 2, kill: Double = 1) -> HookTotals {
        settled.withLock { done -> HookTotals in
            if let done { return done }
            let totals = settle(grace: grace, kill: kill)
            done = totals
            return totals
        }
    }

    private func settle(grace: Double, kill: Double) -> HookTotals {
        state.withLock { $0.closing = true }
        for _ in 0..<Self.maxRunning { work.signal() }
        func idle() -> Bool { workersLeft.load(ordering: .acquiring) == 0 }
        while !idle() {
            guard let stoppedAt = state.withLock({ $0.stoppedAt }) else {
                progress.wait()  // a hook ended, a worker left, or the stop came
                continue
            }
            let left = stoppedAt + grace - monotonicSeconds()
            if left <= 0 { break }
            progress.wait(seconds: left)
        }
        if !idle() {
            signalRunning(SIGTERM, killing: true)
            let hard = monotonicSeconds() + kill
            while !idle() && monotonicSeconds() < hard { progress.wait(seconds: hard - monotonicSeconds()) }
            signalRunning(SIGKILL, killing: true)
            while !idle() { progress.wait(seconds: 0.1) }
        }
        if let stopWake { stop.remove(stopWake) }
        let (totals, discarded) = state.withLock { ($0.totals, $0.discarded) }
        if totals.killed > 0 { report(.stopped(killed: totals.killed - discarded, discarded: discarded)) }
        return totals
    }

    /// The stop: nothing starts from now on, the waiting lines are discarded, and `finish`
    /// (now or later) gives the running ones the grace period from now.
    private func stopped() {
        state.withLock { s in
            guard s.stoppedAt == nil else { return }
            s.stoppedAt = monotonicSeconds()
            s.totals.killed += s.waitingCount
            s.discarded += s.waitingCount
            s.waiting.removeAll()
            s.head = 0
        }
        for _ in 0..<Self.maxRunning { work.signal() }
        progress.signal()
    }

    private func signalRunning(_ sig: Int32, killing: Bool) {
        state.withLock { s in
            if killing { s.killing = true }
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
                guard s.stoppedAt == nil, s.waitingCount > 0 else { return (nil, warn, s.closing || s.stoppedAt != nil) }
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
            if s.killing { child.signalGroup(SIGTERM) }
            return s.nextID
        }
        // A line is far smaller than a pipe holds: this never waits on a hook that does not
        // read; EPIPE (it exited first) is no error of ours.
        _ = line.line.withUnsafeBytes { child.writeToStdin($0) }
        child.closeStdin()
        child.waitUntilExited()
        let killed = state.withLock { s -> Bool in
            s.running[id] = nil
            if s.killing { s.totals.killed += 1 } else { s.totals.run += 1 }
            return s.killing
        }
        let end = child.wait()
        progress.signal()
        if !killed && !end.isCleanExit { report(.failed(line, end)) }
    }
}
