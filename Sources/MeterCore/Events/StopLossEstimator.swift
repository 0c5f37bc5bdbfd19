/// Measures the audio a capture lost while the process was stopped (Ctrl-Z, SIGSTOP).
///
/// While a process is stopped nothing reads the server: its record buffer fills, and what
/// arrives after that is dropped. The client cannot ask the simple API what was dropped, but
/// it can see it in time: `offset = t - pos / rate` (the wall time at which position 0 would
/// have been captured) stays constant while reads keep up, up to scheduling jitter. After a
/// stop of D seconds of which the server held B, the reads deliver the B seconds of backlog at
/// once, then go on live with the offset D - B higher: the missing audio. So the estimator
/// keeps the lowest offset of the last second or two before the stop, and after the process
/// continues, the lowest offset once the reads are live again (half a second of reads that take
/// at least half their audio's length in wall time); the difference is the loss. The loss sits
/// where the backlog ends (the server dropped the newest audio, not the oldest): the position
/// after the last quick read.
///
/// Times are on a monotonic clock, in seconds. Fed by the capture thread, one call per read.
public struct StopLossEstimator: Sendable {
    /// A measured loss: `frames` missing at capture position `pos`; the process was stopped
    /// from about `stoppedAt` until about `continuedAt` (monotonic seconds).
    public struct Loss: Sendable, Equatable {
        public var pos: Int
        public var frames: Int
        public var stoppedAt: Double
        public var continuedAt: Double
    }

    private let rate: Double
    /// Losses smaller than this (seconds) are jitter, not audio lost.
    public let threshold: Double
    /// The lowest offset in the current and the previous one-second window (before a stop).
    private var windowMin = Double.infinity, previousMin = Double.infinity
    private var windowStart: Double?
    private var last: (t: Double, pos: Int)?
    /// The read before `last`, for a continue seen one read late.
    private var beforeLast: (t: Double, pos: Int)?
    /// Set by `continued()`, taken at the next read.
    private var continuePending = false
    private var measuring: Measurement?

    private struct Measurement {
        var baseline: Double
        var stoppedAt: Double
        /// Position after the last read that came faster than real time (the backlog's end).
        var backlogEnd: Int
        var continuedAt: Double
        var liveSince: Double?
        var liveMin = Double.infinity
    }

    /// `chunkSeconds`: the length of one read; losses under 1.5 reads (and under 30 ms) are
    /// not reported.
    public init(rate: Int, chunkSeconds: Double) {
        self.rate = Double(rate)
        threshold = max(0.03, 1.5 * chunkSeconds)
    }

    /// The process was continued after a stop (SIGCONT): the next reads are measured.
    public mutating func continued() { continuePending = true }

    /// Forgets the history (a new stream after a reconnect starts a new time line).
    public mutating func reset() {
        self = StopLossEstimator(rate: Int(rate), threshold: threshold)
    }

    private init(rate: Int, threshold: Double) {
        self.rate = Double(rate)
        self.threshold = threshold
    }

    /// A read that ended at capture position `pos` completed at time `t`. Returns a loss once
    /// the reads after a stop are live again and the loss is over the threshold.
    public mutating func read(endingAt pos: Int, at t: Double) -> Loss? {
        defer {
            beforeLast = last
            last = (t, pos)
        }
        let offset = t - Double(pos) / rate
        if continuePending, let last {
            continuePending = false
            // The read whose wait spans the stop is this one, or (a continue seen late) the
            // one before: the longer wait. Neither says anything about being live.
            if let b = beforeLast, last.t - b.t > t - last.t {
                measuring = Measurement(baseline: min(windowMin, previousMin), stoppedAt: b.t, backlogEnd: b.pos,
                                        continuedAt: last.t)
            } else {
                measuring = Measurement(baseline: min(windowMin, previousMin), stoppedAt: last.t, backlogEnd: last.pos,
                                        continuedAt: t)
                return nil
            }
        }
        guard var m = measuring else {
            if windowStart == nil || t - windowStart! >= 1 {
                previousMin = windowMin
                windowMin = .infinity
                windowStart = t
            }
            windowMin = min(windowMin, offset)
            return nil
        }
        defer { if measuring != nil { measuring = m } }
        let took = last.map { t - $0.t } ?? 0
        let audio = last.map { Double(pos - $0.pos) / rate } ?? 0
        if took < 0.5 * audio {  // backlog: the server hands over what it held
            m.backlogEnd = pos
            m.liveSince = nil
            m.liveMin = .infinity
            return nil
        }
        if m.liveSince == nil { m.liveSince = last?.t ?? t }
        m.liveMin = min(m.liveMin, offset)
        guard t - m.liveSince! >= 0.5 else { return nil }
        measuring = nil
        windowMin = m.liveMin
        previousMin = .infinity
        windowStart = t
        let lost = m.liveMin - m.baseline
        guard m.baseline.isFinite, lost >= threshold else { return nil }
        return Loss(pos: m.backlogEnd, frames: Int((lost * rate).rounded()), stoppedAt: m.stoppedAt,
                    continuedAt: m.continuedAt)
    }
}
