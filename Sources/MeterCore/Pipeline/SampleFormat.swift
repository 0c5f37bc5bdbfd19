/// The sample format of a capture and its recording (`--bits 16|24|32|float`): what the
/// server delivers, what travels through the rings as bytes, and what the file holds, so the
/// file's samples are the captured ones bit for bit and the meter reads the same samples.
///
/// 24-bit samples travel in 32-bit words with the sample in the low 24 bits (PulseAudio's
/// S24_32), so every format has whole, aligned words; the upper byte is never read.
public enum SampleFormat: String, Sendable, CaseIterable {
    case s16, s24, s32, float

    /// The spelling of `--bits`: 16, 24, 32 or float.
    public var bitsName: String {
        switch self {
        case .s16: return "16"
        case .s24: return "24"
        case .s32: return "32"
        case .float: return "float"
        }
    }

    /// The format `--bits` names, nil for anything else.
    public init?(bits: String) {
        guard let f = Self.allCases.first(where: { $0.bitsName == bits }) else { return nil }
        self = f
    }

    /// Bytes one sample takes in the rings (and in the server's delivery).
    public var bytesPerSample: Int { self == .s16 ? 2 : 4 }
}
