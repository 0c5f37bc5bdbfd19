import Foundation
import Glibc
import Testing
import TestSupport

/// A day of audio through `--report`: the page stays as small as an hour's and the process's
/// memory flat (issue 42: "a 24-hour input fed from raw stdin at full speed ... writes a report
/// under 2 MB with RSS under 40 MB during the run").
@Suite(.serialized) struct ReportLongRunCLITests {
    /// pulsemeter `args` with `feed` written to its stdin (its stdout and stderr /dev/null):
    /// its exit status and its peak resident set (KiB). The peak is wait4's ru_maxrss, taken
    /// by a small python3 parent that forks and execs it: Linux carries the exec'ing
    /// process's old high-water mark into ru_maxrss, and a child spawned straight from this
    /// test process (vfork-like) would inherit the test's own RSS as its "peak".
    static func run(_ args: [String], feed: (Int32) -> Void) throws -> (status: Int32, maxRSSKiB: Int) {
        let python = try #require(Tool.which("python3"))
        let dir = try TempDir()
        let report = dir.path("rusage")
        let script = """
            import os, sys
            pid = os.fork()
            if pid == 0:
                os.execv(sys.argv[2], sys.argv[2:])
            _, status, usage = os.wait4(pid, 0)
            open(sys.argv[1], "w").write("%d %d" % (os.waitstatus_to_exitcode(status), usage.ru_maxrss))
            """
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
        posix_spawn_file_actions_addclose(&actions, fds[1])
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([python, "-c", script, report, Tool.binary] + args).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, python, &actions, nil, argv, environ)
        close(fds[0])
        try #require(spawned == 0, "posix_spawn: \(spawned)")
        feed(fds[1])
        close(fds[1])
        var status: Int32 = 0
        try #require(waitpid(pid, &status, 0) == pid && status == 0, "the python3 parent: \(status)")
        let figures = try String(contentsOfFile: report, encoding: .utf8).split(separator: " ").compactMap { Int($0) }
        try #require(figures.count == 2)
        return (Int32(figures[0]), figures[1])
    }

    /// Writes all of `bytes` to `fd`.
    static func write(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buf in
            var done = 0
            while done < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + done, buf.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                done += n
            }
        }
    }

    @Test("24 hours of 8 kHz audio on stdin: a report under 2 MB, RSS under 40 MB, the curve bucketed to at most 4,000 points",
          Tool.dayLong)
    func dayOfAudio() throws {
        let dir = try TempDir()
        let page = dir.path("R.html")
        let rate = 8000
        // One second of a 1 kHz sine (whole cycles, so seconds join without a step) at each
        // hour's amplitude, in turn: four levels an hour apart.
        let amplitudes = [0.5, 0.05, 0.25, 0.0125]
        let blocks = amplitudes.map { a in
            TestAudio(rate: rate, channels: 1, encoding: .s16,
                      doubles: (0..<rate).map { a * sin(2 * Double.pi * 1000 * Double($0) / Double(rate)) }).rawBytes
        }
        let started = Date()
        let r = try Self.run(["analyze", "-", "--raw", "s16le", "-r", "\(rate)", "-c", "1", "--loudness", "--report", page]) { fd in
            for s in 0..<86400 { Self.write(fd, blocks[(s / 3600) % 4]) }
        }
        #expect(r.status == 0)
        #expect(r.maxRSSKiB < 40 * 1024, "peak RSS \(r.maxRSSKiB) KiB")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: page)[.size] as? Int)
        #expect(size < 2 * 1024 * 1024, "the page is \(size) bytes")

        let html = try String(contentsOfFile: page, encoding: .utf8)
        let svg = try #require(HeadlessChromium.matches("(<svg[^>]*class=\"timeline\".*?</svg>)", in: html).first?[0])
        let head = try #require(HeadlessChromium.matches("(<svg[^>]*>)", in: svg).first?[0])
        func number(_ name: String) throws -> Double { try #require(Double(HeadlessChromium.attribute(name, in: head) ?? "")) }
        let (left, right, top, bottom) = (try number("data-left"), try number("data-right"), try number("data-top"), try number("data-bottom"))
        let (seconds, dbTop, dbBottom) = (try number("data-seconds"), try number("data-db-top"), try number("data-db-bottom"))
        #expect(seconds == 86400)
        let d = try #require(HeadlessChromium.matches("<path class=\"curve\" data-series=\"RMS mono\" d=\"([^\"]*)\"", in: svg).first?[0])
        let points = HeadlessChromium.matches("[ML]([-0-9.]+),([-0-9.]+)", in: d).map { (Double($0[0])!, Double($0[1])!) }
        // Pairs merge only when all 4,000 buckets are full: after the last merge, more than half.
        #expect(points.count > 2000 && points.count <= 4000, "\(points.count) points")
        // Each bucket well inside an hour is at that hour's sine level, 20 log10(A) - 3.01 dB.
        var checked = 0, worst = 0.0
        for (x, y) in points {
            let t = (x - left) / (right - left) * seconds
            let intoHour = t.truncatingRemainder(dividingBy: 3600)
            guard intoHour > 120 && intoHour < 3480 else { continue }
            let db = 20 * log10(amplitudes[Int(t / 3600) % 4]) - 3.01
            let expected = top + (dbTop - min(max(db, dbBottom), dbTop)) / (dbTop - dbBottom) * (bottom - top)
            worst = max(worst, abs(y - expected))
            checked += 1
        }
        #expect(checked > 1500)
        #expect(worst <= 1, "buckets within a pixel of the hour's level (worst \(worst) px)")
        print("24 h report: \(size) bytes, peak RSS \(r.maxRSSKiB) KiB, \(points.count) points, \(Int(Date().timeIntervalSince(started))) s")
    }
}
