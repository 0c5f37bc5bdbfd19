import Synchronization
import Testing
import TestSupport
@testable import MeterCore
@testable import MeterIO

/// ReadAheadSource and BackgroundSink (analyze's two extra threads): nothing lost, nothing
/// reordered, errors from either side reach the caller.
@Suite struct ThreadedAnalysisTests {
    final class CountingSource: SampleBlockSource {
        let rate = 8000, channels = 2, name = "count"
        let total: Int
        var next = 0
        var failAt: Int?
        init(total: Int, failAt: Int? = nil) { self.total = total; self.failAt = failAt }
        struct DecoderFailed: Error {}
        func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws -> Int {
            if let f = failAt, next >= f { throw DecoderFailed() }
            let n = min(maxFrames, total - next, 777)  // odd block sizes
            for i in 0..<n {
                buffer[2 * i] = Float(next + i)
                buffer[2 * i + 1] = -Float(next + i)
            }
            next += n
            return n
        }
    }

    @Test func readAheadDeliversEveryFrameInOrder() throws {
        let src = ReadAheadSource(CountingSource(total: 100_000), blockFrames: 1000, blocks: 3)
        var expected = 0
        while try src.withNextBlock({ samples, n in
            guard case .float(let block) = samples else { Issue.record("a Float source lends Floats"); return }
            for i in 0..<n {
                #expect(block[2 * i] == Float(expected) && block[2 * i + 1] == -Float(expected))
                expected += 1
            }
        }) {}
        #expect(expected == 100_000)
    }

    @Test("one cancellation over many read-aheads keeps none of them once each is stopped; a cancel after runs nothing stale")
    func readAheadsReleaseTheirWakeUps() throws {
        let cancellation = Cancellation()
        for _ in 0..<50 {
            let src = ReadAheadSource(CountingSource(total: 3000), blockFrames: 1000, blocks: 3, cancellation: cancellation)
            while try src.withNextBlock({ _, _ in }) {}
            src.stop()
        }
        #expect(cancellation.registered == 0)
        let live = ReadAheadSource(CountingSource(total: 3000), blockFrames: 1000, blocks: 3, cancellation: cancellation)
        #expect(cancellation.registered == 1)
        cancellation.cancel()
        #expect(cancellation.registered == 0)
        #expect(try !live.withNextBlock({ _, _ in }), "the cancelled read-ahead ends at once")
        // Registering after the cancellation runs the wake-up at once and keeps nothing.
        let ran = Atomic<Bool>(false)
        let late = cancellation.onCancel { ran.store(true, ordering: .releasing) }
        #expect(ran.load(ordering: .acquiring) && cancellation.registered == 0)
        cancellation.remove(late)  // already ran: nothing to do
        live.stop()
    }

    @Test func readAheadPassesTheDecoderError() {
        let src = ReadAheadSource(CountingSource(total: 100_000, failAt: 5000), blockFrames: 1000, blocks: 3)
        #expect(throws: CountingSource.DecoderFailed.self) {
            while try src.withNextBlock({ _, _ in }) {}
        }
    }

    typealias Recording = RecordingSink

    @Test func backgroundSinkKeepsOrderAndFinishes() throws {
        let inner = Recording()
        let settings = MeterSettings(rate: 8000, channels: 2, fps: 100)
        let pipeline = try MeterPipeline(settings: ValidSettings(settings))
        try pipeline.run(source: ReadAheadSource(CountingSource(total: 50_000), blockFrames: 1000),
                         sink: BackgroundSink(inner, depth: 8))
        #expect(inner.ended)
        #expect(inner.positions == Array(stride(from: 80, through: 50_000, by: 80)))
    }

    @Test func backgroundSinkErrorStopsTheRun() throws {
        let inner = Recording()
        inner.failAfter = 10
        let pipeline = try MeterPipeline(settings: ValidSettings(MeterSettings(rate: 8000, channels: 2, fps: 100)))
        #expect(throws: OutputClosed.self) {
            try pipeline.run(source: CountingSource(total: 500_000), sink: BackgroundSink(inner, depth: 4))
        }
        #expect(inner.positions.count == 10)
        #expect(!inner.ended)
    }
}
