/// The tests' one WAV writer: RIFF/WAVE bytes built by hand (independent of the code under
/// test), including headers that lie (`declared*`, `dataSize`).
public enum WAV {
    public static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    public static func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }

    /// A WAV file of `payload` (little-endian interleaved samples of `bits` bits, integer or
    /// float). `declaredChannels`/`declaredRate` override what the header states; `dataSize`
    /// the data chunk's length field (a truncated file states more than it holds);
    /// `extensible` (default: more than 2 channels) writes WAVE_FORMAT_EXTENSIBLE.
    public static func file(rate: Int, channels: Int, bits: Int, float: Bool = false, payload: [UInt8],
                            declaredChannels: Int? = nil, declaredRate: Int? = nil, dataSize: Int? = nil,
                            extensible: Bool? = nil) -> [UInt8] {
        let ch = declaredChannels ?? channels
        let r = declaredRate ?? rate
        let blockAlign = ch * bits / 8
        let ext = extensible ?? (channels > 2)
        var fmt: [UInt8] = le16(ext ? 0xFFFE : (float ? 3 : 1)) + le16(ch) + le32(r) + le32(r * blockAlign)
        fmt += le16(blockAlign) + le16(bits)
        if ext {
            // cbSize, valid bits, channel mask (0: unassigned), sub-format GUID.
            fmt += le16(22) + le16(bits) + le32(0)
            fmt += le16(float ? 3 : 1) + [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        let size = dataSize ?? payload.count
        var out: [UInt8] = Array("RIFF".utf8) + le32(4 + 8 + fmt.count + 8 + size) + Array("WAVE".utf8)
        out += Array("fmt ".utf8) + le32(fmt.count) + fmt
        out += Array("data".utf8) + le32(size) + payload
        return out
    }

    /// A 16-bit PCM WAV file of interleaved `samples`.
    public static func file(_ samples: [Int16], rate: Int, channels: Int) -> [UInt8] {
        file(rate: rate, channels: channels, bits: 16, payload: samples.withUnsafeBytes { [UInt8]($0) })
    }
}
