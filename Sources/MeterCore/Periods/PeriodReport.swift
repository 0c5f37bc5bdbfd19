/// One period's figures (the NDJSON `period` line, a CSV row), per channel in the unit of the
/// levels they are of (see `LevelStatistics`).
public struct PeriodReport: Sendable, Equatable {
    /// Unix times of the period's first and last moment, and the offsets from UTC in force then.
    public var start: Double, end: Double
    public var startOffset: Int, endOffset: Int
    /// Seconds of audio the period holds.
    public var seconds: Double
    /// Shorter than the interval: the run started or ended inside it.
    public var partial: Bool
    public var leqDb: [Double], lmaxDb: [Double], lminDb: [Double]
    public var l10Db: [Double], l50Db: [Double], l90Db: [Double]
    public var peakDb: [Double]
    /// With loudness: the period's own gated integrated loudness, its highest momentary and
    /// short-term loudness, and per channel its highest true peak.
    public var loudness: Loudness?
    /// Seconds of audio lost in the period (live outages); nil when none was.
    public var gapSeconds: Double?
    public var stream: Int?

    public struct Loudness: Sendable, Equatable {
        public var integrated: Double, maxMomentary: Double, maxShortTerm: Double
        public var truePeakDb: [Double]
    }
}

/// One day's Lden figures (the NDJSON `day` line), per channel, per Directive 2002/49/EC
/// Annex I: the day 07-19, the evening 19-23 and the night 23-07 that follows the day.
public struct DayReport: Sendable, Equatable {
    /// The calendar day the line is of (its night runs to 07:00 of the next).
    public var date: CivilTime.Date
    public var start: Double, end: Double
    public var startOffset: Int, endOffset: Int
    public var seconds: Double
    /// Some of the day's hours (24, or 23 or 25 on a clock change) had no audio.
    public var partial: Bool
    /// Each part's Leq; nil when that part had no audio.
    public var ldayDb: [Double]?, leveningDb: [Double]?, lnightDb: [Double]?
    /// Only when all three parts had audio.
    public var ldenDb: [Double]?
    public var stream: Int?

    /// Lden = 10 lg (1/24 (12 10^(Lday/10) + 4 10^((Levening+5)/10) + 8 10^((Lnight+10)/10))).
    public static func lden(day: Double, evening: Double, night: Double) -> Double {
        10 * PureMath.log10((12 * PureMath.pow(10, day / 10) + 4 * PureMath.pow(10, (evening + 5) / 10)
            + 8 * PureMath.pow(10, (night + 10) / 10)) / 24)
    }
}
