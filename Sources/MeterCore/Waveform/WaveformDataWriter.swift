/// Writes min/max pixels (from `MinMaxAccumulator`) in the formats waveform players read,
/// streaming: the header first, each pixel as it comes, buffered into large writes.
///
/// - `.dat`: BBC audiowaveform's binary format, version 2: a 24-byte little-endian header
///   (version 2, flags bit 0 set for 8-bit, sample rate, samples per pixel, length in pixels,
///   channels), then per pixel and channel a min and a max as int8 or int16. 16-bit values
///   are the 16-bit scale truncated toward zero; 8-bit ones that divided by 256 (truncating),
///   as audiowaveform computes them.
/// - `.audiowaveformJSON`: the same fields as audiowaveform's JSON
///   (`version`, `channels`, `sample_rate`, `samples_per_pixel`, `bits`, `length`, `data`).
/// - `.peaks`: `{"version":1,"rate":..,"channels":..,"samples_per_pixel":..,"data":[min,max,...],
///   "duration":..,"length":..}` with floats in [-1, 1], what wavesurfer.js takes as `peaks`.
/// The JSON formats state `length` (and `duration`) after `data`, so they need no length in
/// advance; `.dat` needs it in the header. A document cut short (a stopped run) still ends in
/// form: `.dat` with empty pixels (0, 0) up to the length its header states, the JSON formats
/// at the last pixel written, their `length` saying how many.
public final class WaveformDataWriter {
    public enum Format: Sendable, Equatable {
        case dat(bits: Int)
        case audiowaveformJSON(bits: Int)
        case peaks

        /// The resolutions `dat` and `audiowaveform-json` define, and the one used when none is given.
        public static let allowedBits = [8, 16]
        public static let defaultBits = 16
    }

    public let format: Format
    private let output: any ByteOutput
    private let rate: Int
    private let json = JSONLineBuilder(capacity: 1 << 17)
    private var binary: [UInt8] = []
    private var values = 0
    public private(set) var pixels = 0
    /// The length the header states (`.dat`).
    private let statedLength: Int?
    /// Values per pixel: a min and a max per channel.
    public let pixelWidth: Int
    private let flushAt = 1 << 16

    /// Writes the header. `length` (pixels) is required for `.dat`.
    public init(format: Format, output: any ByteOutput, rate: Int, samplesPerPixel: Int, channels: Int,
                length: Int? = nil) throws {
        self.format = format
        self.output = output
        self.rate = rate
        pixelWidth = 2 * channels
        if case .dat = format { statedLength = length } else { statedLength = nil }
        switch format {
        case .dat(let bits):
            precondition(length != nil, ".dat needs its length in the header")
            binary.reserveCapacity(flushAt + 64)
            for v in [2, bits == 8 ? 1 : 0, rate, samplesPerPixel, length ?? 0, channels] { Self.int32LE(v, into: &binary) }
        case .audiowaveformJSON(let bits):
            json.byte(UInt8(ascii: "{"))
            json.field("version", 2)
            json.field("channels", channels)
            json.field("sample_rate", rate)
            json.field("samples_per_pixel", samplesPerPixel)
            json.field("bits", bits)
            json.key("data")
            json.byte(UInt8(ascii: "["))
        case .peaks:
            json.byte(UInt8(ascii: "{"))
            json.field("version", 1)
            json.field("rate", rate)
            json.field("channels", channels)
            json.field("samples_per_pixel", samplesPerPixel)
            json.key("data")
            json.byte(UInt8(ascii: "["))
        }
    }

    static func int32LE(_ v: Int, into b: inout [UInt8]) {
        let u = UInt32(truncatingIfNeeded: v)
        for s in stride(from: 0, to: 32, by: 8) { b.append(UInt8(truncatingIfNeeded: u >> UInt32(s))) }
    }

    /// One pixel: (min, max) per channel, interleaved.
    public func pixel(_ pair: UnsafeBufferPointer<Float>) throws {
        switch format {
        case .dat(let bits):
            for x in pair {
                let v = SampleConversion.int16TowardZero(x)
                if bits == 8 {
                    binary.append(UInt8(bitPattern: Int8(v / 256)))
                } else {
                    let u = UInt16(bitPattern: v)
                    binary.append(UInt8(truncatingIfNeeded: u))
                    binary.append(UInt8(truncatingIfNeeded: u >> 8))
                }
            }
            if binary.count >= flushAt { try flush() }
        case .audiowaveformJSON(let bits):
            for x in pair {
                if values > 0 { json.byte(UInt8(ascii: ",")) }
                let v = Int(SampleConversion.int16TowardZero(x))
                json.int(bits == 8 ? v / 256 : v)
                values += 1
            }
            if json.count >= flushAt { try flush() }
        case .peaks:
            for x in pair {
                if values > 0 { json.byte(UInt8(ascii: ",")) }
                json.number(Double(max(-1, min(1, x))), decimals: 6)
                values += 1
            }
            if json.count >= flushAt { try flush() }
        }
        pixels += 1
    }

    /// Ends the document: `frames` is how many frames the pixels covered. A `.dat` document
    /// short of its stated length gets empty pixels up to it.
    public func finish(frames: Int) throws {
        switch format {
        case .dat:
            let empty = [Float](repeating: 0, count: pixelWidth)
            try empty.withUnsafeBufferPointer { pair in
                while pixels < statedLength ?? 0 { try pixel(pair) }
            }
        case .audiowaveformJSON:
            json.byte(UInt8(ascii: "]"))
            json.field("length", pixels)
            json.raw("}\n")
        case .peaks:
            json.byte(UInt8(ascii: "]"))
            json.field("duration", rate > 0 ? Double(frames) / Double(rate) : 0, decimals: 6)
            json.field("length", pixels)
            json.raw("}\n")
        }
        try flush()
    }

    private func flush() throws {
        if case .dat = format {
            if !binary.isEmpty { try output.write(binary) }
            binary.removeAll(keepingCapacity: true)
        } else {
            if json.count > 0 { try output.write(json.bytes) }
            json.reset()
        }
    }
}
