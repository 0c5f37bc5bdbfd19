/// The offset of local time from UTC at a moment: the injected time zone. MeterCore never
/// reads the OS's; MeterIO's `SystemTimeZone` does, a test gives a `FixedUTCOffset`.
public protocol UTCOffsets: Sendable {
    /// Seconds east of UTC in force at Unix time `unix`.
    func offset(at unix: Double) -> Int
}

/// One offset at every moment: a file's `--start-time` offset, or a test's zone.
public struct FixedUTCOffset: UTCOffsets, Equatable {
    public let seconds: Int
    public init(seconds: Int) { self.seconds = seconds }
    public func offset(at unix: Double) -> Int { seconds }
}

/// `--interval`, `--start-time` and `--lden`: what the period and day lines measure over and
/// where their time comes from.
public struct PeriodSettings: Sendable {
    /// Where the wall-clock time of a frame comes from.
    public enum Clock: Sendable, Equatable {
        /// A live frame's `ts` (when it was emitted); periods end at local-time multiples of
        /// the interval.
        case live
        /// A file whose first sample was at Unix time `start`: a frame's time is `start` plus
        /// its audio position. `aligned`: periods end at local-time multiples of the interval
        /// (a `--start-time` given); else every `interval` seconds from the start.
        case file(start: Double, aligned: Bool)
    }

    public static let intervalRange = 1.0...86400.0

    /// Seconds in a period; nil: no period lines (`--lden` alone).
    public var interval: Double?
    /// `day` lines with Lday, Levening, Lnight and Lden (needs the sound level meter).
    public var lden: Bool
    public var clock: Clock
    public var zone: any UTCOffsets

    public init(interval: Double?, lden: Bool = false, clock: Clock, zone: any UTCOffsets) {
        self.interval = interval
        self.lden = lden
        self.clock = clock
        self.zone = zone
    }

    /// Whether periods end at local-time multiples of the interval.
    var aligned: Bool {
        switch clock {
        case .live: return true
        case .file(_, let aligned): return aligned
        }
    }

    /// Local time (seconds since 1970-01-01 00:00 local) of Unix time `unix`.
    func local(_ unix: Double) -> Double { unix + Double(zone.offset(at: unix)) }

    /// The end (Unix time) of the period holding the moment `unix`, a moment on a boundary
    /// belonging to the period it ends. `origin`: the first sample's time (unaligned files).
    func periodEnd(containing unix: Double, origin: Double) -> Double {
        let interval = interval ?? 86400
        if aligned {
            let offset = Double(zone.offset(at: unix))
            return ((unix + offset) / interval).rounded(.up) * interval - offset
        }
        return origin + max(1, ((unix - origin) / interval).rounded(.up)) * interval
    }
}
