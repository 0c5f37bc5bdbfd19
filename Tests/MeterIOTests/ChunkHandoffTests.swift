import Glibc
import Synchronization
import Testing
@testable import MeterCore
@testable import MeterIO
import TestSupport

/// The blocking handoff: both sides sleep instead of spinning, nothing is lost or reordered,
/// a consumer that waits for n chunks is woken only once n are there (or at the end), and a
/// cancellation wakes a sleeping side at once. Run under ThreadSanitizer by scripts/test.
@Suite struct ChunkHandoffTests {
    static func value(_ i: Int) -> UInt64 { UInt64(i) &* 0x9E37_79B9 ^ 0x5555 }

    @Test(arguments: [(2, 7, 1, 1), (4, 64, 3, 2), (16, 33, 8, 5)])
    func everyElementInOrderWithBothSidesSleeping(slots: Int, capacity: Int, want: Int, space: Int) throws {
        let handoff = ChunkHandoff<UInt64>(slots: slots, slotCapacity: capacity)
        let total = 200_000
        try OSThread.spawn(role: "test-producer") {
            var pos = 0
            var size = 1
            while pos < total {
                guard handoff.waitForSpace(slots: space) else { return }
                let n = min(size, total - pos, capacity)
                let start = pos
                #expect(handoff.withWritableSlot(position: start) { buf in
                    for i in 0..<n { buf[i] = Self.value(start + i) }
                    return n
                })
                pos += n
                size = size % capacity + 1
            }
            handoff.close()
        }
        var expected = 0, errors = 0
        while handoff.waitForChunks(want) {
            while handoff.pop({ buf, p in
                if p != expected { errors += 1 }
                for i in 0..<buf.count where buf[i] != Self.value(p + i) { errors += 1 }
                expected = p + buf.count
            }) {}
        }
        #expect(errors == 0)
        #expect(expected == total)
    }

    @Test func aConsumerWaitingForSeveralChunksWakesOnlyWhenTheyAreThere() throws {
        let handoff = ChunkHandoff<Int16>(slots: 8, slotCapacity: 4)
        let pushed = Atomic<Int>(0)
        try OSThread.spawn(role: "test-producer") {
            var one: [Int16] = [1, 2, 3, 4]
            for i in 0..<6 {
                Wait.pace(seconds: 0.002)  // the input: a producer slower than the consumer, one chunk at a time
                one[0] = Int16(i)
                pushed.store(i + 1, ordering: .releasing)
                one.withUnsafeBufferPointer { _ = handoff.push($0, position: i * 4) }
            }
            handoff.close()
        }
        handoff.waitForChunks(3)
        // Woken by the third push at the earliest (a stale wake-up may only come later).
        #expect(pushed.load(ordering: .acquiring) >= 3 && handoff.ring.available >= 3)
        var popped = 0
        while handoff.waitForChunks(3) { while handoff.pop({ _, _ in popped += 1 }) {} }
        #expect(popped == 6)
    }

    @Test func cancelWakesASleepingConsumer() throws {
        let handoff = ChunkHandoff<Float>(slots: 2, slotCapacity: 1)
        let cancellation = Cancellation()
        handoff.cancel(on: cancellation)
        try OSThread.spawn(role: "test-cancel") {
            let asleep = Wait.until(timeout: 10, interval: 0.001) { handoff.consumerWants.load(ordering: .acquiring) > 0 }
            #expect(asleep, "the consumer never went to sleep")
            cancellation.cancel()
        }
        // Empty and open: sleeps until the cancellation, then says nothing more will come.
        #expect(!handoff.waitForChunks(1))
        #expect(cancellation.isCancelled && handoff.isCancelled)
    }

    @Test func cancelWakesASleepingProducer() throws {
        let handoff = ChunkHandoff<Float>(slots: 2, slotCapacity: 1)
        var x: Float = 1
        for _ in 0..<2 {
            #expect(withUnsafePointer(to: &x) { handoff.push(UnsafeBufferPointer(start: $0, count: 1), position: 0) })
        }
        let result = Atomic<Int>(0)  // 0 waiting, 1 got space, 2 gave up
        try OSThread.spawn(role: "test-producer") {
            result.store(handoff.waitForSpace() ? 1 : 2, ordering: .releasing)  // full: sleeps
        }
        #expect(Wait.until(timeout: 10, interval: 0.001) { handoff.producerWants.load(ordering: .acquiring) > 0 },
                "the producer never went to sleep")
        handoff.cancel()
        #expect(Wait.until(timeout: 10, interval: 0.001) { result.load(ordering: .acquiring) != 0 }, "the producer never woke")
        #expect(result.load(ordering: .acquiring) == 2)
    }
}
