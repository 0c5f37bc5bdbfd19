import Foundation
import Testing
import MeterCore
import TestSupport
@testable import MeterIO

@Suite struct RawPCMReaderTests {
    /// A pipe whose write end is fed by a thread in chunks of the given sizes, then closed.
    static func pipe(feeding bytes: [UInt8], chunks: [Int]) -> Int32 {
        var fds: [Int32] = [0, 0]
        precondition(Glibc.pipe(&fds) == 0)
        let writeFD = fds[1]
        let thread = Thread {
            var off = 0, i = 0
            while off < bytes.count {
                let n = min(chunks[i % chunks.count], bytes.count - off)
                i += 1
                let w = bytes[off..<(off + n)].withUnsafeBytes { Glibc.write(writeFD, $0.baseAddress!, n) }
                precondition(w > 0)
                off += w
                if i % 97 == 0 { Wait.pace(seconds: 0.0001) }  // the input: a slow writer, so the reader sees short reads
            }
            close(writeFD)
        }
        thread.start()
        return fds[0]
    }

    static func le(_ v: UInt32, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8((v >> (8 * UInt32($0))) & 0xFF) } }

    /// Codes spanning the whole range of each format, and their exact Float values.
    static func fixture(_ f: RawSampleFormat, count: Int) -> ([UInt8], [Float]) {
        var bytes: [UInt8] = [], values: [Float] = []
        for i in 0..<count {
            switch f {
            case .s16le:
                let v = Int16(truncatingIfNeeded: [Int(Int16.min), Int(Int16.max), 0, -1, 1][safe: i] ?? (i * 7919 % 65536 - 32768))
                bytes += le(UInt32(UInt16(bitPattern: v)), 2)
                values.append(Float(v) / 32768)
            case .s24le:
                let v = [-8_388_608, 8_388_607, 0, -1, 1][safe: i] ?? (i * 104_729 % 16_777_216 - 8_388_608)
                bytes += le(UInt32(bitPattern: Int32(v)), 3)
                values.append(Float(Double(v) / 8_388_608))
            case .s32le:
                let v = [Int(Int32.min), Int(Int32.max), 0, -1, 1][safe: i] ?? (i * 2_654_435_761 % 4_294_967_296 - 2_147_483_648)
                bytes += le(UInt32(bitPattern: Int32(v)), 4)
                values.append(Float(Double(v) / 2_147_483_648))
            case .f32le:
                let v: Float = [-1, 1, 0, -0.5, 1e-20][safe: i] ?? Float(sin(Double(i)) * 0.99)
                bytes += le(v.bitPattern, 4)
                values.append(v)
            }
        }
        return (bytes, values)
    }

    @Test(arguments: RawSampleFormat.allCases)
    func convertsEveryFormatExactlyAcrossShortReads(format: RawSampleFormat) throws {
        #expect(format.bytesPerSample == ["s16le": 2, "s24le": 3, "s32le": 4, "f32le": 4][format.rawValue])
        for channels in [1, 2, 6] {
            let frames = 3001
            let (bytes, values) = Self.fixture(format, count: frames * channels)
            for chunks in [[bytes.count], [1, 7, 3, 64], [4096, 5]] {
                let fd = Self.pipe(feeding: bytes, chunks: chunks)
                defer { close(fd) }
                let r = RawPCMReader(fd: fd, format: format, rate: 48000, channels: channels)
                #expect(r.rate == 48000 && r.channels == channels && r.name == "stdin")
                let got = try readAll(r, block: 1000)
                #expect(got == values, "\(format) ch \(channels) chunks \(chunks)")
                #expect(r.trailingBytes == 0)
            }
        }
    }

    @Test(arguments: RawSampleFormat.allCases)
    func trailingPartialFrameIsCountedNotDecoded(format: RawSampleFormat) throws {
        let channels = 2
        let frameBytes = format.bytesPerSample * channels
        let (bytes, values) = Self.fixture(format, count: 100 * channels)
        for extra in 1..<frameBytes {
            let fd = Self.pipe(feeding: bytes + Array(repeating: 0x7F, count: extra), chunks: [13])
            defer { close(fd) }
            let r = RawPCMReader(fd: fd, format: format, rate: 8000, channels: channels)
            #expect(try readAll(r, block: 7) == values)
            #expect(r.trailingBytes == extra, "\(format) extra \(extra)")
        }
    }

    @Test func emptyStdinHasNoFrames() throws {
        let fd = Self.pipe(feeding: [], chunks: [1])
        defer { close(fd) }
        let r = RawPCMReader(fd: fd, format: .s16le, rate: 8000, channels: 2)
        #expect(try readAll(r, block: 10).isEmpty)
        #expect(r.trailingBytes == 0)
    }

    @Test func readErrorIsAnIOError() {
        let r = RawPCMReader(fd: 9999, format: .s16le, rate: 8000, channels: 1)
        let buf = UnsafeMutablePointer<Float>.allocate(capacity: 16)
        defer { buf.deallocate() }
        let e = #expect(throws: InputError.self) { _ = try r.read(into: buf, maxFrames: 16) }
        #expect(e == .readFailed(name: "stdin", reason: "Bad file descriptor"), "a failed read (the CLI's exit 74)")
    }
}

extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
