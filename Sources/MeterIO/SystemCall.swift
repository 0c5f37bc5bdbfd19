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
}
