import Glibc
import MeterCore

/// Reads a list of file names (`--files-from`): one a line, or NUL-separated as
/// `find -print0` writes them, from a file or stdin, as bytes (`read(2)` in 64 KiB blocks).
///
/// Streamed: a list of any length costs one buffer and the name being read. Only the
/// separator splits: spaces, quotes, backslashes and carriage returns are part of a name.
/// Empty entries (a blank line, the separator at the end) are skipped.
///
/// With a `cancellation`, a list that stalls (a pipe whose writer neither writes nor closes)
/// does not hold a stop request back: each read first waits in `poll(2)` on the list beside
/// the cancellation's `StopPipe`, and a stop ends the list there (`stopped`).
public final class PathListReader {
    public let path: FilePath
    private let fd: Int32
    private let separator: UInt8
    private var buffer = [UInt8](repeating: 0, count: 65536)
    private var start = 0
    private var end = 0
    private var atEnd = false
    /// Entries in the list when it is a regular file (counted up front, for progress); nil
    /// for a pipe.
    public private(set) var knownCount: Int?
    /// True when a stop request ended the list before its end.
    public private(set) var stopped = false
    private let stop: StopPipe?

    /// Opens the list; `-` is stdin. Throws `.listCannotOpen` when it cannot be opened.
    public init(path: FilePath, nulSeparated: Bool, cancellation: Cancellation? = nil) throws(InputError) {
        self.path = path
        separator = nulSeparated ? 0 : UInt8(ascii: "\n")
        if path.isDash {
            fd = 0
        } else {
            try path.checkReadable()
            fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
            guard fd >= 0 else {
                throw InputError.listCannotOpen(path, reason: errnoText())
            }
        }
        stop = cancellation.flatMap { StopPipe($0) }
        knownCount = countIfRegular()
    }

    deinit {
        if fd != 0 { close(fd) }
        stop?.release()
    }

    /// The next name, or nil at the end of the list. Throws `.listRead` when reading fails.
    public func next() throws(InputError) -> FilePath? {
        while true {
            if let sep = buffer[start..<end].firstIndex(of: separator) {
                let entry = buffer[start..<sep]
                start = sep + 1
                if entry.isEmpty { continue }
                return FilePath(bytes: entry)
            }
            if atEnd {
                guard start < end else { return nil }
                let entry = buffer[start..<end]
                start = end
                return FilePath(bytes: entry)
            }
            try fill()
        }
    }

    /// Moves the unread part to the front (growing the buffer for a very long name) and reads.
    private func fill() throws(InputError) {
        if start > 0 {
            buffer.withUnsafeMutableBufferPointer { b in
                _ = memmove(b.baseAddress!, b.baseAddress! + start, end - start)
            }
            end -= start
            start = 0
        }
        if end == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        if let stop, stop.wait(for: fd, seconds: nil) == .stopped {
            stopped = true
            atEnd = true
            return
        }
        let n = SystemCall.retryingInterrupted {
            buffer.withUnsafeMutableBufferPointer { b in read(fd, b.baseAddress! + end, b.count - end) }
        }
        if n < 0 { throw InputError.listRead(path, reason: errnoText()) }
        if n == 0 { atEnd = true } else { end += n }
    }

    /// Counts the entries of a regular file with `pread(2)`, leaving the read position alone.
    private func countIfRegular() -> Int? {
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        var count = 0, offset: off_t = 0, previous = separator
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = SystemCall.retryingInterrupted { chunk.withUnsafeMutableBufferPointer { pread(fd, $0.baseAddress!, $0.count, offset) } }
            if n <= 0 { break }
            for b in chunk[0..<n] {
                if b != separator && previous == separator { count += 1 }
                previous = b
            }
            offset += off_t(n)
        }
        return count
    }
}
