import Foundation
import Testing
import MeterCore
@testable import MeterIO

@Suite struct SoundFileReaderTests {
    typealias F = SoundFileFixture

    /// Samples that reach both ends of the scale and cross zero often.
    static func samples(_ count: Int) -> [Double] {
        (0..<count).map { i in
            switch i % 11 {
            case 0: return -1
            case 1: return 32767.0 / 32768
            case 2: return 0
            default: return sin(Double(i) * 0.37) * 0.9 - 0.05
            }
        }
    }

    @Test(arguments: [(F.Encoding.pcm16, 1), (.pcm16, 2), (.pcm24, 2), (.pcm32, 6), (.float32, 2), (.pcm16, 6), (.float32, 1)])
    func decodesToFullScaleFloats(encoding: F.Encoding, channels: Int) throws {
        let dir = try F.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = 20011
        let x = Self.samples(frames * channels)
        let path = try F.write(F.wav(encoding, rate: 44100, channels: channels, payload: F.encode(x, encoding)), "a.wav", in: dir)
        let r = try SoundFileReader(path: FilePath(path))
        #expect(r.rate == 44100)
        #expect(r.channels == channels)
        #expect(r.declaredFrames == frames)
        #expect(r.name == path)
        let y = try readAll(r, block: 4093)
        #expect(y.count == x.count)
        // The expected value of each sample: its integer code divided by 2^(bits-1).
        let scale: Double
        switch encoding {
        case .pcm16: scale = 32768
        case .pcm24: scale = 8_388_608
        case .pcm32: scale = 2_147_483_648
        case .float32: scale = 0
        }
        var bad = 0
        for i in 0..<x.count {
            let expected: Float
            if scale == 0 {
                expected = Float(x[i])
            } else {
                let code = max(-scale, min(scale - 1, (x[i] * scale).rounded()))
                expected = Float(code / scale)
            }
            if y[i] != expected { bad += 1 }
        }
        #expect(bad == 0)
        // s16 -32768 reads exactly -1.0; 32767 reads 32767/32768.
        #expect(y[0] == -1)
        if encoding == .pcm16 { #expect(y[1] == Float(32767.0 / 32768)) }
        // A second pass after seeking back to the start reads the same.
        #expect(r.seek(toFrame: 0))
        #expect(try readAll(r, block: 777) == y)
        #expect(r.seek(toFrame: frames - 1))
        #expect(try readAll(r) == Array(y.suffix(channels)))
    }

    @Test(arguments: [F.Encoding.pcm16, .pcm24, .pcm32, .float32])
    func truncatedDataReadsAsFarAsItGoes(encoding: F.Encoding) throws {
        let dir = try F.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let x = Self.samples(1000 * 2)
        let payload = F.encode(x, encoding)
        let frameBytes = 2 * F.bits(encoding) / 8
        // The header claims 1000 frames; 600 and a half are there.
        let bytes = F.wav(encoding, rate: 8000, channels: 2, payload: Array(payload.prefix(600 * frameBytes + frameBytes / 2)), dataSize: payload.count)
        let path = try F.write(bytes, "t.wav", in: dir)
        let r = try SoundFileReader(path: FilePath(path))
        #expect(r.declaredFrames >= 600)
        let y = try readAll(r, block: 256)
        #expect(y.count == 600 * 2)
        // Same samples as the complete file's first 600 frames.
        let full = try SoundFileReader(path: FilePath(try F.write(F.wav(encoding, rate: 8000, channels: 2, payload: payload), "full.wav", in: dir)))
        #expect(y == Array(try readAll(full).prefix(1200)))
        if encoding == .pcm16 {
            #expect(y == x.prefix(1200).map { Float(max(-32768, min(32767, ($0 * 32768).rounded())) / 32768) })
        }
    }

    @Test func headerOnlyFileHasNoFrames() throws {
        let dir = try F.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try F.write(F.wav(.pcm16, rate: 48000, channels: 2, payload: []), "e.wav", in: dir)
        let r = try SoundFileReader(path: FilePath(path))
        #expect(r.declaredFrames == 0)
        #expect(try readAll(r).isEmpty)
    }

    /// The two kinds of refusal: the file cannot be opened, or it is not audio the reader takes.
    enum Refusal { case missingInput, notDecodable }

    /// The class of the reader's error for `path` (the CLI words the two apart: what cannot
    /// be opened, and what is not audio it takes), nil when it opens.
    static func kind(of path: String) -> Refusal? {
        do {
            _ = try SoundFileReader(path: FilePath(path))
            return nil
        } catch {
            switch error {
            case .cannotOpen(_, let reason), .noPermission(_, let reason):
                #expect(!reason.isEmpty && !reason.contains("\n"))
                return .missingInput
            case .isDirectory:
                return .missingInput
            case .notDecodable(_, let reason):
                #expect(!reason.isEmpty && !reason.contains("\n"))
                return .notDecodable
            case .channels(_, let count, let most):
                #expect(count < 1 || count > most)
                return .notDecodable
            case .rate(_, let hz, let most):
                #expect(hz < 1 || hz > most)
                return .notDecodable
            default:
                Issue.record("unexpected \(error)")
                return nil
            }
        }
    }

    @Test func errorsHaveTheRightKind() throws {
        let dir = try F.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pcm = F.encode(Self.samples(64), .pcm16)
        #expect(Self.kind(of: dir.appendingPathComponent("missing.wav").path) == .missingInput)
        #expect(Self.kind(of: dir.path) == .missingInput)
        #expect(Self.kind(of: try F.write([], "empty.wav", in: dir)) == .notDecodable)
        #expect(Self.kind(of: try F.write(Array("hello, not audio\n".utf8), "text.wav", in: dir)) == .notDecodable)
        #expect(Self.kind(of: try F.write(F.wav(.pcm16, rate: 8000, channels: 1, payload: pcm, declaredChannels: 0), "c0.wav", in: dir)) == .notDecodable)
        #expect(Self.kind(of: try F.write(F.wav(.pcm16, rate: 8000, channels: 1, payload: pcm, declaredChannels: 1000), "c1000.wav", in: dir)) == .notDecodable)
        #expect(Self.kind(of: try F.write(F.wav(.pcm16, rate: 8000, channels: 1, payload: pcm, declaredChannels: 33), "c33.wav", in: dir)) == .notDecodable)
        #expect(Self.kind(of: try F.write(F.wav(.pcm16, rate: 8000, channels: 1, payload: pcm, declaredRate: 0), "r0.wav", in: dir)) == .notDecodable)
        // 32 channels is the most pulsemeter reads.
        let wide = F.encode([Double](repeating: 0.25, count: 32 * 10), .pcm16)
        let r32 = try SoundFileReader(path: FilePath(try F.write(F.wav(.pcm16, rate: 8000, channels: 32, payload: wide), "c32.wav", in: dir)))
        #expect(r32.channels == 32)
        // Unreadable (skipped as root, who reads anything).
        if getuid() != 0 {
            let locked = try F.write(F.wav(.pcm16, rate: 8000, channels: 1, payload: pcm), "locked.wav", in: dir)
            chmod(locked, 0)
            #expect(Self.kind(of: locked) == .missingInput)
        }
    }
}
