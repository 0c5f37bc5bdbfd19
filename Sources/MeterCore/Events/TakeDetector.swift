/// Decides voice-activated takes (`record --trigger`) from meter frames, on the analysis side:
/// a take opens when any channel's `rms_db` rises above the level, starting `preRollFrames`
/// before the hop where it rose, and closes `holdFrames` after the last frame above it.
///
/// The decisions are sample positions; the recorder, which keeps the pre-roll itself, cuts
/// the captured samples there. Takes never overlap: one starts at the earliest where the
/// previous one ended.
public struct TakeDetector {
    public enum Change: Sendable, Equatable {
        /// A take starts at this position (the pre-roll included).
        case open(at: Int)
        /// The open take ends just before this position.
        case close(at: Int)
    }

    public let settings: TriggerSettings
    public private(set) var isOpen = false
    private var lastLoud = 0
    private var lastEnd = 0
    private var previousPos = 0

    public init(settings: TriggerSettings) { self.settings = settings }

    /// The change `frame` brings, if any.
    public mutating func observe(_ frame: MeterFrame) -> Change? {
        defer { previousPos = frame.pos }
        var loud = false
        for db in frame.rmsDb where db > settings.levelDb {
            loud = true
            break
        }
        if !isOpen {
            guard loud else { return nil }
            isOpen = true
            lastLoud = frame.pos
            return .open(at: max(lastEnd, previousPos - settings.preRollFrames, 0))
        }
        if loud {
            lastLoud = frame.pos
            return nil
        }
        guard frame.pos - lastLoud >= settings.holdFrames else { return nil }
        isOpen = false
        lastEnd = lastLoud + settings.holdFrames
        return .close(at: lastEnd)
    }

    /// At the end of the stream (`pos`): an open take ends there.
    public mutating func finish(at pos: Int) -> Change? {
        guard isOpen else { return nil }
        isOpen = false
        lastEnd = max(lastEnd, pos)
        return .close(at: pos)
    }
}
