/// Turns meter frames into `--alarm` events: for each alarm, and for a per-channel metric for
/// each channel, `alarm_on` once its condition has held for the alarm's time and `alarm_off`
/// once the clear condition has held for the clear time.
///
/// Time is counted in samples of the frames (positions), never wall time, so files and live
/// runs raise the same alarms for the same samples. A condition holds from the start of the
/// hop of the first frame that meets it (the previous frame's `pos`) and is broken by the
/// first frame that does not; the event is at the `pos` of the frame that completes the time,
/// with the level that frame read and how long the condition had then held. An alarm still on
/// at the end of the stream stays on: no `alarm_off` is made up for it.
///
/// A part of `MeterPipeline`, fed each frame after every reading the frame carries is set.
public struct AlarmDetector {
    public let specs: [AlarmSpec]
    private let rate: Int
    /// One state per alarm and channel (one for a metric of the whole stream).
    private struct State {
        var on = false
        /// Where the condition that changes the state (past the level when off, clear when on)
        /// began to hold; nil while it does not.
        var since: Int?
    }
    private var states: [[State]]
    /// The previous frame's position: where the current frame's hop began.
    private var lastPos = 0

    public init(specs: [AlarmSpec], rate: Int, channels: Int) {
        self.specs = specs
        self.rate = rate
        states = specs.map { Array(repeating: State(), count: $0.metric.perChannel ? channels : 1) }
    }

    /// Whether alarm `index` is on now, per channel (one value for a whole-stream metric).
    public func isOn(_ index: Int) -> [Bool] { states[index].map(\.on) }

    /// Appends the alarm changes `frame` brings to `events`.
    public mutating func observe(_ frame: MeterFrame, into events: inout [MeterEvent]) {
        let hopStart = min(lastPos, frame.pos)
        lastPos = frame.pos
        for (i, spec) in specs.enumerated() {
            for c in states[i].indices {
                guard let value = Self.value(of: spec.metric, channel: c, in: frame) else { continue }
                let perChannel = spec.metric.perChannel
                if let change = step(&states[i][c], spec, value: value, hopStart: hopStart, pos: frame.pos) {
                    events.append(MeterEvent(.alarm(AlarmChange(
                        on: change.on, name: spec.name, metric: spec.metric, channel: perChannel ? c : nil,
                        level: value, heldSeconds: Double(change.held) / Double(rate))), pos: frame.pos))
                }
            }
        }
    }

    /// Advances one state by a frame; returns the change it makes, if any.
    private func step(_ state: inout State, _ spec: AlarmSpec, value: Double, hopStart: Int,
                      pos: Int) -> (on: Bool, held: Int)? {
        let holds = state.on ? spec.isClear(value) : spec.isPast(value)
        guard holds else {
            state.since = nil
            return nil
        }
        let since = state.since ?? hopStart
        state.since = since
        let needed = MeterSettings.frames(seconds: state.on ? spec.clearSeconds : spec.seconds, rate: rate)
        guard pos - since >= needed else { return nil }
        state.on.toggle()
        state.since = nil
        return (state.on, pos - since)
    }

    /// The frame's reading of `metric` (channel `c` of a per-channel one); nil when the frame
    /// does not carry it.
    static func value(of metric: AlarmSpec.Metric, channel c: Int, in f: MeterFrame) -> Double? {
        func at(_ values: [Double]?) -> Double? { values.flatMap { c < $0.count ? $0[c] : nil } }
        switch metric {
        case .rmsDb: return at(f.rmsDb)
        case .peakDb: return at(f.peakDb)
        case .lufsM: return f.loudness?.momentary
        case .lufsS: return f.loudness?.shortTerm
        case .truePeakDb: return at(f.loudness?.truePeakDb)
        case .splDb: return at(f.spl?.splDb)
        case .leqDb: return at(f.spl?.leqDb)
        case .correlation: return f.correlation
        }
    }
}
