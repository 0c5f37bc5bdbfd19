import Synchronization

/// A lock-free single-producer / single-consumer ring of fixed-size chunks of samples.
///
/// The capture thread fills a slot in place (`withWritableSlot`), stamps it with the absolute
/// position of its first frame, and publishes it with a releasing store of `tail`; the consumer
/// reads `tail` with an acquiring load, reads the slot, and hands it back with a releasing store
/// of `head`. Neither side ever waits on the other: a full ring makes `withWritableSlot` return
/// false at once, so the producer can count the chunk as dropped (meter) or report the overflow
/// (recorder). Positions let the consumer see exactly where chunks are missing.
///
/// Thread-safety invariant (why `@unchecked Sendable` is sound): exactly one thread calls the
/// producer methods and exactly one calls the consumer methods; a slot is written only while
/// it is outside [head, tail) and read only while inside it, and the atomics order the accesses.
public final class ChunkRing<Element: BitwiseCopyable>: @unchecked Sendable {
    public let slotCount: Int
    /// Elements a slot holds at most.
    public let slotCapacity: Int

    private let storage: UnsafeMutablePointer<Element>
    private let counts: UnsafeMutablePointer<Int>
    private let positions: UnsafeMutablePointer<Int>
    private let head = Atomic<Int>(0)   // next slot to read; written by the consumer
    private let tail = Atomic<Int>(0)   // next slot to write; written by the producer
    private let closedFlag = Atomic<Bool>(false)

    public init(slots: Int, slotCapacity: Int) {
        precondition(slots >= 2 && slotCapacity >= 1)
        slotCount = slots
        self.slotCapacity = slotCapacity
        storage = .allocate(capacity: slots * slotCapacity)
        counts = .allocate(capacity: slots)
        counts.initialize(repeating: 0, count: slots)
        positions = .allocate(capacity: slots)
        positions.initialize(repeating: 0, count: slots)
    }

    deinit {
        storage.deallocate()
        counts.deallocate()
        positions.deallocate()
    }

    // MARK: producer

    /// Lets `fill` write up to `slotCapacity` elements into the next free slot and return how
    /// many it wrote; publishes them at `position`. Returns false without calling `fill` when
    /// the ring is full.
    @discardableResult
    public func withWritableSlot(position: Int, _ fill: (UnsafeMutableBufferPointer<Element>) -> Int) -> Bool {
        let t = tail.load(ordering: .relaxed)
        guard t - head.load(ordering: .acquiring) < slotCount else { return false }
        let slot = t % slotCount
        let n = fill(UnsafeMutableBufferPointer(start: storage + slot * slotCapacity, count: slotCapacity))
        counts[slot] = min(max(0, n), slotCapacity)
        positions[slot] = position
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    /// Copies `elements` into the next free slot; false when the ring is full.
    @discardableResult
    public func push(_ elements: UnsafeBufferPointer<Element>, position: Int) -> Bool {
        precondition(elements.count <= slotCapacity)
        return withWritableSlot(position: position) { slot in
            guard let base = elements.baseAddress else { return 0 }
            slot.baseAddress!.update(from: base, count: elements.count)
            return elements.count
        }
    }

    /// Tells the consumer no more chunks will come.
    public func close() { closedFlag.store(true, ordering: .releasing) }

    // MARK: consumer

    /// True once the producer closed the ring; chunks pushed before may still be waiting.
    public var isClosed: Bool { closedFlag.load(ordering: .acquiring) }

    /// Chunks waiting to be read.
    public var available: Int { tail.load(ordering: .acquiring) - head.load(ordering: .relaxed) }

    /// Reads the oldest chunk, if any, and frees its slot afterwards. Returns false when empty.
    @discardableResult
    public func pop(_ read: (UnsafeBufferPointer<Element>, _ position: Int) throws -> Void) rethrows -> Bool {
        let h = head.load(ordering: .relaxed)
        guard tail.load(ordering: .acquiring) > h else { return false }
        let slot = h % slotCount
        defer { head.store(h + 1, ordering: .releasing) }
        try read(UnsafeBufferPointer(start: storage + slot * slotCapacity, count: counts[slot]), positions[slot])
        return true
    }
}
