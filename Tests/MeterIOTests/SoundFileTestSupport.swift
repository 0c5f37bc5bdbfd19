import Foundation
import MeterCore
import Testing
import TestSupport

/// Hand-built WAV files for the reader tests: any header field can lie.
enum SoundFileFixture {
    enum Encoding { case pcm16, pcm24, pcm32, float32 }

    static func le16(_ v: Int) -> [UInt8] { WAV.le16(v) }
    static func le32(_ v: Int) -> [UInt8] { WAV.le32(v) }

    /// Encodes full-scale-1.0 samples (clamped) as little-endian PCM or float.
    static func encode(_ samples: [Double], _ e: Encoding) -> [UInt8] {
        var out: [UInt8] = []
        for s in samples {
            switch e {
            case .pcm16:
                let v = Int(max(-32768, min(32767, (s * 32768).rounded())))
                out += le16(v)
            case .pcm24:
                let v = Int(max(-8_388_608, min(8_388_607, (s * 8_388_608).rounded())))
                out += Array(le32(v).prefix(3))
            case .pcm32:
                let v = Int(max(-2_147_483_648, min(2_147_483_647, (s * 2_147_483_648).rounded())))
                out += le32(v)
            case .float32:
                out += le32(Int(Float(s).bitPattern))
            }
        }
        return out
    }

    static func bits(_ e: Encoding) -> Int {
        switch e {
        case .pcm16: 16
        case .pcm24: 24
        case .pcm32, .float32: 32
        }
    }

    /// A RIFF/WAVE file (`WAV.file`, never extensible). `declared*` override what the header
    /// states; `dataSize` overrides the data chunk's length field (a truncated file states
    /// more than it holds).
    static func wav(_ e: Encoding, rate: Int, channels: Int, payload: [UInt8],
                    declaredChannels: Int? = nil, declaredRate: Int? = nil, dataSize: Int? = nil) -> [UInt8] {
        WAV.file(rate: rate, channels: channels, bits: bits(e), float: e == .float32, payload: payload,
                 declaredChannels: declaredChannels, declaredRate: declaredRate, dataSize: dataSize, extensible: false)
    }

    /// A new directory (`TempDir.create`), left in place as before.
    static func tempDir() throws -> URL { URL(fileURLWithPath: try TempDir.create("io")) }

    static func write(_ bytes: [UInt8], _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }
}

/// Reads a whole source in blocks of `block` frames, checking no read returns more than asked.
func readAll(_ source: any SampleBlockSource, block: Int = 1000) throws -> [Float] {
    var out: [Float] = []
    let buf = UnsafeMutablePointer<Float>.allocate(capacity: block * source.channels)
    defer { buf.deallocate() }
    while true {
        let n = try source.read(into: buf, maxFrames: block)
        if n == 0 { break }
        #expect(n <= block)
        out += UnsafeBufferPointer(start: buf, count: n * source.channels)
    }
    return out
}
