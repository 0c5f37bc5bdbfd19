import Glibc
import MeterCore

/// Meter output to a file descriptor (stdout or `-o PATH`), each `write` one whole line.
///
/// Wraps `write(2)`: retries on EINTR and short writes; a closed reader (EPIPE, or EIO from a
/// terminal that hung up) throws `OutputClosed` so the run stops quietly; any other failure
/// (ENOSPC on /dev/full, EIO from a disk) throws an I/O error. SIGPIPE must be ignored
/// (`Signals.ignorePipe()`).
public final class FileDescriptorOutput: ByteOutput, Sendable {
    public let fd: Int32
    public let name: String
    private let ownsDescriptor: Bool
    /// Whether `fd` was a terminal when this was made (a terminal that hung up no longer
    /// answers `isatty`).
    private let wasTerminal: Bool

    public init(fd: Int32, name: String, ownsDescriptor: Bool = false) {
        self.fd = fd
        self.name = name
        self.ownsDescriptor = ownsDescriptor
        wasTerminal = isatty(fd) == 1
    }

    public static let standardOutput = FileDescriptorOutput(fd: 1, name: "stdout")
    public static let standardError = FileDescriptorOutput(fd: 2, name: "stderr")

    /// Opens `path` for meter output through `NewFile` (`.output`): a new file, an existing
    /// file truncated (never through a symbolic link: a link is replaced by a new file), or an
    /// existing FIFO or character device written into as is; a directory or socket is refused.
    public static func create(path: FilePath) throws(OutputError) -> FileDescriptorOutput {
        let file: NewFile
        do throws(NewFile.Failure) {
            file = try NewFile.create(path, existing: .output)
            do { try file.commit() } catch { close(file.fd); throw error }
        } catch {
            throw error.outputError(path, recording: false)
        }
        return FileDescriptorOutput(fd: file.fd, name: path.description, ownsDescriptor: true)
    }

    deinit { if ownsDescriptor { close(fd) } }

    public func write(_ bytes: [UInt8]) throws {
        let e = bytes.withUnsafeBytes { SystemCall.writeAll(fd, $0) }
        // A terminal that hung up (closed window, dropped ssh) fails writes with EIO: its
        // reader is gone, as with EPIPE on a pipe, and SIGHUP is stopping the run anyway.
        if e == EPIPE || (e == EIO && wasTerminal) { throw OutputClosed() }
        if e != 0 { throw OutputError.cannotWriteOutput(name: name, reason: errnoText(e)) }
    }

    /// True when the descriptor is a terminal (`isatty(3)`).
    public var isTerminal: Bool { isatty(fd) == 1 }
}

/// The text of the current `errno` (`strerror(3)`).
func errnoText(_ e: Int32 = errno) -> String { String(cString: strerror(e)) }
