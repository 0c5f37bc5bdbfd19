import Synchronization
import Testing
import TestSupport
@testable import MeterCore
@testable import MeterIO

/// `analyze`'s NDJSON: lines gathered into fewer writes, each write whole lines, and none held
/// back once the output thread has written all that is queued.
@Suite struct GatheredLinesTests {
    final class Writes: ByteOutput, @unchecked Sendable {
        let writes = Mutex<[[UInt8]]>([])
        func write(_ bytes: [UInt8]) throws { writes.withLock { $0.append(bytes) } }
        var lines: Int { writes.withLock { $0.reduce(0) { $0 + $1.filter { $0 == 0x0A }.count } } }
    }

    @Test func gatheredLinesGoOutWholeOnceTheQueueIsWritten() throws {
        let out = Writes()
        let background = BackgroundSink(NDJSONSink(output: out, gathering: true), depth: 64)
        try background.start(StreamInfo(source: "test", settings: MeterSettings(rate: 8000, channels: 1, fps: 100)))
        for k in 1...300 { try background.frame(MeterFrame(pos: 80 * k, rmsDb: [-20], peakDb: [-10])) }
        background.flush()
        // No end line yet: the output thread wrote every line queued, start line included.
        #expect(Wait.until(timeout: 10) { out.lines == 301 })
        try background.end(StreamSummary(pos: 24000, rate: 8000, rmsDb: [-20], peakDb: [-10]))
        let writes = out.writes.withLock { $0 }
        #expect(out.lines == 302)
        #expect(writes.allSatisfy { $0.last == 0x0A }, "every write ends a line")
        #expect(writes.count < 302 / 4, "\(writes.count) writes for 302 lines")
    }

    @Test func ungatheredLinesAreOneWriteEach() throws {
        let out = Writes()
        let sink = NDJSONSink(output: out)
        try sink.start(StreamInfo(source: "test", settings: MeterSettings(rate: 8000, channels: 1, fps: 100)))
        try sink.frame(MeterFrame(pos: 80, rmsDb: [-20], peakDb: [-10]))
        #expect(out.writes.withLock { $0.count } == 2)
    }
}
