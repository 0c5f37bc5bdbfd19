import Foundation
import Glibc
import Synchronization
import TestSupport

// Running processes: the pulsemeter binary and the tools, their output read line by line.

// MARK: - subprocesses

/// True while `pid` runs; a zombie (dead, waiting for its parent or a slow init to reap it)
/// does not count.
func processRuns(_ pid: pid_t) -> Bool {
    guard Glibc.kill(pid, 0) == 0 else { return false }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return true }
    return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
}

/// Seconds on the monotonic clock (`Wait.now`).
func monotonic() -> Double { Wait.now() }

/// Starts `process` the way a shell would: with no signals blocked. Foundation's Process
/// (posix_spawn on the calling thread) passes on the calling thread's signal mask, and the
/// test runner's worker threads block SIGINT, SIGTERM, SIGCHLD and more; a child started with
/// those blocked would never see SIGTERM or Ctrl-C (and tmux's server would hang).
func runWithCleanSignalMask(_ process: Process) throws {
    var none = sigset_t()
    sigemptyset(&none)
    var old = sigset_t()
    pthread_sigmask(SIG_SETMASK, &none, &old)
    defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
    try process.run()
}

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a command to completion (PATH lookup through /usr/bin/env), with a time limit.
@discardableResult
func run(_ args: [String], env: [String: String] = [:], timeout: Double = 30) throws -> RunResult {
    let p = try Subprocess(args, env: env)
    let out = p.readToEnd(timeout: timeout)
    guard let status = p.wait(timeout: max(1, timeout - (monotonic() - p.started))) else {
        p.kill()
        throw LiveSetupError("\(args.joined(separator: " ")) did not finish within \(timeout) s")
    }
    return RunResult(status: status, stdout: out.map { $0 + "\n" }.joined(), stderr: p.stderrText)
}

/// A child process with its stdout read line by line on demand (so a test can stop reading,
/// like a stalled consumer) and its stderr collected in the background.
final class Subprocess: @unchecked Sendable {
    let process = Process()
    let started: Double
    private(set) var stdoutFD: Int32
    private var buffer: [UInt8] = []
    private var head = 0  // start of the unread part of `buffer`
    private(set) var sawEOF = false
    private let stderrBox = StderrBox()

    /// Filled by the stderr reader thread (which must not keep the Subprocess alive).
    private final class StderrBox: Sendable {
        let bytes = Mutex<[UInt8]>([])
        let done = DispatchSemaphore(value: 0)
    }

    /// Starts `args` (args[0] looked up on PATH unless it is a path). `env` entries override
    /// this process's environment; a nil value removes the variable. `pipeSize` shrinks the
    /// stdout pipe (F_SETPIPE_SZ) so a stalled reader blocks the writer sooner.
    init(_ args: [String], env: [String: String?] = [:], pipeSize: Int32? = nil, stdin: Int32? = nil) throws {
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in env { environment[k] = v }
        if args[0].contains("/") {
            process.executableURL = URL(fileURLWithPath: args[0])
            process.arguments = Array(args.dropFirst())
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = args
        }
        process.environment = environment
        var out: [Int32] = [0, 0], err: [Int32] = [0, 0]
        guard pipe(&out) == 0, pipe(&err) == 0 else {
            throw LiveSetupError("pipe: \(String(cString: strerror(errno)))")
        }
        // Our ends must not leak into other children (pipe2 is not exported to Swift here).
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        if let pipeSize { _ = fcntl(out[0], 1031 /* F_SETPIPE_SZ */, pipeSize) }
        process.standardInput = stdin.map { FileHandle(fileDescriptor: $0, closeOnDealloc: false) } ?? FileHandle.nullDevice
        process.standardOutput = FileHandle(fileDescriptor: out[1], closeOnDealloc: false)
        process.standardError = FileHandle(fileDescriptor: err[1], closeOnDealloc: false)
        started = monotonic()
        do {
            try runWithCleanSignalMask(process)
        } catch {
            for fd in out + err { close(fd) }
            throw LiveSetupError("cannot run \(args): \(error)")
        }
        close(out[1])
        close(err[1])
        stdoutFD = out[0]
        let errFD = err[0]
        let t = Thread { [stderrBox] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(errFD, $0.baseAddress, 4096) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                stderrBox.bytes.withLock { $0 += chunk[0..<n] }
            }
            close(errFD)
            stderrBox.done.signal()
        }
        t.start()
    }

    deinit {
        kill()
        if stdoutFD >= 0 { close(stdoutFD) }
    }

    var pid: pid_t { process.processIdentifier }
    var isRunning: Bool { exitStatus() == nil }

    /// The exit status (128+signal when killed by one), nil while it runs. Asks the kernel
    /// (waitid with WNOWAIT, leaving the reaping to Foundation) rather than Process.isRunning:
    /// Foundation learns of the exit through a socket the child inherits, which stays open
    /// while a grandchild that kept it (tmux's server) lives on.
    func exitStatus() -> Int32? {
        var info = siginfo_t()
        let r = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        if r == 0 && info.si_signo == SIGCHLD {
            let status = info._sifields._sigchld.si_status
            return info.si_code == CLD_EXITED ? status : 128 + status
        }
        if r != 0 && errno == ECHILD, !process.isRunning {  // already reaped by Foundation
            return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
        }
        return nil
    }

    /// The next stdout line (without the newline); nil at end of file or after `timeout` s.
    func readLine(timeout: Double) -> String? {
        let deadline = monotonic() + timeout
        while true {
            if let nl = buffer[head...].firstIndex(of: 10) {
                let line = String(decoding: buffer[head..<nl], as: UTF8.self)
                head = nl + 1
                if head > 65536 {
                    buffer.removeSubrange(..<head)
                    head = 0
                }
                return line
            }
            if sawEOF || stdoutFD < 0 { return nil }
            let left = deadline - monotonic()
            if left <= 0 { return nil }
            var pfd = pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)
            let r = poll(&pfd, 1, Int32(min(left, 1) * 1000) + 1)
            if r <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(stdoutFD, $0.baseAddress, 65536) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { sawEOF = true; continue }
            buffer += chunk[0..<n]
        }
    }

    /// Reads lines until one satisfies `predicate` (returned with everything before it).
    func readLines(until predicate: (String) -> Bool, timeout: Double) -> (lines: [String], matched: Bool) {
        let deadline = monotonic() + timeout
        var lines: [String] = []
        while let line = readLine(timeout: max(0, deadline - monotonic())) {
            lines.append(line)
            if predicate(line) { return (lines, true) }
        }
        return (lines, false)
    }

    /// Every remaining stdout line, until end of file or `timeout` s.
    func readToEnd(timeout: Double) -> [String] {
        let deadline = monotonic() + timeout
        var lines: [String] = []
        while let line = readLine(timeout: max(0, deadline - monotonic())) { lines.append(line) }
        if sawEOF, head < buffer.count {  // a last line without newline (a test will flag it)
            lines.append(String(decoding: buffer[head...], as: UTF8.self) + "<no newline>")
            buffer.removeAll()
            head = 0
        }
        return lines
    }

    /// Closes our end of stdout, as `head` does once it has enough.
    func closeStdout() {
        if stdoutFD >= 0 { close(stdoutFD) }
        stdoutFD = -1
    }

    func signal(_ sig: Int32) { Glibc.kill(pid, sig) }

    /// The exit status, or 128+signal when killed by one; nil if still running after `timeout` s.
    func wait(timeout: Double) -> Int32? {
        Wait.value(timeout: timeout, interval: 0.005, { exitStatus() }, until: { $0 != nil })
    }

    /// Kills the process (SIGKILL) if it still runs.
    func kill() {
        if isRunning {
            Glibc.kill(pid, SIGKILL)
            _ = wait(timeout: 5)
        }
    }

    /// Everything written on stderr (waits up to 2 s for it to be closed).
    var stderrText: String {
        if stderrBox.done.wait(timeout: .now() + 2) == .success { stderrBox.done.signal() }
        return stderrBox.bytes.withLock { String(decoding: $0, as: UTF8.self) }
    }
}

/// pulsemeter with the given arguments, talking to `server`.
func pulsemeter(_ args: [String], server: PulseServer?, env: [String: String?] = [:],
                pipeSize: Int32? = nil) throws -> Subprocess {
    var e: [String: String?] = ["PULSE_SERVER": server?.address, "NO_COLOR": nil]
    for (k, v) in env { e[k] = v }
    return try Subprocess([try Live.bin()] + args, env: e, pipeSize: pipeSize)
}

/// pulsemeter with arguments given as bytes (file names that are not UTF-8 cannot pass through
/// Foundation's Process): /bin/sh rebuilds each argument from octal escapes with printf.
func pulsemeter(rawArguments args: [[UInt8]], server: PulseServer?) throws -> Subprocess {
    var script = ""
    for (i, a) in args.enumerated() {
        script += "a\(i)=$(printf '%bx' '" + a.map { "\\0" + String($0, radix: 8) }.joined() + "'); a\(i)=${a\(i)%x}\n"
    }
    script += "exec \"$0\"" + args.indices.map { " \"$a\($0)\"" }.joined() + "\n"
    return try Subprocess(["/bin/sh", "-c", script, try Live.bin()], env: ["PULSE_SERVER": server?.address, "NO_COLOR": nil])
}

/// VmRSS of a process in kB (/proc/PID/status).
func residentKB(_ pid: pid_t) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        return fields.count > 1 ? Int(fields[1]) : nil
    }
    return nil
}
