import Glibc

/// The one way the tests wait: for a condition (a line on a screen, a file grown, a status
/// file written, a process gone, a thread asleep), checked until it holds or a deadline
/// passes. The brief pause between checks only keeps the loop off the CPU; nothing waits a
/// fixed time for something to happen. (`passing` is for the few tests whose input is time.)
public enum Wait {
    /// Checks `condition` every `interval` seconds until it holds or `timeout` seconds have
    /// passed; true when it held. The result is the test's to assert (it is not discardable:
    /// a wait whose condition never held must fail the test, not let it go on).
    public static func until(timeout: Double, interval: Double = 0.05, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = now() + timeout
        while true {
            if try condition() { return true }
            if now() >= deadline { return false }
            pace(seconds: interval)
        }
    }

    /// What `probe` gives once `ok` holds of it, or its last value when `timeout` passes first.
    public static func value<T>(timeout: Double, interval: Double = 0.05, _ probe: () throws -> T,
                                until ok: (T) -> Bool) rethrows -> T {
        var last: T?
        _ = try until(timeout: timeout, interval: interval) {
            let v = try probe()
            last = v
            return ok(v)
        }
        return last!  // `until` checks at least once
    }

    /// Lets `seconds` pass, for a test whose input is time itself (a job stopped for so long,
    /// a clock that must stand still meanwhile); never to wait for something to happen.
    public static func passing(seconds: Double) {
        let end = now() + seconds
        while now() < end { pace(seconds: min(0.05, end - now())) }
    }

    /// The same, running `body` every `interval` seconds meanwhile (a stretch of time during
    /// which the test keeps reading a meter's output, say).
    public static func passing(seconds: Double, every interval: Double, _ body: () throws -> Void) rethrows {
        let end = now() + seconds
        while now() < end {
            try body()
            pace(seconds: min(interval, end - now()))
        }
    }

    /// Sleeps `seconds`: the pace of a test's input (a slow writer, uneven work, a feed at a
    /// speed), never a wait for something to happen; the one sleep of the tests.
    public static func pace(seconds: Double) {
        guard seconds > 0 else { return }
        usleep(UInt32(seconds * 1e6))
    }

    /// Seconds on the monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`).
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
