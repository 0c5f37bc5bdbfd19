import Foundation
import MeterCore
@testable import MeterIO
import Testing

/// A session of several sources: each through its own pipeline, into one NDJSON sink, every
/// line tagged with its stream; each stream's lines are exactly its single-source run's.
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

    @Test func twoFileSourcesInOneSessionTagTheirLines() throws {
        let dir = try SoundFileFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let loud = try Self.sine("loud.wav", amplitude: 0.5, seconds: 1, in: dir)
        let quiet = try Self.sine("quiet.wav", amplitude: 0.25, seconds: 0.5, in: dir)
        let both = try Self.lines([loud, quiet], threads: .spread)
        let objects = try both.map(Self.object)

        #expect(objects.allSatisfy { ($0["stream"] as? Int).map { [0, 1].contains($0) } == true })
        #expect(objects.prefix(2).map { $0["type"] as? String } == ["start", "start"])
        #expect(objects.prefix(2).map { $0["stream"] as? Int } == [0, 1])
        // In turn: the shorter source's end line comes before the longer one's last frames.
        let quietEnd = try #require(objects.firstIndex { $0["type"] as? String == "end" && $0["stream"] as? Int == 1 })
        #expect(objects[(quietEnd + 1)...].contains { $0["type"] as? String == "frame" && $0["stream"] as? Int == 0 })

        // Each stream's lines, untagged, are byte for byte its own single-source run's.
        for (k, path) in [loud, quiet].enumerated() {
            let tag = "\"stream\":\(k),"
            let own = both.filter { $0.contains(tag) }.map { $0.replacingOccurrences(of: tag, with: "") }
            let alone = try Self.lines([path], threads: .spread)
            #expect(!alone.contains { $0.contains("\"stream\"") }, "one source: no stream field")
            #expect(own == alone)
        }

        // The levels: a sine of amplitude A has RMS A / sqrt(2) over whole periods.
        for (k, amplitude) in [(0, 0.5), (1, 0.25)] {
            let frames = objects.filter { $0["type"] as? String == "frame" && $0["stream"] as? Int == k }
            let steady = frames.dropFirst().dropLast()
            #expect(!steady.isEmpty)
            for f in steady {
                let rms = try #require((f["rms_db"] as? [Double])?.first)
                #expect(abs(rms - 20 * log10(amplitude / 2.0.squareRoot())) < 0.01)
            }
        }
    }
}
