import Testing
import MeterCore
@testable import MeterIO

/// Several analyses share one sink through a `SerializedSink`: a call that blocks in the sink
/// (a stalled terminal) holds up no other analysis, and every call still arrives, one at a
/// time, in order.
@Suite struct SerializedSinkTests {
    /// Records frames; the first one waits for `gate`.
    final class Stalling: DiscardingSink, @unchecked Sendable {
        let gate = Wakeup(), entered = Wakeup()
        var frames: [Int] = []
        override func frame(_ frame: MeterFrame) throws {
            if frames.isEmpty {
                entered.signal()
                gate.wait()
            }
            frames.append(frame.pos)
        }
    }

    @Test func aStalledWriteHoldsUpNoOtherCaller() throws {
        let stalling = Stalling()
        let serial = SerializedSink(stalling)
        let done = Wakeup()
        try OSThread.spawn(role: "pm-test") {
            try? serial.frame(MeterFrame(pos: 1, rmsDb: [-20], peakDb: [-10]))
            done.signal()
        }
        stalling.entered.wait()
        // Queued while the other thread is inside the sink: returns at once.
        try serial.frame(MeterFrame(pos: 2, rmsDb: [-20], peakDb: [-10]))
        try serial.frame(MeterFrame(pos: 3, rmsDb: [-20], peakDb: [-10]))
        stalling.gate.signal()
        done.wait()  // the delivering thread delivers what was queued meanwhile
        #expect(stalling.frames == [1, 2, 3])
    }
}
