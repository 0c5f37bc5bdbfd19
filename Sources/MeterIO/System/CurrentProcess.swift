import Glibc

/// What the command line needs of its own process and nothing else: the argument vector as
/// the kernel passed it, ending the process with a status, and pacing a view's loop.
public enum CurrentProcess {
    /// The arguments after the program name as bytes (`argv`, each up to its NUL: `strlen(3)`).
    /// Swift's `CommandLine.arguments` repairs invalid UTF-8 with U+FFFD, losing file names
    /// that are not UTF-8, such as Latin-1 names from old archives.
    public static func rawArguments() -> [[UInt8]] {
        (1..<Int(CommandLine.argc)).compactMap { i in
            CommandLine.unsafeArgv[i].map { p in Array(UnsafeBufferPointer(start: p, count: strlen(p)).map { UInt8(bitPattern: $0) }) }
        }
    }

    /// Ends the process with `status` (`exit(3)`: buffered C output is flushed first).
    public static func exit(_ status: Int32) -> Never { Glibc.exit(status) }

    /// Sleeps the calling thread for `seconds` (`nanosleep(2)`; a signal handler running may
    /// end it early), for a full-screen view that redraws at a steady rate.
    public static func pause(seconds: Double) {
        var ts = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        _ = nanosleep(&ts, nil)
    }
}
