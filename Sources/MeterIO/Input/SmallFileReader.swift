import Glibc

/// Reads a small file whole (a microphone calibration file): `open(2)`, then `read(2)` until
/// the end. Missing, unreadable and directory paths give the `InputError`s every input gets
/// before anything is read; a file over `limit` bytes is refused as not what it should be.
public enum SmallFileReader {
    public static func read(_ path: FilePath, limit: Int = 4 << 20) throws(InputError) -> [UInt8] {
        try path.checkReadable()
        let fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw InputError.cannotOpen(path, reason: errnoText()) }
        defer { close(fd) }
        var out: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = block.withUnsafeMutableBytes { b in
                SystemCall.retryingInterrupted { Glibc.read(fd, b.baseAddress, b.count) }
            }
            if n < 0 { throw InputError.readFailed(name: path.string, reason: errnoText()) }
            if n == 0 { return out }
            out += block.prefix(n)
            if out.count > limit { throw InputError.tooLarge(path, limit: limit) }
        }
    }
}
