import Testing
@testable import MeterCore

/// A run's lines are encoded once: every sink that asks for the same line gets the bytes the
/// first one had encoded (the same buffer), and a changed value gets its own line.
@Suite struct NDJSONLinesTests {
    static func info() -> StreamInfo {
        var s = MeterSettings()
        s.rate = 8000
        s.channels = 1
        return StreamInfo(source: "mic", settings: s, live: true)
    }

    static func sameBuffer(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }

    @Test func aLineAskedAgainIsTheBytesEncodedFirst() {
        let lines = NDJSONLines()
        #expect(Self.sameBuffer(lines.start(Self.info()), lines.start(Self.info())))
        var frame = MeterFrame(pos: 8000, ts: 100.5, rmsDb: [-20], peakDb: [-10])
        frame.events = [MeterEvent(.silenceStart, pos: 4000)]
        let first = lines.frame(frame)
        let event = lines.event(frame.events[0], ts: frame.ts, stream: nil)
        frame.events = []  // as `WithoutEventsSink` passes it: the same frame line
        #expect(Self.sameBuffer(first, lines.frame(frame)))
        #expect(Self.sameBuffer(event, lines.event(MeterEvent(.silenceStart, pos: 4000), ts: 100.5, stream: nil)))
        let gap = StreamGap(pos: 8000, startTs: 101, endTs: 102)
        #expect(Self.sameBuffer(lines.gap(gap), lines.gap(gap)))
    }

    @Test func aChangedValueIsItsOwnLineAsTheEncoderWritesIt() {
        let lines = NDJSONLines()
        var encoder = NDJSONEncoder()
        _ = lines.start(Self.info())
        _ = encoder.start(Self.info())
        var summary = StreamSummary(pos: 16000, rate: 8000, rmsDb: [-20], peakDb: [-10])
        let plain = lines.end(summary)
        summary.hooks = HookTotals(run: 2)
        let hooked = lines.end(summary)
        #expect(plain != hooked)
        #expect(hooked == encoder.end(summary))
    }
}
