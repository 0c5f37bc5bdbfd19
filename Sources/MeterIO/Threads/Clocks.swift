import Glibc

// The two clocks: monotonic for intervals, Unix time for `ts` and gap lines.

/// Seconds on the monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`).
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Unix time in seconds (`clock_gettime(CLOCK_REALTIME)`), for `ts` and gap lines.
public func unixSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
