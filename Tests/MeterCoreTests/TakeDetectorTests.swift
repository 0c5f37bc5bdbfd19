import Testing
@testable import MeterCore

/// `record --trigger` decisions from frames: open with the pre-roll before the hop that rose,
/// close the hold after the last loud frame, never overlapping.
@Suite struct TakeDetectorTests {
    static func frame(_ pos: Int, _ db: [Double]) -> MeterFrame {
        MeterFrame(pos: pos, rmsDb: db, peakDb: db)
    }

    @Test func opensWithPreRollAndClosesAfterHold() {
        var d = TakeDetector(settings: TriggerSettings(levelDb: -40, holdFrames: 250, preRollFrames: 300))
        let hop = 100
        // Quiet to 1000, one channel loud in hops ending 1100..1300, quiet after.
        var changes: [(Int, TakeDetector.Change)] = []
        for k in 1...30 {
            let pos = k * hop
            let loud = (11...13).contains(k)
            if let c = d.observe(Self.frame(pos, loud ? [-60, -20] : [-60, -70])) { changes.append((pos, c)) }
        }
        #expect(changes.map(\.1) == [.open(at: 1000 - 300), .close(at: 1300 + 250)])
        #expect(changes.map(\.0) == [1100, 1600], "decided at the frame that rose, and at the first frame past the hold")
        #expect(!d.isOpen)
        #expect(d.finish(at: 3000) == nil)
    }

    @Test func levelMustBeExceededAndTakesNeverOverlap() {
        var d = TakeDetector(settings: TriggerSettings(levelDb: -40, holdFrames: 0, preRollFrames: 10_000))
        #expect(d.observe(Self.frame(100, [-40])) == nil, "at the level is not above it")
        #expect(d.observe(Self.frame(200, [-39.9])) == .open(at: 0), "pre-roll stops at the start")
        #expect(d.observe(Self.frame(300, [-50])) == .close(at: 200))
        #expect(d.observe(Self.frame(400, [-10])) == .open(at: 200), "not before the previous take ended")
        #expect(d.finish(at: 450) == .close(at: 450))
    }
}
