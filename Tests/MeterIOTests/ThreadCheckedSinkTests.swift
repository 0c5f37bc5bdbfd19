import MeterCore
@testable import MeterIO
import Testing

/// The debug-build check of the threading rule: a sink call from a second thread, or two calls
/// at once, stops the process (exit tests run the body in a child process).
@Suite struct ThreadCheckedSinkTests {
    final class Quiet: DiscardingSink, @unchecked Sendable {}

    static let info = StreamInfo(source: "test", settings: MeterSettings(rate: 8000, channels: 1, fps: 100))

    @Test func callsFromTheFirstCallersThreadPass() throws {
        let sink = ThreadCheckedSink(Quiet(), rule: .oneThread)
        try sink.start(Self.info)
        try sink.frame(MeterFrame(pos: 80, rmsDb: [-20], peakDb: [-10]))
        try sink.idle(outage: false, stream: nil)
        try sink.end(StreamSummary(pos: 80, rate: 8000, rmsDb: [-20], peakDb: [-10]))
    }

    @Test func aCallFromAnotherThreadStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let sink = ThreadCheckedSink(Quiet(), rule: .oneThread)
            try sink.start(ThreadCheckedSinkTests.info)
            let done = Wakeup()
            try OSThread.spawn(role: "pm-elsewhere") {
                try? sink.frame(MeterFrame(pos: 80, rmsDb: [-20], peakDb: [-10]))
                done.signal()
            }
            done.wait()
        }
    }

    @Test func takingTurnsPassesWhenSeveralAnalysesShareTheSinks() throws {
        let sink = ThreadCheckedSink(Quiet(), rule: .oneAtATime)
        try sink.start(Self.info)
        let done = Wakeup()
        try OSThread.spawn(role: "pm-analysis-1") {
            try? sink.frame(MeterFrame(pos: 80, rmsDb: [-20], peakDb: [-10]))
            done.signal()
        }
        done.wait()
        try sink.end(StreamSummary(pos: 80, rate: 8000, rmsDb: [-20], peakDb: [-10]))
    }
}
