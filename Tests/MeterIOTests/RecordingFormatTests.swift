import Foundation
import MeterCore
import Testing
@testable import MeterIO

/// The container choice and the bit-rate mappings.
@Suite struct RecordingFormatTests {
    @Test func kindsByExtension() throws {
        for (ext, kind) in [("wav", RecordingFormat.Kind.headerPCM), ("RF64", .headerPCM), ("flac", .losslessStream),
                            ("ogg", .lossyStream), ("opus", .lossyStream), ("mp3", .lossyStream)] {
            #expect(try RecordingFormat.choose(path: FilePath("/tmp/a." + ext), rate: 48000, channels: 2).kind == kind, "\(ext)")
        }
        #expect(throws: RecordingError.self) { try RecordingFormat.choose(path: FilePath("/tmp/a.mat"), rate: 48000, channels: 2) }
        #expect(throws: RecordingError.self) { try RecordingFormat.choose(path: FilePath("/tmp/noext"), rate: 48000, channels: 2) }
        #expect(throws: RecordingError.self) { try RecordingFormat.choose(path: FilePath("/tmp/a.mp3"), rate: 48000, channels: 3) }
        #expect(throws: RecordingError.self) { try RecordingFormat.choose(path: FilePath("/tmp/a.opus"), rate: 44100, channels: 2) }
    }

    /// The level chosen for a bit rate, put through libsndfile 1.2.0's own formulas (Opus:
    /// ((1 - level) x 250 + 6) kbps per channel; MP3 in CBR: max - level x (max - min)),
    /// gives that bit rate back.
    @Test(arguments: [(8, 1), (32, 1), (64, 2), (256, 1), (510, 2)])
    func opusLevelInvertsLibsndfile(kbps: Int, channels: Int) throws {
        let f = try RecordingFormat.choose(path: FilePath("/tmp/a.opus"), rate: 48000, channels: channels, bitrateKbps: kbps)
        let level = try #require(f.compressionLevel)
        #expect(level >= 0 && level <= 1)
        #expect(abs(((1 - level) * 250 + 6) * Double(channels) - Double(kbps)) < 1e-9)
    }

    @Test(arguments: [(48000, 32), (48000, 128), (48000, 320), (22050, 8), (22050, 160), (8000, 64)])
    func mp3LevelInvertsLibsndfile(rate: Int, kbps: Int) throws {
        let f = try RecordingFormat.choose(path: FilePath("/tmp/a.mp3"), rate: rate, channels: 2, bitrateKbps: kbps)
        let level = try #require(f.compressionLevel)
        let (lo, hi) = rate >= 32000 ? (32.0, 320.0) : (rate >= 16000 ? (8.0, 160.0) : (8.0, 64.0))
        #expect(abs(hi - level * (hi - lo) - Double(kbps)) < 1e-9)
    }

    @Test func bitRatesOutOfRangeOrWithoutAnEncoderAreUsageErrors() {
        for (name, rate, channels, kbps) in [("a.opus", 48000, 1, 5), ("a.opus", 48000, 2, 513), ("a.mp3", 48000, 2, 16),
                                            ("a.ogg", 48000, 2, 128), ("a.flac", 48000, 2, 128), ("a.wav", 48000, 2, 128)] {
            do {
                _ = try RecordingFormat.choose(path: FilePath("/tmp/" + name), rate: rate, channels: channels, bitrateKbps: kbps)
                Issue.record("\(name) took \(kbps) kbps")
            } catch {
                switch error {
                case .bitrate, .noBitrate: break
                default: Issue.record("\(name): \(error)")
                }
            }
        }
    }

    @Test func aacNeedsARateAndChannelsAACHas() throws {
        guard ChildProcess.find("ffmpeg") != nil else {
            Issue.record("ffmpeg is not installed; scripts/setup installs it")
            return
        }
        let memo = try RecordingFormat.choose(path: FilePath("/tmp/memo.m4a"), rate: 12000, channels: 1, bitrateKbps: 32)
        #expect(FFmpegEncoderWriter.arguments(memo).contains("32k"))
        #expect(FFmpegEncoderWriter.arguments(memo).suffix(3) == ["-flush_packets", "1", "pipe:1"])
        #expect(FFmpegEncoderWriter.arguments(memo).contains("+empty_moov+default_base_moof"))
        let adts = try RecordingFormat.choose(path: FilePath("/tmp/memo.aac"), rate: 48000, channels: 2)
        #expect(FFmpegEncoderWriter.arguments(adts).contains("adts"))
        #expect(!FFmpegEncoderWriter.arguments(adts).contains("-b:a"))
        #expect(throws: RecordingError.self) { try RecordingFormat.choose(path: FilePath("/tmp/a.m4a"), rate: 10000, channels: 1) }
        #expect(throws: RecordingError.self) { try RecordingFormat.choose(path: FilePath("/tmp/a.m4a"), rate: 48000, channels: 9) }
        #expect(throws: RecordingError.self) { try RecordingFormat.choose(path: FilePath("/tmp/a.m4a"), rate: 12000, channels: 1, bitrateKbps: 73) }
        #expect(try RecordingFormat.choose(path: FilePath("/tmp/a.m4a"), rate: 12000, channels: 1, bitrateKbps: 72).bitrateKbps == 72)
    }

    @Test func openNewWriterNeverOverwrites() throws {
        let dir = try SoundFileFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = FilePath(dir.appendingPathComponent("take.wav").path)
        let f = try RecordingFormat.choose(path: path, rate: 8000, channels: 1)
        let w = try #require(try f.openNewWriter(path: path))
        try w.close()
        #expect(try f.openNewWriter(path: path) == nil)
        let size = try FileManager.default.attributesOfItem(atPath: path.string)[.size] as? Int
        #expect(size == 44, "the existing file was left alone")
    }
}
