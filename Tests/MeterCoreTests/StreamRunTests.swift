import Testing
import TestSupport
@testable import MeterCore

/// `StreamRun`, the one start-to-end sequence every path uses.
@Suite struct StreamRunTests {
    static func run() throws -> (StreamRun, CollectingSink, ArraySource) {
        let settings = try ValidSettings(MeterSettings(rate: 8000, channels: 1, fps: 10))  // hop 800
        let sink = CollectingSink()
        let source = ArraySource(rate: 8000, channels: 1, samples: [Float](repeating: 0.5, count: 2000),
                                 blockSizes: [700])
        return (StreamRun(pipeline: MeterPipeline(settings: settings), sink: sink), sink, source)
    }

    @Test func aWholeSourceGivesStartFramesTheLastPartialHopAndACompleteEnd() throws {
        let (run, sink, source) = try Self.run()
        let summary = try run.run(source)
        #expect(sink.info?.source == "test")
        #expect(sink.frames.map(\.pos) == [800, 1600, 2000])
        #expect(summary.complete == true && sink.summary?.pos == 2000 && sink.summary?.complete == true)
    }

    @Test func aStopEndsTheReadingBetweenBlocksAndTheEndLineSaysIncomplete() throws {
        let (run, sink, source) = try Self.run()
        var blocks = 0
        let summary = try run.run(source) {
            blocks += 1
            return blocks > 2  // polled before each block and once at the end: two blocks read
        }
        #expect(summary.pos == 1400 && summary.complete == false)
        #expect(sink.frames.map(\.pos) == [800, 1400], "the last partial hop still goes out")
    }

    @Test func withoutTheLastHopTheFramesEndOnTheGridAndCompleteCanBeUnsaid() throws {
        let (run, sink, source) = try Self.run()
        var seen: [Int] = []
        let observed = StreamRun(pipeline: run.pipeline, sink: sink) { seen.append($0.pos) }
        try observed.start(source)
        try observed.feed(from: source)
        let summary = try observed.finish(complete: nil, lastHop: false)
        #expect(sink.frames.map(\.pos) == [800, 1600] && seen == [800, 1600])
        #expect(summary.complete == nil && summary.pos == 2000)
    }
}
