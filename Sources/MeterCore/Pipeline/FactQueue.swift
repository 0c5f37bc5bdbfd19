import Synchronization

/// A lock-free single-producer / single-consumer queue for the rare facts a capture thread
/// hands the analysis beside the audio: gaps, device changes, losses of the source. Neither
/// side waits on the other (the same rule as `ChunkRing`): the producer stores an element and
/// publishes it with a releasing store of `tail`; the consumer reads `tail` with an acquiring
/// load, moves the element out, and hands the slot back with a releasing store of `head`.
///
/// The analysis looks at every wake-up, when the queue is nearly always empty: `take` then
/// costs two atomic loads and allocates nothing. A full queue (`capacity` facts the analysis
/// has not taken, which a live run does not come near: a fact is an outage or a device change)
/// refuses the fact, and `refused` counts it.
///
/// Thread-safety invariant (why `@unchecked Sendable` is sound): exactly one thread calls
/// `push` and exactly one calls `take`; a slot is written only while it is outside
/// [head, tail) and read only while inside it, and the atomics order the accesses.
public final class FactQueue<Element: Sendable>: @unchecked Sendable {
    public let capacity: Int
    private let slots: UnsafeMutablePointer<Element?>
    private let head = Atomic<Int>(0)   // next slot to read; written by the consumer
    private let tail = Atomic<Int>(0)   // next slot to write; written by the producer
    private let refusedCount = Atomic<Int>(0)

    public init(capacity: Int = 1024) {
        precondition(capacity >= 1)
        self.capacity = capacity
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// Producer: queues `element`; false (and counted in `refused`) when the queue is full.
    @discardableResult
    public func push(_ element: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        guard t - head.load(ordering: .acquiring) < capacity else {
            refusedCount.add(1, ordering: .relaxed)
            return false
        }
        slots[t % capacity] = element
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    /// Consumer: removes and returns, in the order they were pushed, the facts at the front
    /// for which `due` holds; stops at the first that is not due (it stays, with those after it).
    public func take(while due: (Element) -> Bool) -> [Element] {
        var h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        guard h < t else { return [] }
        var taken: [Element] = []
        while h < t, let element = slots[h % capacity], due(element) {
            slots[h % capacity] = nil
            taken.append(element)
            h += 1
        }
        head.store(h, ordering: .releasing)
        return taken
    }

    /// Consumer: true when no fact waits (two atomic loads, nothing generic to instantiate: the
    /// analysis asks at every wake-up before it takes).
    public var isEmpty: Bool { head.load(ordering: .relaxed) == tail.load(ordering: .acquiring) }

    /// Facts refused because the queue was full.
    public var refused: Int { refusedCount.load(ordering: .relaxed) }
}
