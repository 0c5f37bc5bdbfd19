import Foundation
import Glibc
import MeterCore
import Testing
@testable import MeterIO

/// `AACFileLength` on files ffmpeg writes with the recorder's own arguments, whole and cut at
/// many points: the frames it counts are never more than ffmpeg decodes from the same bytes,
/// and at most one fragment (half a second) fewer.
@Suite struct AACFileLengthTests {
    /// Encodes `seconds` of a 440 Hz sine (48 kHz stereo) to `ext` as `FFmpegEncoderWriter` does.
    static func encode(_ ext: String, seconds: Int, in dir: URL) throws -> [UInt8] {
        let ffmpeg = try #require(ChildProcess.find("ffmpeg"), "ffmpeg is not installed")
        let path = dir.appendingPathComponent("tone.\(ext)").path
        let format = try RecordingFormat.choose(path: FilePath(path), rate: 48000, channels: 2, bitrateKbps: nil)
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        let p = try ChildProcess(executable: ffmpeg, arguments: FFmpegEncoderWriter.arguments(format), stdin: .pipe, stdout: .descriptor(fd))
        close(fd)
        let samples = (0..<(seconds * 48000)).flatMap { i -> [Int16] in
            let v = Int16(8000 * sin(2 * Double.pi * 440 * Double(i) / 48000))
            return [v, v]
        }
        #expect(samples.withUnsafeBytes { p.writeToStdin($0) } == 0)
        p.closeStdin()
        #expect(p.wait().isCleanExit)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Frames ffmpeg decodes from `bytes` (48 kHz stereo s16).
    static func decoded(_ bytes: [UInt8], ext: String, in dir: URL) throws -> Int {
        let ffmpeg = try #require(ChildProcess.find("ffmpeg"))
        let path = dir.appendingPathComponent("cut.\(ext)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let p = try ChildProcess(executable: ffmpeg, arguments: ["-nostdin", "-v", "quiet", "-i", "file:" + path, "-f", "s16le", "-ac", "2", "-ar", "48000", "pipe:1"],
                                 stdin: .null, stdout: .pipe)
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(p.stdoutFD, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            total += n
        }
        _ = p.wait()
        return total / 4
    }

    static func count(_ bytes: [UInt8], ext: String) -> Int? {
        let read = { (offset: Int, count: Int) -> [UInt8] in Array(bytes[min(offset, bytes.count)..<min(offset + count, bytes.count)]) }
        return ext == "aac" ? AACFileLength.adts(size: bytes.count, read: read)
            : AACFileLength.fragmentedMP4(size: bytes.count, rate: 48000, read: read)
    }

    @Test(arguments: ["m4a", "aac"])
    func countsWhatAPlayerReadsFromAFileCutAnywhere(ext: String) throws {
        let dir = try SoundFileFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let whole = try Self.encode(ext, seconds: 3, in: dir)
        let all = try #require(Self.count(whole, ext: ext))
        // Whole: the captured 3 s plus the encoder's priming (1024 frames), exactly in MP4 (its
        // last sample's duration is the true one), in whole packets in ADTS; ffmpeg decodes
        // the last packet whole.
        let packets = (3 * 48000 + AACFileLength.frameSize + AACFileLength.frameSize - 1) / AACFileLength.frameSize
        #expect(all == (ext == "m4a" ? 3 * 48000 + AACFileLength.frameSize : packets * AACFileLength.frameSize), "\(all)")
        let wholePlays = try Self.decoded(whole, ext: ext, in: dir)
        #expect(all <= wholePlays && wholePlays - all < AACFileLength.frameSize, "counted \(all), ffmpeg decodes \(wholePlays)")
        var last = 0
        for k in 1...8 {
            let cut = Array(whole.prefix(whole.count * k / 9))
            let n = try #require(Self.count(cut, ext: ext))
            let plays = try Self.decoded(cut, ext: ext, in: dir)
            #expect(n >= last, "cut \(k)/9: \(n) after \(last)")
            #expect(n <= plays && plays - n <= (ext == "aac" ? AACFileLength.frameSize : 24000 + AACFileLength.frameSize),
                    "cut \(k)/9 of \(ext): counted \(n), ffmpeg decodes \(plays)")
            last = n
        }
        #expect(Self.count(Array("not aac at all".utf8), ext: ext) == nil)
    }
}
