import Glibc
import MeterCore

/// Raw PCM layouts accepted on stdin (`analyze - --raw ...`).
public enum RawSampleFormat: String, Sendable, CaseIterable {
    case s16le, s24le, s32le, f32le

    public var bytesPerSample: Int {
        switch self {
        case .s16le: 2
        case .s24le: 3
        case .s32le, .f32le: 4
        }
    }
}

/// Reads interleaved raw PCM from a file descriptor (`read(2)`) and converts it to Float in bulk.
///
/// A stream that ends inside a frame keeps its complete frames; the leftover byte count is
/// kept in `trailingBytes` so the CLI can warn about it.
public final class RawPCMReader: SampleBlockSource {
    public let rate: Int
    public let channels: Int
    public let format: RawSampleFormat
    public let name: String
    public private(set) var trailingBytes = 0
    private let fd: Int32
    private var bytes: UnsafeMutableRawPointer
    private var capacity: Int
    private var carry = 0  // bytes of an incomplete frame kept from the last read
    private var atEnd = false
    private let stop: StopPipe?

    /// With `cancellation`, cancelling it ends the stream where it is (a stalled pipe, Ctrl-C),
    /// even while a read waits for input.
    public init(fd: Int32, format: RawSampleFormat, rate: Int, channels: Int, name: String = "stdin",
                cancellation: Cancellation? = nil) {
        stop = cancellation.flatMap { StopPipe($0) }
        self.fd = fd
        self.format = format
        self.rate = rate
        self.channels = channels
        self.name = name
        capacity = 0
        bytes = .allocate(byteCount: 1, alignment: 16)
    }

    deinit {
        stop?.release()
        bytes.deallocate()
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws -> Int {
        let frameBytes = format.bytesPerSample * channels
        let want = maxFrames * frameBytes
        if capacity < want {
            let grown = UnsafeMutableRawPointer.allocate(byteCount: want, alignment: 16)
            grown.copyMemory(from: bytes, byteCount: carry)
            bytes.deallocate()
            bytes = grown
            capacity = want
        }
        var have = carry
        // One read(2) at a time, returning as soon as a whole frame is in, so a pipe from a
        // live source (parec) is metered as it arrives.
        while !atEnd {
            let n = SystemCall.read(fd, bytes + have, want - have, stop: stop)
            if n < 0 {
                if errno == EINTR { atEnd = true; break }
                throw InputError.readFailed(name: name, reason: errnoText())
            }
            if n == 0 { atEnd = true; break }
            have += n
            if have >= frameBytes { break }
        }
        let frames = have / frameBytes
        if frames == 0 {
            trailingBytes = have
            carry = 0
            return 0
        }
        convert(count: frames * channels, into: buffer)
        carry = have - frames * frameBytes
        if carry > 0 {
            (bytes).copyMemory(from: bytes + frames * frameBytes, byteCount: carry)
        }
        return frames
    }

    private func convert(count: Int, into out: UnsafeMutablePointer<Float>) {
        switch format {
        case .s16le:
            let p = bytes.assumingMemoryBound(to: Int16.self)
            for i in 0..<count { out[i] = SampleConversion.float(Int16(littleEndian: p[i])) }
        case .s24le:
            let p = bytes.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count {
                let b = p + 3 * i
                let v = Int32(bitPattern: UInt32(b[0]) << 8 | UInt32(b[1]) << 16 | UInt32(b[2]) << 24) >> 8
                out[i] = Float(v) * (1.0 / 8_388_608)
            }
        case .s32le:
            let p = bytes.assumingMemoryBound(to: Int32.self)
            for i in 0..<count { out[i] = Float(Double(Int32(littleEndian: p[i])) * (1.0 / 2_147_483_648)) }
        case .f32le:
            let p = bytes.assumingMemoryBound(to: UInt32.self)
            for i in 0..<count { out[i] = Float(bitPattern: UInt32(littleEndian: p[i])) }
        }
    }
}
