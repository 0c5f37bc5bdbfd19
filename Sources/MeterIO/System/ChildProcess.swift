import Glibc
import MeterCore
import Synchronization

/// A child process started from an argument vector with `posix_spawn` (never a shell, so no
/// name or option is ever interpreted), with pipes to its stdin and stdout as asked and its
/// stderr collected, and `waitpid` for its end. The one wrapper MeterIO uses for helper
/// programs (ffmpeg as an encoder for recordings, and as a decoder for inputs libsndfile
/// cannot read and of network streams) and for the user's hooks (`/bin/sh -c CMD`).
///
/// - Signals: the child starts with an empty signal mask and default dispositions for SIGINT,
///   SIGTERM, SIGPIPE and SIGQUIT (pulsemeter ignores SIGPIPE and may block the others), and in
///   its own process group, so a Ctrl-C in the terminal reaches pulsemeter alone: pulsemeter
///   then finishes the child's work in order (ends its input and waits) instead of having it
///   cut off.
/// - Descriptors: every pipe end pulsemeter keeps is close-on-exec, and any other descriptor
///   open in pulsemeter is closed in the child: it gets only 0, 1, 2.
/// - stderr is read on its own thread into a bounded tail (`stderrTail`), so a chatty child can
///   never block on a full pipe; `lastStderrLine` is what an error message quotes. A hook's
///   stderr goes to pulsemeter's own instead (`stderr: .descriptor(2)`).
/// - Environment: this process's (`environ`), or the list given.
///
/// Owned by one thread at a time, apart from the stderr collector (behind a Mutex).
public final class ChildProcess: @unchecked Sendable {
    /// What the child's stdin or stdout is connected to.
    public enum Stream: Sendable {
        /// A pipe whose other end pulsemeter holds (`stdinFD` / `stdoutFD`).
        case pipe
        /// /dev/null.
        case null
        /// This descriptor (an open file, say), duplicated into the child.
        case descriptor(Int32)
    }

    /// Why a child could not be started (the caller words it).
    public struct SpawnFailure: Error, Sendable {
        /// The errno of the failing call.
        public let code: Int32
        public var reason: String { String(cString: strerror(code)) }
    }

    /// How the child ended.
    public enum Termination: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)
        public var isCleanExit: Bool { self == .exited(0) }
    }

    public let pid: pid_t
    /// Our end of the child's stdin pipe (write), -1 when not a pipe or once closed.
    public private(set) var stdinFD: Int32 = -1
    /// Our end of the child's stdout pipe (read), -1 when not a pipe or once closed.
    public private(set) var stdoutFD: Int32 = -1
    private let collector = StderrCollector()
    private var termination: Termination?

    /// The full path of `name` on `PATH` (as `execvp` would find it), nil when it is not there.
    public static func find(_ name: String, searchPath: String? = nil) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        let path = searchPath ?? getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (dir.isEmpty ? "." : String(dir)) + "/" + name
            var st = stat()
            if stat(candidate, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    /// Starts `executable` (a path, e.g. from `find`) with `arguments` (argv[1...]).
    public convenience init(executable: String, arguments: [String], stdin: Stream, stdout: Stream,
                            stderr: Stream = .pipe, environment: [String]? = nil) throws(SpawnFailure) {
        try self.init(executable: executable, argumentBytes: arguments.map { Array($0.utf8) }, stdin: stdin, stdout: stdout,
                      stderr: stderr, environment: environment)
    }

    /// The same with arguments as bytes: a file name need not be UTF-8 (`FilePath`); a NUL byte,
    /// which no argument can hold, becomes "?". `stderr: .pipe` collects it (`stderrTail`);
    /// `environment` ("NAME=value" entries) replaces this process's environment.
    public init(executable: String, argumentBytes arguments: [[UInt8]], stdin: Stream, stdout: Stream,
                stderr: Stream = .pipe, environment: [String]? = nil) throws(SpawnFailure) {
        let descriptors = try ChildDescriptors(stdin: stdin, stdout: stdout, stderr: stderr)
        do throws(SpawnFailure) {
            pid = try Self.spawn(executable, arguments: arguments, environment: environment, actions: &descriptors.actions)
            descriptors.closeChildEnds()
        } catch {
            descriptors.closeChildEnds()
            descriptors.closeOurEnds()
            throw error
        }
        stdinFD = descriptors.stdinFD
        stdoutFD = descriptors.stdoutFD
        try collectStderr(descriptors)
    }

    /// `posix_spawn` of `executable` (argv[0]) with `arguments`, in a process group of its own,
    /// with an empty signal mask and the default action for the signals pulsemeter handles or
    /// ignores; `environment` or, when nil, this process's.
    private static func spawn(_ executable: String, arguments: [[UInt8]], environment: [String]?,
                              actions: inout posix_spawn_file_actions_t) throws(SpawnFailure) -> pid_t {
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attr, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in [SIGINT, SIGTERM, SIGPIPE, SIGQUIT] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setpgroup(&attr, 0)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv: [UnsafeMutablePointer<CChar>?] = ([Array(executable.utf8)] + arguments).map { bytes in
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (i, b) in bytes.enumerated() { p[i] = CChar(bitPattern: b == 0 ? UInt8(ascii: "?") : b) }
            p[bytes.count] = 0
            return p
        } + [nil]
        defer { for p in argv { p?.deallocate() } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { list in list.map { strdup($0) } + [nil] }
        defer { for p in envp ?? [] { free(p) } }
        var child = pid_t()
        let rc = envp.map { e in posix_spawn(&child, executable, &actions, &attr, argv, e) }
            ?? posix_spawn(&child, executable, &actions, &attr, argv, environ)
        guard rc == 0 else { throw SpawnFailure(code: rc) }
        return child
    }

    /// Starts the thread that collects the child's stderr when it is a pipe of ours; without
    /// one the child is stopped rather than left to block on a full pipe.
    private func collectStderr(_ descriptors: ChildDescriptors) throws(SpawnFailure) {
        let errFD = descriptors.stderrFD
        guard errFD >= 0 else {
            collector.done.signal()  // nothing to collect
            return
        }
        do {
            try OSThread.spawn(role: "pm-child-err") { [collector] in collector.collect(errFD) }
        } catch {
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = SystemCall.retryingInterrupted { Int(waitpid(pid, &status, 0)) }
            termination = .signalled(SIGKILL)  // reaped: deinit must not wait for it again
            descriptors.closeOurEnds()
            stdinFD = -1
            stdoutFD = -1
            throw SpawnFailure(code: EAGAIN)
        }
    }

    deinit {
        closeStdin()
        closeStdout()
        if termination == nil {
            Glibc.kill(pid, SIGKILL)
            _ = wait()
        }
    }

    /// Writes all of `bytes` to the child's stdin (retrying partial writes and EINTR); the
    /// errno when it cannot (EPIPE: the child is gone), 0 when everything went.
    public func writeToStdin(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard stdinFD >= 0 else { return EBADF }
        return SystemCall.writeAll(stdinFD, bytes)
    }

    /// Reads up to `count` bytes of the child's stdout (retrying EINTR); 0 at its end, -1 on error.
    public func readStdout(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        guard stdoutFD >= 0 else { return -1 }
        return SystemCall.retryingInterrupted { Glibc.read(stdoutFD, buffer, count) }
    }

    /// Closes our end of the child's stdout: a child still writing gets EPIPE instead of
    /// blocking on a pipe nobody reads.
    private func closeStdout() {
        if stdoutFD >= 0 { Glibc.close(stdoutFD) }
        stdoutFD = -1
    }

    /// Ends a child whose output we no longer read (a decoder): our end of its stdout closed
    /// first, so that a write blocked on the full pipe fails (a signal alone may wait for that
    /// write: ffmpeg acts on SIGTERM only between writes), then `signal`, then reaped.
    @discardableResult
    public func stopReading(signal: Int32) -> Termination {
        closeStdout()
        self.signal(signal)
        return wait()
    }

    /// Closes our end of the child's stdin: its end of input.
    public func closeStdin() {
        if stdinFD >= 0 { Glibc.close(stdinFD) }
        stdinFD = -1
    }

    /// Sends `signal` to the child.
    public func signal(_ signal: Int32) {
        if termination == nil { Glibc.kill(pid, signal) }
    }

    /// Sends `signal` to the child's process group (the child and whatever it started that
    /// stayed in its group: a shell's commands). Only until `wait` has reaped the child: after
    /// that its number may belong to another process. Safe from another thread than the owner's.
    public func signalGroup(_ signal: Int32) {
        Glibc.kill(-pid, signal)
    }

    /// Sleeps until the child has ended without reaping it (`waitid` with `WNOWAIT`): its
    /// number stays its own until `wait`, so `signalGroup` from another thread cannot reach
    /// a stranger meanwhile.
    public func waitUntilExited() {
        var info = siginfo_t()
        _ = SystemCall.retryingInterrupted { Int(waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT)) }
    }

    /// Waits for the child to end (`waitpid`, retrying EINTR) and for its stderr to close.
    @discardableResult
    public func wait() -> Termination {
        if let termination { return termination }
        var status: Int32 = 0
        _ = SystemCall.retryingInterrupted { Int(waitpid(pid, &status, 0)) }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which do not import.
        let t: Termination = (status & 0x7F) == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
        termination = t
        collector.done.wait()
        collector.done.signal()
        return t
    }

    /// The end of what the child wrote on stderr (at most 16 KiB).
    public var stderrTail: [UInt8] { collector.tail.withLock { $0 } }

    /// The last non-empty line the child wrote on stderr, if any.
    public var lastStderrLine: String? {
        let text = String(decoding: stderrTail, as: UTF8.self)
        return text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).last.map {
            String($0).trimmingCharacters(in: " \t")
        }.flatMap { $0.isEmpty ? nil : $0 }
    }
}

private extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
