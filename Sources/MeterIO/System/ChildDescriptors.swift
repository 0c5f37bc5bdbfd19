import Glibc

/// What a `ChildProcess` gets as its descriptors 0, 1 and 2: the `posix_spawn` file actions
/// that connect each as asked (a pipe, /dev/null, a descriptor of ours) and close every other
/// descriptor open here, and the pipes made for them.
///
/// Every pipe end is close-on-exec. After the spawn, `closeChildEnds` closes the child's ends
/// here; a failed spawn also `closeOurEnds`. The file actions are destroyed with the value.
final class ChildDescriptors {
    var actions = posix_spawn_file_actions_t()
    /// Our ends of the pipes: the child's stdin (write), stdout (read) and stderr (read); -1
    /// where that stream is not a pipe.
    private(set) var stdinFD: Int32 = -1
    private(set) var stdoutFD: Int32 = -1
    private(set) var stderrFD: Int32 = -1
    private var mine: [Int32] = []    // our pipe ends, kept
    private var theirs: [Int32] = []  // the child's pipe ends, closed here after the spawn

    init(stdin: ChildProcess.Stream, stdout: ChildProcess.Stream, stderr: ChildProcess.Stream) throws(ChildProcess.SpawnFailure) {
        posix_spawn_file_actions_init(&actions)
        do {
            stdinFD = try connect(stdin, to: 0)
            stdoutFD = try connect(stdout, to: 1)
            stderrFD = try connect(stderr, to: 2)
        } catch {
            closeOurEnds()
            closeChildEnds()
            throw error
        }
        // Descriptors of ours that are not close-on-exec (a library's) are closed in the child,
        // after the dup2s above: it gets 0, 1 and 2 only.
        for fd in ProcessStatistics.openDescriptors() where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }

    deinit { posix_spawn_file_actions_destroy(&actions) }

    func closeChildEnds() {
        for fd in theirs { Glibc.close(fd) }
        theirs = []
    }

    func closeOurEnds() {
        for fd in mine { Glibc.close(fd) }
        mine = []
    }

    /// Connects the child's descriptor `target` (0, 1 or 2) as asked; our end of a pipe, or -1.
    private func connect(_ stream: ChildProcess.Stream, to target: Int32) throws(ChildProcess.SpawnFailure) -> Int32 {
        switch stream {
        case .pipe:
            let p = try Self.makePipe()
            let (ours, child) = target == 0 ? (p.write, p.read) : (p.read, p.write)
            mine.append(ours)
            theirs.append(child)
            posix_spawn_file_actions_adddup2(&actions, child, target)
            return ours
        case .null:
            posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            return -1
        case .descriptor(let fd):
            posix_spawn_file_actions_adddup2(&actions, fd, target)
            return -1
        }
    }

    private static func makePipe() throws(ChildProcess.SpawnFailure) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw ChildProcess.SpawnFailure(code: errno) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }
}
