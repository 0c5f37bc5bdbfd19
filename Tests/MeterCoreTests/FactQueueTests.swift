import Foundation
import Synchronization
import Testing
import TestSupport
@testable import MeterCore

/// The lock-free SPSC queue of a live run's rare facts (gaps, device changes, losses). scripts/test
/// also runs this suite under ThreadSanitizer (`--filter FactQueueTests`).
@Suite struct FactQueueTests {
    @Test func takesInOrderUpToTheFirstFactNotDue() {
        let q = FactQueue<Int>(capacity: 8)
        #expect(q.isEmpty)
        for pos in [3, 5, 9, 4] { #expect(q.push(pos)) }
        #expect(!q.isEmpty)
        #expect(q.take { $0 <= 5 } == [3, 5], "stops at 9: what follows it waits, 4 too")
        #expect(q.take { $0 <= 8 } == [])
        #expect(!q.isEmpty, "9 and 4 still wait")
        #expect(q.take { $0 <= 9 } == [9, 4])
        #expect(q.isEmpty)
        #expect(q.take { _ in true } == [])
    }

    @Test func aFullQueueRefusesAndCountsAndTakesAgainOnceDrained() {
        let q = FactQueue<Int>(capacity: 3)
        // Many times round the slots, at every fill level.
        var next = 0, refused = 0, model: [Int] = []
        var rng = SeededRNG(seed: 7)
        for _ in 0..<2000 {
            if rng.next() % 2 == 0 {
                let ok = q.push(next)
                #expect(ok == (model.count < 3))
                if ok { model.append(next) } else { refused += 1 }
                next += 1
            } else {
                let n = Int(rng.next() % 3)
                let due = model.prefix(n)
                #expect(q.take { due.contains($0) } == Array(due))
                model.removeFirst(due.count)
            }
        }
        #expect(refused > 0 && q.refused == refused)
    }

    /// One producer pushing 100,000 facts as fast as it can into a queue of 16, one consumer
    /// taking them: every fact the queue accepted arrives once, in order, with its payload.
    @Test func aProducerAndAConsumerOnTwoThreadsLoseNothingAccepted() async {
        let q = FactQueue<StreamGap>(capacity: 16)
        let total = 100_000
        let done = Atomic<Bool>(false)
        let producer = Task.detached { () -> [Int] in
            var accepted: [Int] = []
            for pos in 0..<total where q.push(StreamGap(pos: pos, startTs: Double(pos), endTs: Double(pos) + 1)) {
                accepted.append(pos)
            }
            done.store(true, ordering: .releasing)
            return accepted
        }
        var got: [StreamGap] = []
        while !done.load(ordering: .acquiring) { got += q.take { _ in true } }
        got += q.take { _ in true }
        let accepted = await producer.value
        #expect(got.map(\.pos) == accepted)
        #expect(got.allSatisfy { $0.startTs == Double($0.pos) && $0.endTs == Double($0.pos) + 1 })
        #expect(got.count + q.refused == total)
    }
}
