import Dispatch
import Glibc
import MeterIO
import Synchronization
import Testing
import TestSupport

/// The many-file worker pool: every job once, results in order (or all of them unordered), and
/// never more than 2 x `workers` jobs taken but not yet delivered (memory bounded by the workers).
@Suite struct OrderedWorkPoolTests {
    /// Jobs 0..<count handed out by a counter, as FileList does, one call at a time.
    final class Counter: @unchecked Sendable {
        // Touched only by `next`, which the pool calls one at a time under its list lock.
        var value = 0
        let count: Int
        init(_ count: Int) { self.count = count }
        func next() -> Int? {
            guard value < count else { return nil }
            defer { value += 1 }
            return value
        }
    }

    @Test("ordered: every job once, in order, at most 2N outstanding", arguments: [1, 2, 3, 8])
    func ordered(workers: Int) throws {
        let counter = Counter(300)
        let taken = Atomic<Int>(0)
        let maxOutstanding = Atomic<Int>(0)
        var delivered: [Int] = []
        try OrderedWorkPool.run(
            workers: workers, ordered: true, shouldStop: { false },
            next: { counter.next() },
            work: { job, position in
                taken.add(1, ordering: .acquiringAndReleasing)
                // The input: uneven work, some jobs much longer, so later ones finish first.
                if job % 7 == 0 { Wait.pace(seconds: 0.002) } else if job % 3 == 0 { Wait.pace(seconds: 0.0003) }
                return (job, position)
            },
            deliver: { position, job, output in
                #expect(output.0 == job && output.1 == position && job == position)
                delivered.append(job)
                let outstanding = taken.load(ordering: .acquiring) - delivered.count + 1
                if outstanding > maxOutstanding.load(ordering: .relaxed) { maxOutstanding.store(outstanding, ordering: .relaxed) }
            })
        #expect(delivered == Array(0..<300))
        #expect(maxOutstanding.load(ordering: .relaxed) <= 2 * workers, "jobs taken but not delivered exceeded twice the worker count")
    }

    @Test("unordered: every job exactly once")
    func unordered() throws {
        let counter = Counter(200)
        var delivered: [Int] = []
        try OrderedWorkPool.run(
            workers: 4, ordered: false, shouldStop: { false },
            next: { counter.next() },
            work: { job, _ in
                if job % 5 == 0 { Wait.pace(seconds: 0.001) }  // the input: uneven work, so jobs finish out of order
                return job * 2
            },
            deliver: { _, job, output in
                #expect(output == job * 2)
                delivered.append(job)
            })
        #expect(delivered.sorted() == Array(0..<200))
    }

    @Test("an empty list delivers nothing; a stop request hands out no more jobs")
    func emptyAndStop() throws {
        var count = 0
        try OrderedWorkPool.run(workers: 3, ordered: true, shouldStop: { false }, next: { nil as Int? },
                                work: { $0 + $1 }, deliver: { _, _, _ in count += 1 })
        #expect(count == 0)
        let stop = Atomic<Bool>(false)
        let counter = Counter(1000)
        try OrderedWorkPool.run(
            workers: 2, ordered: true, shouldStop: { stop.load(ordering: .acquiring) },
            next: { counter.next() }, work: { job, _ in job },
            deliver: { _, job, _ in
                count += 1
                if job == 10 { stop.store(true, ordering: .releasing) }
            })
        // Taken before the stop: at most 2 x 2 jobs beyond the one that asked for it.
        #expect(count >= 11 && count <= 15, "after the stop only the jobs already taken are delivered")
    }

    struct Stop: Error {}

    @Test("a delivery error stops the hand-out and is rethrown after the running jobs")
    func deliveryError() {
        let counter = Counter(1000)
        var count = 0
        #expect(throws: Stop.self) {
            try OrderedWorkPool.run(
                workers: 2, ordered: true, shouldStop: { false },
                next: { counter.next() }, work: { job, _ in job },
                deliver: { _, job, _ in
                    count += 1
                    if job == 5 { throw Stop() }
                })
        }
        // Nothing is delivered after the error; at most 2 x 2 jobs were taken beyond job 5.
        #expect(count == 6 && counter.value <= 10)
    }

    /// A list that stalls (a pipe whose writer is slow) must not hold back the jobs already
    /// finished: `next` blocks until the first job has been delivered, which it could not be
    /// if `next` ran under the lock the delivery needs.
    @Test("a blocking next does not hold back delivery", arguments: [1, 2])
    func blockingNextDoesNotHoldBackDelivery(workers: Int) throws {
        let firstDelivered = DispatchSemaphore(value: 0)
        let calls = Atomic<Int>(0)
        let waitedFor = Atomic<Bool>(false)
        var delivered: [Int] = []
        try OrderedWorkPool.run(
            workers: workers, ordered: true, shouldStop: { false },
            next: {
                let k = calls.add(1, ordering: .relaxed).newValue
                if k == 1 { return 0 }
                if k == 2 { waitedFor.store(firstDelivered.wait(timeout: .now() + 20) == .success, ordering: .relaxed) }
                return nil
            },
            work: { job, _ in job },
            deliver: { _, job, _ in
                delivered.append(job)
                firstDelivered.signal()
            })
        #expect(delivered == [0])
        let sawDelivery = waitedFor.load(ordering: .relaxed)
        #expect(sawDelivery, "the first job was delivered while next was blocked")
    }
}
