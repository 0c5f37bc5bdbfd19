import Foundation
import Glibc
import MeterCore
import Synchronization
import Testing
@testable import MeterIO
import TestSupport

/// The hook threads: the line on stdin and the variables in the environment, the bound on
/// running and waiting hooks (the rest dropped and counted, submit never waiting), a failing
/// hook reported with its status, every hook accepted run at a normal end however long that
/// takes, and after a stop the running hooks ended with everything they started (no orphans)
/// and the waiting ones discarded, all counted.
@Suite struct HookRunnerTests {
    /// As the command line does: a hook that exits before reading its line is then an EPIPE
    /// for the runner, not a SIGPIPE ending the process.
    init() { Signals.ignorePipe() }

    /// What the runner reported, from its worker threads: under `Locked` (a pthread mutex,
    /// which ThreadSanitizer sees; Synchronization's `Mutex` it does not, and reported the
    /// two workers' appends as a race).
    final class Reports: Sendable {
        let list = Locked<[HookRunner.Report]>([])
        var all: [HookRunner.Report] { list.withLock { $0 } }
    }

    static func line(_ n: Int, kind: HookLine.Kind = .clip) -> HookLine {
        HookLine(kind: kind, line: Array("{\"type\":\"event\",\"n\":\(n)}\n".utf8),
                 environment: ["PULSEMETER_POS": String(n), "PULSEMETER_EVENT": kind.rawValue], t: Double(n))
    }

    static func files(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
    }

    @Test func lineOnStdinVariablesInTheEnvironmentAndAFailureReported() throws {
        let dir = try SoundFileFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        setenv("PULSEMETER_FILE", "inherited", 1)  // never passed on to a hook
        defer { unsetenv("PULSEMETER_FILE") }
        let reports = Reports()
        let runner = try HookRunner(command: "{ cat; echo \"$PULSEMETER_EVENT $PULSEMETER_POS ${PULSEMETER_FILE-unset}\"; } > '\(dir.path)'/$PULSEMETER_POS; [ $PULSEMETER_POS != 2 ] || exit 7",
                                    stop: Cancellation()) { r in
            reports.list.withLock { $0.append(r) }
        }
        for n in 1...3 { runner.submit(Self.line(n)) }
        #expect(runner.finish() == HookTotals(run: 3))
        #expect(Self.files(dir) == ["1", "2", "3"])
        for n in 1...3 {
            let text = try String(contentsOf: dir.appendingPathComponent(String(n)), encoding: .utf8)
            #expect(text == "{\"type\":\"event\",\"n\":\(n)}\nclip \(n) unset\n")
        }
        let failures = reports.all.compactMap { r -> (Double, ChildProcess.Termination)? in
            if case .failed(let l, let t) = r { return (l.t, t) }
            return nil
        }
        #expect(failures.count == 1)
        #expect(failures.first?.0 == 2 && failures.first?.1 == .exited(7))
        #expect(reports.all.count == 1)
    }

    @Test func atMostFourRunAndSixtyFourWaitTheRestAreDroppedAndCounted() throws {
        let dir = try SoundFileFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Every hook records itself, then blocks on a lock this test holds (flock(1) waits in
        // the kernel): none can finish before every line has been submitted.
        let lock = dir.appendingPathComponent("lock").path
        let fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        #expect(fd >= 0)
        #expect(flock(fd, LOCK_EX) == 0)
        let reports = Reports()
        let runner = try HookRunner(command: ": > '\(dir.path)'/run-$PULSEMETER_POS; flock '\(lock)' true", stop: Cancellation()) { r in
            reports.list.withLock { $0.append(r) }
        }
        // Every hook blocks on the lock this test holds, so 200 submits returning at all, and
        // with exactly the overflow counted, shows that submit never waits for a hook.
        for n in 1...200 { runner.submit(Self.line(n)) }
        let dropped = runner.totals.dropped
        // 64 wait; at most 4 were taken off the queue before the last submit.
        #expect((132...136).contains(dropped))
        flock(fd, LOCK_UN)
        close(fd)
        #expect(runner.finish() == HookTotals(run: 200 - dropped, dropped: dropped))
        let ran = Self.files(dir).filter { $0.hasPrefix("run-") }.count
        #expect(ran == 200 - dropped)
        var dropping = 0
        for r in reports.all { if case .dropping = r { dropping += 1 } }
        #expect(dropping == 1)
        #expect(reports.all.count == 1)  // said once: the count is in the totals
    }

    @Test func atANormalEndEveryHookAcceptedRunsToCompletion() throws {
        let dir = try SoundFileFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let reports = Reports()
        // Each hook takes 0.3 s before it writes: 4 at once, 40 hooks take 10 rounds, far
        // longer than the grace period a stop gives.
        let runner = try HookRunner(command: "sleep 0.3; echo $PULSEMETER_POS > '\(dir.path)'/done-$PULSEMETER_POS",
                                    stop: Cancellation()) { r in
            reports.list.withLock { $0.append(r) }
        }
        for n in 1...40 { runner.submit(Self.line(n)) }
        let t0 = monotonicSeconds()
        #expect(runner.finish() == HookTotals(run: 40))
        #expect(Self.files(dir).count == 40)
        #expect(monotonicSeconds() - t0 >= 10 * 0.3 - 0.05, "at most 4 ran at once")
        #expect(reports.all.isEmpty)
        #expect(runner.finish() == HookTotals(run: 40))  // a second call: the same totals at once
    }

    @Test func aStopWhileTheEndWaitsEndsTheRunningHooksWithWhatTheyStartedAndDiscardsTheWaiting() throws {
        let dir = try SoundFileFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let reports = Reports()
        let stop = Cancellation()
        // The shell writes its pid (its process group) and waits on a sleep it started.
        let runner = try HookRunner(command: "echo $$ > '\(dir.path)'/pid-$PULSEMETER_POS; sleep 60; echo late > '\(dir.path)'/late",
                                    stop: stop) { r in
            reports.list.withLock { $0.append(r) }
        }
        for n in 1...6 { runner.submit(Self.line(n)) }
        // Wait until the first four run (the other two wait).
        let four = Wait.until(timeout: 20, interval: 0.01) { Self.files(dir).count >= 4 }
        #expect(four)
        #expect(Self.files(dir).count == 4)
        // The normal end waits for them (a minute each); the stop comes meanwhile.
        let totals = Locked<HookTotals?>(nil)
        let finished = Thread {
            let t = runner.finish(grace: 0.3, kill: 1)
            totals.withLock { $0 = t }
        }
        finished.start()
        let early = Wait.until(timeout: 0.5, interval: 0.01) { totals.withLock { $0 != nil } }
        #expect(!early, "the end waits for the hooks")
        let t0 = monotonicSeconds()
        stop.cancel()
        let ended = Wait.until(timeout: 10, interval: 0.01) { totals.withLock { $0 != nil } }
        #expect(ended)
        #expect(monotonicSeconds() - t0 < 0.3 + 1 + 0.5, "the grace period, then SIGTERM (SIGKILL a second later)")
        #expect(totals.withLock { $0 } == HookTotals(killed: 6))
        let groups = try Self.files(dir).map { name in
            try #require(pid_t(try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        #expect(groups.count == 4)
        for g in groups { #expect(try Self.processes(inGroup: g).isEmpty, "group \(g) outlived the runner") }
        let stops = reports.all.compactMap { r -> [Int]? in
            if case .stopped(let killed, let discarded) = r { return [killed, discarded] }
            return nil
        }
        #expect(stops == [[4, 2]])  // one report: four ended, the two that never started
        #expect(reports.all.count == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("late").path))
    }

    /// Live processes (not zombies) whose process group is `pgid`, as ps(1) lists them.
    static func processes(inGroup pgid: pid_t) throws -> [String] {
        let ps = try ChildProcess(executable: try #require(ChildProcess.find("ps")), arguments: ["-e", "-o", "pgid=,stat="],
                                  stdin: .null, stdout: .pipe)
        let rows = ChildProcessTests.readAll(ps).split(separator: "\n").map { $0.split(separator: " ") }
        #expect(ps.wait() == .exited(0))
        return rows.filter { $0.count == 2 && pid_t($0[0]) == pgid && !$0[1].hasPrefix("Z") }.map { $0.joined(separator: " ") }
    }
}
