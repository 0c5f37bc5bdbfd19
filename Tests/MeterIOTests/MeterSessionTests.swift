import Foundation
import MeterCore
@testable import MeterIO
import Testing

/// A session of one file source: whichever threads it is laid over, the same lines.
@Suite struct MeterSessionTests {
    /// Keeps what is written.
    final class Bytes: ByteOutput {
        var bytes: [UInt8] = []
        func write(_ b: [UInt8]) throws { bytes += b }
        var lines: [String] { String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init) }
    }

    /// A mono float WAV of a 1 kHz sine of `amplitude`, `seconds` long at 48 kHz.
    static func sine(_ name: String, amplitude: Double, seconds: Double, in dir: URL) throws -> FilePath {
        let samples = (0..<Int(48000 * seconds)).map { amplitude * sin(2 * Double.pi * 1000 * Double($0) / 48000) }
        let wav = SoundFileFixture.wav(.float32, rate: 48000, channels: 1, payload: SoundFileFixture.encode(samples, .float32))
        return FilePath(try SoundFileFixture.write(wav, name, in: dir))
    }

    /// The NDJSON lines of a session over `paths`, with the given threads.
    static func lines(_ paths: [FilePath], threads: SessionDescription.Threads) throws -> [String] {
        let out = Bytes()
        let sources = try paths.map { p in
            try SessionDescription.Source(AudioFile.open(p), settings: ValidSettings(MeterSettings(rate: 48000, channels: 1, fps: 20)))
        }
        try MeterSession(SessionDescription(sources: sources, threads: threads), cancellation: Cancellation())
            .run(into: [NDJSONSink(output: out)])
        return out.lines
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// One file through the session's two layouts (`spread`: read ahead, bands and output on
    /// their own threads; `inline`: one thread) and through `StreamRun` alone: the same bytes.
    @Test func everyLayoutWritesTheSameLines() throws {
        let dir = try SoundFileFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Self.sine("tone.wav", amplitude: 0.5, seconds: 1.01, in: dir)
        let spread = try Self.lines([path], threads: .spread)
        #expect(spread.count == 2 + 21, "start, 20 whole hops and the last partial one, end")
        #expect(try Self.lines([path], threads: .inline) == spread)
        let out = Bytes()
        let settings = try ValidSettings(MeterSettings(rate: 48000, channels: 1, fps: 20))
        try StreamRun(pipeline: MeterPipeline(settings: settings), sink: NDJSONSink(output: out)).run(AudioFile.open(path))
        #expect(out.lines == spread)
        // The levels: a sine of amplitude A has RMS A / sqrt(2) over whole periods.
        for line in spread.dropFirst(2).dropLast(2) {
            let rms = try #require((Self.object(line)["rms_db"] as? [Double])?.first)
            #expect(abs(rms - 20 * log10(0.5 / 2.0.squareRoot())) < 0.01)
        }
    }
}
