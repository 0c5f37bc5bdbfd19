import Glibc
import MeterCore

/// The one EINTR rule for blocking system calls (`read(2)`, `write(2)`, `poll(2)`, `waitpid(2)`):
/// a call interrupted by a signal is made again; a read that a stop request must end waits
/// beside its `StopPipe` first (`read(_:_:_:stop:)`).
enum SystemCall {
    /// Returns `call`'s result, made again while it fails with EINTR; when it is -1, `errno`
    /// says why.
    static func retryingInterrupted(_ call: () -> Int) -> Int {
        while true {
            let n = call()
            if n >= 0 || errno != EINTR { return n }
        }
    }

    /// `read(2)` that a stop request ends, whichever thread the signal reached (the kernel
    /// gives a process's signal to any thread, so the reading one may never see EINTR): with a
    /// `stop`, the descriptor is waited for beside it (`poll(2)`) and read once data (or its
    /// end) is there. Stopped meanwhile: -1 with errno EINTR, as a read given up.
    static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, stop: StopPipe?) -> Int {
        if let stop, stop.wait(for: fd, seconds: nil) == .stopped {
            errno = EINTR
            return -1
        }
        return retryingInterrupted { Glibc.read(fd, buffer, count) }
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
