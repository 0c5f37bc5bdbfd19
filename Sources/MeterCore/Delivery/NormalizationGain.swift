/// The one static gain `normalize` applies to a file (or to every file of an album): the
/// target minus the integrated loudness, lowered when it would lift the true peak over the
/// ceiling, unless a true-peak limiter is to hold the peaks instead.
public struct NormalizationGain: Sendable, Equatable {
    /// The gain applied, dB.
    public let gainDb: Double
    /// The gain target minus I asked for, dB.
    public let wantedDb: Double
    /// True when the ceiling lowered the gain below `wantedDb`.
    public let limitedByTruePeak: Bool
    /// True when the limiter has to hold peaks the gain lifts over the ceiling.
    public let needsLimiter: Bool

    /// - Parameters:
    ///   - integrated: the loudness measured (LUFS; an album's joint loudness in album mode).
    ///   - truePeakDb: the largest true peak measured (dBTP; an album's largest).
    ///   - limiter: `--limit`: keep the whole gain and let the limiter hold the peaks.
    public init(integrated: Double, truePeakDb: Double, target: Double, ceiling: Double, limiter: Bool) {
        wantedDb = target - integrated
        let over = truePeakDb + wantedDb > ceiling
        if over && !limiter {
            gainDb = ceiling - truePeakDb
            limitedByTruePeak = true
        } else {
            gainDb = wantedDb
            limitedByTruePeak = false
        }
        needsLimiter = over && limiter
    }

    /// The gain as a factor on the samples.
    public var linear: Float { Float(PureMath.pow(10, gainDb / 20)) }
}
