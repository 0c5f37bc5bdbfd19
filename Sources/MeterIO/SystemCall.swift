import Glibc

/// The one EINTR rule for blocking system calls (`read(2)`, `write(2)`): a call interrupted by
/// a signal is made again, unless `giveUp` says the interruption was a request to stop.
enum SystemCall {
    /// Returns `call`'s result; when it is -1, `errno` says why (EINTR only when given up).
    static func retryingInterrupted(_ call: () -> Int, giveUp: () -> Bool = { false }) -> Int {
        while true {
            let n = call()
            if n >= 0 || errno != EINTR || giveUp() { return n }
        }
    }

    /// Writes all of `bytes` to `fd` (`write(2)`), again after a signal, a partial write or
    /// EAGAIN (a non-blocking descriptor that is full); 0 when everything went, else the errno.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        var done = 0
        while done < bytes.count {
            let n = retryingInterrupted { Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EAGAIN { continue }
                return errno
            }
            done += n
        }
        return 0
    }
}
