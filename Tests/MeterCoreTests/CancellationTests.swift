import Synchronization
import Testing
@testable import MeterCore

/// `Cancellation(following:)`: a part of a run that stops with the run or alone.
@Suite struct CancellationTests {
    @Test("a following cancellation: cancelled with its parent (its wake-ups run), alone without cancelling the parent, and it leaves the parent when it goes")
    func following() {
        let parent = Cancellation()
        do {
            let child = Cancellation(following: parent)
            #expect(parent.registered == 1)
            child.cancel()
            #expect(child.isCancelled && !parent.isCancelled, "alone: the parent goes on")
        }
        #expect(parent.registered == 0, "a child that went keeps nothing in its parent")
        let child = Cancellation(following: parent)
        let woke = Atomic<Bool>(false)
        child.onCancel { woke.store(true, ordering: .releasing) }
        parent.cancel()
        #expect(child.isCancelled && woke.load(ordering: .acquiring), "with the parent: the child's wake-ups run")
        #expect(Cancellation(following: parent).isCancelled, "following a cancelled parent: cancelled at once")
        #expect(parent.registered == 0)
    }
}
