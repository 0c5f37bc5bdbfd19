import MeterCore
import Synchronization

/// The one blocking single-producer / single-consumer handoff: a `ChunkRing` plus wake-ups, so
/// a side with nothing to do sleeps in the kernel instead of polling.
///
/// Each side says how much it waits for (`waitForChunks(n)`, `waitForSpace(n)`); the other
/// side wakes it only once that much is there, so the consumer of live capture wakes once per
/// meter hop, not once per chunk. Waking costs the waking side a `sem_post` and only when the
/// other side sleeps: the producer never blocks in `push`, so capture may use it (a full ring
/// refuses the chunk at once, as `ChunkRing` does). `cancel()` wakes both sides for good.
///
/// Thread-safety invariant for `@unchecked Sendable`: one thread produces and one consumes,
/// as for `ChunkRing`; everything else is atomic or a semaphore. The "wants" handshake is a
/// Dekker pair: each side publishes (tail / head / wants), fences, then reads the other's.
public final class ChunkHandoff<Element: BitwiseCopyable>: @unchecked Sendable {
    public let ring: ChunkRing<Element>
    private let consumerWake = Wakeup()
    private let producerWake = Wakeup()
    /// Chunks the sleeping consumer waits for; 0 while it is awake (the tests read it to
    /// see the consumer asleep).
    let consumerWants = Atomic<Int>(0)
    /// Free slots the sleeping producer waits for; 0 while it is awake (likewise).
    let producerWants = Atomic<Int>(0)
    private let cancelled = Atomic<Bool>(false)

    public init(slots: Int, slotCapacity: Int) {
        ring = ChunkRing(slots: slots, slotCapacity: slotCapacity)
    }

    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Stops every wait, now and later, on both sides (a stop request, a side that gave up).
    public func cancel() {
        cancelled.store(true, ordering: .releasing)
        consumerWake.signal()
        producerWake.signal()
    }

    /// Cancels this handoff when `cancellation` is cancelled; `remove` the registration when
    /// the handoff is done with, or the cancellation keeps the handoff alive.
    @discardableResult
    public func cancel(on cancellation: Cancellation) -> Cancellation.Registration {
        cancellation.onCancel { [self] in cancel() }
    }

    // MARK: producer

    /// `ChunkRing.withWritableSlot`, then wakes the consumer if it waits for this much.
    @discardableResult
    public func withWritableSlot(position: Int, _ fill: (UnsafeMutableBufferPointer<Element>) -> Int) -> Bool {
        guard ring.withWritableSlot(position: position, fill) else { return false }
        wakeConsumerIfDue()
        return true
    }

    /// `ChunkRing.push`, then wakes the consumer if it waits for this much.
    @discardableResult
    public func push(_ elements: UnsafeBufferPointer<Element>, position: Int) -> Bool {
        guard ring.push(elements, position: position) else { return false }
        wakeConsumerIfDue()
        return true
    }

    /// No more chunks: wakes the consumer whatever it waits for.
    public func close() {
        ring.close()
        consumerWake.signal()
    }

    /// Wakes a consumer sleeping in `waitForChunks` without a chunk (to look at other state).
    public func nudgeConsumer() { consumerWake.signal() }

    /// Sleeps until at least `slots` slots are free; false when cancelled.
    public func waitForSpace(slots: Int = 1) -> Bool {
        let n = min(max(1, slots), ring.slotCount)
        while true {
            if isCancelled { return false }
            if ring.slotCount - ring.available >= n { return true }
            producerWants.store(n, ordering: .sequentiallyConsistent)
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            if isCancelled || ring.slotCount - ring.available >= n {
                producerWants.store(0, ordering: .sequentiallyConsistent)
                continue
            }
            producerWake.wait()
        }
    }

    private func wakeConsumerIfDue() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        let want = consumerWants.load(ordering: .sequentiallyConsistent)
        guard want > 0, ring.available >= want else { return }
        if consumerWants.compareExchange(expected: want, desired: 0, ordering: .sequentiallyConsistent).exchanged {
            consumerWake.signal()
        }
    }

    // MARK: consumer

    /// `ChunkRing.pop`, then wakes the producer if it waits for the space.
    @discardableResult
    public func pop(_ read: (UnsafeBufferPointer<Element>, _ position: Int) throws -> Void) rethrows -> Bool {
        guard try ring.pop(read) else { return false }
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        let want = producerWants.load(ordering: .sequentiallyConsistent)
        if want > 0, ring.slotCount - ring.available >= want,
           producerWants.compareExchange(expected: want, desired: 0, ordering: .sequentiallyConsistent).exchanged {
            producerWake.signal()
        }
        return true
    }

    /// Sleeps until at least `chunks` chunks wait, the producer closed the ring, it was
    /// nudged, or cancelled. Returns false when nothing more will come (closed and empty, or
    /// cancelled); chunks may still wait after a cancel.
    @discardableResult
    public func waitForChunks(_ chunks: Int = 1) -> Bool {
        let n = min(max(1, chunks), ring.slotCount)
        if ring.available >= n { return true }
        if !isCancelled && !ring.isClosed {
            consumerWants.store(n, ordering: .sequentiallyConsistent)
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            if !isCancelled && !ring.isClosed && ring.available < n { consumerWake.wait() }
            consumerWants.store(0, ordering: .sequentiallyConsistent)
        }
        return !(isCancelled || ring.isClosed) || ring.available > 0
    }
}
