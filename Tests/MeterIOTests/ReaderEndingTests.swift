import Foundation
import Testing
import MeterCore
@testable import MeterIO

/// The reader knows the length a header promises (`DeclaredLength`) and says how
/// reading ended (`SoundFileReader.ending`).
@Suite struct ReaderEndingTests {
    typealias F = SoundFileFixture

    /// Runs a converter (sox, ffmpeg); the test fails if it does.
    static func convert(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(args.joined(separator: " ")) failed")
    }

    @Test("each header-based container states its length; cut short, the reader says so",
          arguments: ["wav", "w64", "aiff", "aifc", "au", "rf64"])
    func promiseOfEachContainer(ext: String) throws {
        let dir = try F.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = 9000
        let x = (0..<(frames * 2)).map { sin(Double($0) * 0.01) * 0.5 }
        let wav = try F.write(F.wav(.pcm16, rate: 8000, channels: 2, payload: F.encode(x, .pcm16)), "src.wav", in: dir)
        let path = dir.appendingPathComponent("full." + ext).path
        if ext == "rf64" {
            try Self.convert(["ffmpeg", "-v", "error", "-y", "-i", wav, "-rf64", "always", "-f", "wav", path])
        } else {
            try Self.convert(["sox", wav, path])
        }
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(DeclaredLength.frames(header: Array(bytes.prefix(65536))) == frames)
        let whole = try SoundFileReader(path: FilePath(path))
        #expect(try readAll(whole).count == frames * 2)
        #expect(whole.ending == .complete)

        let cut = try F.write(Array(bytes.prefix(bytes.count / 3)), "cut." + ext, in: dir)
        let r = try SoundFileReader(path: FilePath(cut))
        let found = try readAll(r).count / 2
        #expect(found > 0 && found < frames)
        #expect(r.ending == .short(promised: frames, found: found))
        #expect(r.seek(toFrame: 0))
        #expect(r.ending == nil, "going back to the start starts over")
    }

    @Test func noPromiseForCompressedOrUnknownHeaders() throws {
        // A WAV of IMA ADPCM (tag 0x11): its data length counts blocks, not frames.
        var adpcm = F.wav(.pcm16, rate: 8000, channels: 1, payload: [0, 0], dataSize: 1000)
        adpcm[20] = 0x11
        #expect(DeclaredLength.frames(header: adpcm) == nil)
        #expect(DeclaredLength.frames(header: Array("OggS".utf8) + [UInt8](repeating: 0, count: 60)) == nil)
        #expect(DeclaredLength.frames(header: []) == nil)
        #expect(DeclaredLength.frames(header: Array("RIFF\u{10}\0\0\0WAVEdata".utf8)) == nil)
        // An AU whose data size is "unknown" (all ones), as a stream writer leaves it.
        let au: [UInt8] = Array(".snd".utf8) + [0, 0, 0, 24, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 3, 0, 0, 0x1F, 0x40, 0, 0, 0, 1]
        #expect(DeclaredLength.frames(header: au) == nil)
    }
}
