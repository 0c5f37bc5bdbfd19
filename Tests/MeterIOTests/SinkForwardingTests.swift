import Testing
import TestSupport
import MeterCore
@testable import MeterIO

/// Every sink that wraps another forwards every call, `gap`, `device`, `file`, `event` and
/// `idle` included, in order.
@Suite struct SinkForwardingTests {
    /// Notes each call by name (and a file event's file), in order; flushes counted apart.
    typealias Journal = RecordingSink

    static let expected = ["start", "frame 80", "event source_lost 80 1.5", "idle true 1", "gap 80", "device vsink.monitor", "file open take-1.wav",
                           "frame 160", "file close take-1.wav", "end 160"]

    /// Drives `sink` through one run's calls.
    static func drive(_ sink: any FrameSink) throws {
        try sink.start(StreamInfo(source: "test", settings: MeterSettings(rate: 8000, channels: 1, fps: 100)))
        try sink.frame(MeterFrame(pos: 80, rmsDb: [-20], peakDb: [-10]))
        try sink.event(MeterEvent(.sourceLost(reason: "gone"), pos: 80), ts: 1.5, stream: nil)
        try sink.idle(outage: true, stream: 1)
        try sink.gap(StreamGap(pos: 80, startTs: 1, endTs: 2))
        try sink.device(DeviceChange(pos: 80, ts: 2, source: "vsink.monitor"))
        try sink.file(RecordingFileEvent(.open, file: "take-1.wav", pos: 80, frames: 0))
        try sink.frame(MeterFrame(pos: 160, rmsDb: [-20], peakDb: [-10]))
        try sink.file(RecordingFileEvent(.close, file: "take-1.wav", pos: 160, frames: 80))
        try sink.flush()
        try sink.end(StreamSummary(pos: 160, rate: 8000, rmsDb: [-20], peakDb: [-10]))
    }

    @Test func backgroundSinkForwardsEveryCall() throws {
        let journal = Journal()
        try Self.drive(BackgroundSink(journal, depth: 4))  // end waits for the output thread
        #expect(journal.calls == Self.expected && journal.flushes >= 1)
    }

    @Test func progressSinkForwardsEveryCall() throws {
        let journal = Journal()
        try Self.drive(ProgressSink(journal, line: ProgressLine(enabled: false), label: "test", totalFrames: 160))
        #expect(journal.calls == Self.expected && journal.flushes >= 1)
    }

    @Test func fanOutSinkForwardsEveryCallToEachSink() throws {
        let first = Journal(), second = Journal()
        try Self.drive(FanOutSink([first, second]))
        #expect(first.calls == Self.expected)
        #expect(second.calls == Self.expected)
    }

    @Test func wrappersStackedForwardEveryCall() throws {
        let journal = Journal()
        let stacked = ProgressSink(BackgroundSink(FanOutSink([journal])), line: ProgressLine(enabled: false),
                                   label: "test", totalFrames: nil)
        try Self.drive(stacked)
        #expect(journal.calls == Self.expected && journal.flushes >= 1)
    }

    @Test func serializedSinkForwardsEveryCall() throws {
        let journal = Journal()
        try Self.drive(SerializedSink(journal))
        #expect(journal.calls == Self.expected && journal.flushes >= 1)
    }

    /// The hook sink passes every call on to the sink it wraps (its hooks aside): a live run with
    /// --exec on a terminal still shows an outage while no audio arrives.
    @Test func hookSinkForwardsEveryCall() throws {
        let journal = Journal()
        try Self.drive(HookSink(kinds: [], next: journal, submit: { _ in }, settle: { HookTotals() }))
        #expect(journal.calls == Self.expected && journal.flushes >= 1)
    }

    @Test("WithoutEventsSink forwards every call but the events, idle included")
    func withoutEventsForwardsAllButEvents() throws {
        let journal = Journal()
        try Self.drive(WithoutEventsSink(journal))
        #expect(journal.calls == Self.expected.filter { !$0.hasPrefix("event") })
    }
}
