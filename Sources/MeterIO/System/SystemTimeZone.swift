import Glibc
import MeterCore

/// The machine's local time zone (TZ, /etc/localtime) as `localtime_r(3)` reads it: the
/// offset from UTC in force at each moment, daylight saving time included.
public struct SystemTimeZone: UTCOffsets {
    public init() {}

    public func offset(at unix: Double) -> Int {
        var t = time_t(unix.rounded(.down))
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return 0 }
        return parts.tm_gmtoff
    }
}
