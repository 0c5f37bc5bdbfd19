import Foundation
import Synchronization
import Testing
import TestSupport
@testable import MeterCore

/// The lock-free SPSC ring. scripts/test also runs this suite under ThreadSanitizer
/// (`--filter ChunkRingTests`), so the stress tests stay a few seconds long even there.
@Suite struct ChunkRingTests {
    @Test func wrapsAtEveryPositionElementByElement() {
        for slots in [2, 3, 4, 5, 8] {
            for capacity in [1, 3, 16] {
                let ring = ChunkRing<UInt64>(slots: slots, slotCapacity: capacity)
                var model: [(pos: Int, values: [UInt64])] = []
                var next: UInt64 = 0
                var pos = 0
                var rng = SeededRNG(seed: UInt64(slots * 100 + capacity))
                // Enough operations that head and tail pass every slot index many times, at
                // every fill level from empty to full.
                for step in 0..<(slots * 400) {
                    let doPush = model.isEmpty || (model.count < slots && rng.next() % 2 == 0) || (step % 97 == 0)
                    if doPush {
                        let count = Int(rng.next() % UInt64(capacity + 1))  // 0 ... capacity
                        let values = (0..<count).map { _ -> UInt64 in next += 1; return next }
                        let ok = values.withUnsafeBufferPointer { ring.push($0, position: pos) }
                        if model.count == slots {
                            #expect(!ok, "slots \(slots): push into a full ring accepted")
                        } else {
                            #expect(ok)
                            model.append((pos, values))
                            pos += count
                        }
                    } else {
                        let expected = model.removeFirst()
                        var seen: [UInt64] = []
                        var seenPos = -1
                        let ok = ring.pop { buf, p in
                            seen = Array(buf)
                            seenPos = p
                        }
                        #expect(ok)
                        #expect(seen == expected.values, "slots \(slots) cap \(capacity) step \(step)")
                        #expect(seenPos == expected.pos)
                    }
                    #expect(ring.available == model.count)
                }
                // Drain.
                while let expected = model.first {
                    model.removeFirst()
                    var got: ([UInt64], Int) = ([], -1)
                    let ok = ring.pop { buf, p in got = (Array(buf), p) }
                    #expect(ok)
                    #expect(got.0 == expected.values && got.1 == expected.pos)
                }
                var extra = false
                #expect(!ring.pop { _, _ in extra = true })
                #expect(!extra)
                #expect(ring.available == 0)
            }
        }
    }

    @Test func fullRingRefusesWithoutCallingFill() {
        let ring = ChunkRing<Int32>(slots: 4, slotCapacity: 8)
        for round in 0..<10 {
            // Fill every slot (the ring has rotated by `round` slots).
            for s in 0..<4 {
                let ok = ring.withWritableSlot(position: round * 100 + s) { buf in
                    #expect(buf.count == 8)
                    for i in 0..<8 { buf[i] = Int32(round * 1000 + s * 10 + i) }
                    return 8
                }
                #expect(ok)
            }
            #expect(ring.available == 4)
            var called = false
            #expect(!ring.withWritableSlot(position: -1) { _ in called = true; return 1 })
            #expect(!called)
            let one: [Int32] = [7]
            #expect(!one.withUnsafeBufferPointer { ring.push($0, position: -1) })
            #expect(ring.available == 4)
            // Free one slot: exactly one more push fits.
            var got: ([Int32], Int) = ([], -1)
            #expect(ring.pop { buf, p in got = (Array(buf), p) })
            #expect(got.1 == round * 100)
            #expect(got.0 == (0..<8).map { Int32(round * 1000 + $0) })
            #expect(one.withUnsafeBufferPointer { ring.push($0, position: round * 100 + 4) })
            #expect(!one.withUnsafeBufferPointer { ring.push($0, position: -1) })
            for s in 1..<4 {
                #expect(ring.pop { buf, p in got = (Array(buf), p) })
                #expect(got.1 == round * 100 + s)
                #expect(got.0 == (0..<8).map { Int32(round * 1000 + s * 10 + $0) })
            }
            #expect(ring.pop { buf, p in got = (Array(buf), p) })
            #expect(got.1 == round * 100 + 4)
            #expect(got.0 == [7])
            #expect(ring.available == 0)
        }
    }

    @Test func fillCountIsClampedToTheSlot() {
        let ring = ChunkRing<Float>(slots: 2, slotCapacity: 4)
        #expect(ring.withWritableSlot(position: 0) { buf in
            for i in 0..<4 { buf[i] = Float(i) }
            return 99
        })
        #expect(ring.withWritableSlot(position: 4) { _ in -5 })
        var got: ([Float], Int) = ([], -1)
        #expect(ring.pop { buf, p in got = (Array(buf), p) })
        #expect(got.0 == [0, 1, 2, 3] && got.1 == 0)
        #expect(ring.pop { buf, p in got = (Array(buf), p) })
        #expect(got.0.isEmpty && got.1 == 4)
    }

    @Test func closeIsSeenByTheConsumer() {
        let ring = ChunkRing<UInt8>(slots: 3, slotCapacity: 2)
        #expect(!ring.isClosed)
        let v: [UInt8] = [1, 2]
        #expect(v.withUnsafeBufferPointer { ring.push($0, position: 0) })
        ring.close()
        #expect(ring.isClosed)
        // Chunks pushed before the close are still there.
        #expect(ring.available == 1)
        var got: [UInt8] = []
        #expect(ring.pop { buf, _ in got = Array(buf) })
        #expect(got == [1, 2])
        #expect(!ring.pop { _, _ in })
    }

    @Test func throwingReaderStillFreesTheSlot() {
        struct Boom: Error {}
        let ring = ChunkRing<Int>(slots: 2, slotCapacity: 1)
        let v = [5]
        #expect(v.withUnsafeBufferPointer { ring.push($0, position: 0) })
        #expect(throws: Boom.self) { try ring.pop { _, _ in throw Boom() } }
        #expect(ring.available == 0)
    }

    /// Counters shared between the producer thread and the test.
    final class Shared: Sendable {
        let dropped = Atomic<Int>(0)
        let pushedChunks = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
    }

    /// Starts the producer: chunks of 1 ... capacity elements holding their own absolute
    /// sequence numbers, stamped with the position of their first element. `lossy`: on a full
    /// ring it drops the chunk (as live capture does) instead of waiting.
    static func startProducer(_ ring: ChunkRing<UInt64>, total: Int, lossy: Bool, shared: Shared) {
        let thread = Thread {
            var pos = 0
            var size = 1
            var spins = 0
            while pos < total {
                let n = min(size, total - pos, ring.slotCapacity)
                let start = pos
                let ok = ring.withWritableSlot(position: start) { buf in
                    for i in 0..<n { buf[i] = UInt64(start + i) &* 0x9E37_79B9 ^ 0x5555 }
                    return n
                }
                if ok {
                    pos += n
                    shared.pushedChunks.add(1, ordering: .relaxed)
                    size = size % ring.slotCapacity + 1 + (size * 7) % 5
                } else if lossy {
                    pos += n  // dropped: these elements never reach the consumer
                    shared.dropped.add(n, ordering: .relaxed)
                } else {
                    spins += 1
                    if spins % 4 == 0 { sched_yield() }
                }
            }
            ring.close()
            shared.done.signal()
        }
        thread.start()
    }

    /// Consumes until the ring is closed and empty; checks every element and position.
    static func consume(_ ring: ChunkRing<UInt64>, total: Int, lossless: Bool) -> (elements: Int, chunks: Int, errors: Int, lastEnd: Int) {
        var expectedPos = 0
        var elements = 0, chunks = 0, errors = 0
        var idle = 0
        func take() -> Bool {
            ring.pop { buf, p in
                if lossless ? p != expectedPos : p < expectedPos { errors += 1 }
                if buf.isEmpty { errors += 1 }
                for i in 0..<buf.count where buf[i] != UInt64(p + i) &* 0x9E37_79B9 ^ 0x5555 { errors += 1 }
                expectedPos = p + buf.count
                elements += buf.count
                chunks += 1
            }
        }
        while true {
            if take() { idle = 0; continue }
            if ring.isClosed {
                while take() {}
                break
            }
            idle += 1
            if idle % 8 == 0 { sched_yield() }
        }
        return (elements, chunks, errors, expectedPos)
    }

    @Test func producerConsumerStressLossless() {
        let total = 3_000_000
        for (slots, capacity) in [(4, 256), (2, 97), (16, 1024)] {
            let ring = ChunkRing<UInt64>(slots: slots, slotCapacity: capacity)
            let shared = Shared()
            Self.startProducer(ring, total: total, lossy: false, shared: shared)
            let r = Self.consume(ring, total: total, lossless: true)
            shared.done.wait()
            #expect(r.errors == 0, "slots \(slots) cap \(capacity)")
            #expect(r.elements == total)
            #expect(r.lastEnd == total)
            #expect(r.chunks == shared.pushedChunks.load(ordering: .relaxed))
            #expect(shared.dropped.load(ordering: .relaxed) == 0)
        }
    }

    @Test func producerConsumerStressLossy() {
        // The producer never waits; whatever it drops is accounted for, the rest arrives intact
        // and in order, at its true positions.
        let total = 2_000_000
        for (slots, capacity) in [(2, 64), (8, 512)] {
            let ring = ChunkRing<UInt64>(slots: slots, slotCapacity: capacity)
            let shared = Shared()
            Self.startProducer(ring, total: total, lossy: true, shared: shared)
            let r = Self.consume(ring, total: total, lossless: false)
            shared.done.wait()
            let dropped = shared.dropped.load(ordering: .relaxed)
            #expect(r.errors == 0, "slots \(slots) cap \(capacity)")
            #expect(r.elements + dropped == total)
            #expect(r.chunks == shared.pushedChunks.load(ordering: .relaxed))
            #expect(r.elements > 0)
        }
    }
}
