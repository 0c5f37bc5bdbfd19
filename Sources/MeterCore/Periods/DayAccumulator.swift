/// One stream's Lden days (`--lden`): the Leq of the frame levels (the sound level meter's
/// time-weighted level, as `PeriodAccumulator` takes them) over the day (07-19), the evening
/// (19-23) and the night (23-07) in local time, a `DayReport` when a frame passes 07:00 and
/// for the last day at the end of the run. The night from 23:00 of day D to 07:00 of D+1
/// belongs to day D (Directive 2002/49/EC: the night that follows the day), so a day's line
/// comes at 07:00 of the next.
struct DayAccumulator {
    static let dayStarts = 7 * 3600.0
    /// Where the evening and the night begin, in seconds after 07:00.
    static let eveningFrom = 12 * 3600.0, nightFrom = 16 * 3600.0

    private let settings: PeriodSettings
    private let channels: Int
    private let offsetDb: Double
    /// Days since 1970-01-01 (local) of the day going on.
    private var day: Int?
    private var start = 0.0, lastTime = 0.0, seconds = 0.0
    private var parts: [[LevelStatistics]] = []

    init(settings: PeriodSettings, meter: MeterSettings) {
        self.settings = settings
        channels = meter.channels
        offsetDb = meter.levelOffsetDb
        reset()
    }

    private mutating func reset() {
        parts = Array(repeating: Array(repeating: LevelStatistics(offsetDb: offsetDb), count: channels), count: 3)
        seconds = 0
    }

    /// The day (local days since 1970) and its part (0 day, 1 evening, 2 night) of a frame
    /// ending at `time`.
    private func place(_ time: Double) -> (day: Int, part: Int) {
        let x = settings.local(time) - Self.dayStarts
        let day = Int((x / 86400).rounded(.up)) - 1
        let into = x - Double(day) * 86400
        return (day, into <= Self.eveningFrom ? 0 : into <= Self.nightFrom ? 1 : 2)
    }

    /// Takes a frame at `time` holding `audio` seconds; returns the day it closed, if any.
    mutating func add(levels frameLevels: [Double]?, time: Double, audio: Double) -> DayReport? {
        let (d, part) = place(time)
        var closed: DayReport?
        if let day, d != day {
            closed = report()
            reset()
        }
        if day != d {
            start = time - audio
            day = d
        }
        lastTime = time
        seconds += audio
        if let frameLevels {
            for c in 0..<channels { parts[part][c].add(frameLevels[c]) }
        }
        return closed
    }

    /// The day going on (nil before any frame).
    func finish() -> DayReport? { day == nil ? nil : report() }

    /// Unix time of 07:00 local of local day `d`.
    private func unix(ofDayStart d: Int) -> Double {
        let local = Double(d) * 86400 + Self.dayStarts
        return local - Double(settings.zone.offset(at: local))
    }

    private func report() -> DayReport {
        let d = day!
        func leq(_ p: Int) -> [Double]? { parts[p][0].count > 0 ? parts[p].map(\.leq) : nil }
        let (l, e, n) = (leq(0), leq(1), leq(2))
        var lden: [Double]?
        if let l, let e, let n { lden = (0..<channels).map { DayReport.lden(day: l[$0], evening: e[$0], night: n[$0]) } }
        let dayStart = unix(ofDayStart: d), dayEnd = unix(ofDayStart: d + 1)
        return DayReport(date: CivilTime.date(days: d), start: start, end: lastTime,
                         startOffset: settings.zone.offset(at: start), endOffset: settings.zone.offset(at: lastTime),
                         seconds: seconds, partial: seconds < dayEnd - dayStart - 0.5,
                         ldayDb: l, leveningDb: e, lnightDb: n, ldenDb: lden)
    }
}
