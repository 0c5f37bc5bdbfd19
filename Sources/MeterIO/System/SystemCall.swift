import Glibc
import MeterCore

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

    /// For `giveUp` of a call that a stop request should end: true when `cancellation` is
    /// cancelled. A stop signal's handler only wakes the thread that cancels, so right after
    /// the EINTR the cancellation may be a moment away: it is waited for (at most 0.1 s, woken
    /// by `onCancel`) before the call is made again, which would otherwise block for good.
    static func stopRequested(_ cancellation: Cancellation?) -> Bool {
        guard let cancellation else { return false }
        if cancellation.isCancelled { return true }
        let wake = Wakeup()
        let registration = cancellation.onCancel { wake.signal() }
        wake.wait(seconds: 0.1)
        cancellation.remove(registration)
        return cancellation.isCancelled
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
