/// One stream's periods (`--interval`): the statistics of its frames' levels over each
/// period, a `PeriodReport` when a frame passes the period's end and for the last period at
/// the end of the run. The levels are each frame's `rms_db` per channel, or with the sound
/// level meter its time-weighted level (`spl_db`, e.g. LAF) once the detector has settled
/// (`TimeWeighting.settlingSamples`); `peak_db` is the highest frame peak. Memory is the
/// same whatever the interval.
struct PeriodAccumulator {
    private let settings: PeriodSettings
    private let interval: Double
    private let channels: Int
    private let offsetDb: Double
    private let loudness: Bool
    private var start = 0.0, end: Double?
    private var lastTime = 0.0
    private var first = true
    private var seconds = 0.0, gapSeconds = 0.0
    private var levels: [LevelStatistics]
    private var peak: [Double]
    private var gate = IntegratedGate()
    private var maxMomentary = Decibels.floor, maxShortTerm = Decibels.floor
    /// Per channel, the highest of the frames' own true peaks (dBTP).
    private var truePeak: [Double] = []

    init(settings: PeriodSettings, interval: Double, meter: MeterSettings) {
        self.settings = settings
        self.interval = interval
        channels = meter.channels
        offsetDb = meter.levelOffsetDb
        loudness = meter.loudness
        levels = []
        peak = []
        reset()
    }

    private mutating func reset() {
        levels = Array(repeating: LevelStatistics(offsetDb: offsetDb), count: channels)
        peak = Array(repeating: -Double.infinity, count: channels)
        if loudness { gate = IntegratedGate() }
        maxMomentary = Decibels.floor
        maxShortTerm = Decibels.floor
        truePeak = Array(repeating: Decibels.floor, count: channels)
        seconds = 0
        gapSeconds = 0
    }

    /// Takes a frame at `time` holding `audio` seconds; `levels` nil while the sound level
    /// meter settles. Returns the period the frame closed, if it closed one.
    mutating func add(_ frame: MeterFrame, levels frameLevels: [Double]?, time: Double, audio: Double,
                      origin: Double) -> PeriodReport? {
        var closed: PeriodReport?
        if let end, time > end {
            closed = report(endingAt: end)
            first = false
            reset()
        }
        if end == nil || time > end! {
            end = settings.periodEnd(containing: time, origin: origin)
            // The first period starts with the audio, or on its boundary when the first frame
            // began before it: a frame counts in the period where it ends, as in every period.
            start = first ? max(time - audio, end! - interval) : end! - interval
        }
        lastTime = time
        seconds += audio
        if let frameLevels {
            for c in 0..<channels { levels[c].add(frameLevels[c]) }
        }
        for c in 0..<channels { peak[c] = max(peak[c], frame.peakDb[c]) }
        if let l = frame.loudness {
            gate.add(energy: LoudnessMeter.energy(lufs: l.momentary))
            maxMomentary = max(maxMomentary, l.momentary)
            maxShortTerm = max(maxShortTerm, l.shortTerm)
            if let tp = l.frameTruePeakDb {
                for c in 0..<min(channels, tp.count) { truePeak[c] = max(truePeak[c], tp[c]) }
            }
        }
        return closed
    }

    mutating func gap(seconds lost: Double) { gapSeconds += lost }

    /// The period going on, cut at the last frame (nil before any frame).
    func finish() -> PeriodReport? {
        guard let end else { return nil }
        return report(endingAt: min(end, lastTime))
    }

    private func report(endingAt stop: Double) -> PeriodReport {
        let whole = (end ?? stop) - interval
        let floor = Decibels.floor + offsetDb
        return PeriodReport(
            start: start, end: stop,
            startOffset: settings.zone.offset(at: start), endOffset: settings.zone.offset(at: stop),
            seconds: seconds, partial: start > whole + 1e-6 || stop < (end ?? stop) - 1e-6,
            leqDb: levels.map(\.leq), lmaxDb: levels.map(\.max), lminDb: levels.map(\.min),
            l10Db: levels.map { $0.exceeded(10) }, l50Db: levels.map { $0.exceeded(50) },
            l90Db: levels.map { $0.exceeded(90) },
            peakDb: peak.map { $0.isFinite ? $0 : floor },
            loudness: loudness ? .init(integrated: gate.integratedLufs, maxMomentary: maxMomentary,
                                       maxShortTerm: maxShortTerm, truePeakDb: truePeak) : nil,
            gapSeconds: gapSeconds > 0 ? gapSeconds : nil)
    }
}
