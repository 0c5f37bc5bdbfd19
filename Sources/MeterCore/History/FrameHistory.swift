/// What `GET /history` serves: the frame lines of the last 10 minutes at 10 per second (the
/// slots `HistorySlots` closes), and the event and gap lines among them.
///
/// The lines are held in rings of `capacity` frames and `eventCapacity` event lines, so memory
/// is bounded by those counts times a line's length (docs/network.md). A value type: the sink
/// appends under a short lock, a request copies it out under that lock and renders the copy.
public struct FrameHistory: Sendable {
    public static let seconds = 600
    /// Frame lines held: 10 minutes at 10 per second.
    public static let capacity = seconds * HistorySlots.perSecond
    /// Event and gap lines held.
    public static let eventCapacity = 1000

    private struct Held: Sendable {
        var pos: Int
        var line: [UInt8]
    }

    private var rate = 0
    private var frames: [Held] = []
    private var nextFrame = 0
    private var events: [Held] = []
    private var nextEvent = 0

    public init() {}

    /// Empty, for a stream of `rate` (a start line).
    public init(rate: Int) { self.rate = rate }

    /// A closed slot's frame line.
    public mutating func append(_ line: [UInt8], pos: Int) {
        Self.push(Held(pos: pos, line: line), into: &frames, next: &nextFrame, capacity: Self.capacity)
    }

    /// An event or gap line at `pos`, of `stream` (only the first stream's are kept).
    public mutating func note(_ line: [UInt8], pos: Int, stream: Int?) {
        guard (stream ?? 0) == 0 else { return }
        Self.push(Held(pos: pos, line: line), into: &events, next: &nextEvent, capacity: Self.eventCapacity)
    }

    private static func push(_ h: Held, into ring: inout [Held], next: inout Int, capacity: Int) {
        if ring.count < capacity { ring.append(h) } else { ring[next % capacity] = h }
        next += 1
    }

    /// The ring's entries, oldest first.
    private static func ordered(_ ring: [Held], next: Int) -> [Held] {
        guard next > ring.count else { return ring }
        let k = next % ring.count
        return Array(ring[k...] + ring[..<k])
    }

    /// Frame lines held.
    public var count: Int { frames.count }

    /// The frames of the last `seconds` (all that are held when fewer), oldest first, each
    /// event or gap line after the frame whose time it falls in (one at the first frame's slot's
    /// start, a silence from pos 0, included); nothing before the first frame's slot.
    public func lines(seconds: Double) -> [UInt8] {
        let held = Self.ordered(frames, next: nextFrame)
        guard let newest = held.last, rate > 0 else { return [] }
        let from = Double(newest.pos) - seconds * Double(rate)
        let kept = held.filter { Double($0.pos) > from }
        guard let first = kept.first else { return [] }
        let earliest = first.pos - rate / HistorySlots.perSecond
        var marks = Self.ordered(events, next: nextEvent).filter { $0.pos >= earliest && $0.pos <= newest.pos }[...]
        var out: [UInt8] = []
        for h in kept {
            out += h.line
            while let e = marks.first, e.pos <= h.pos {
                out += e.line
                marks = marks.dropFirst()
            }
        }
        return out
    }
}
