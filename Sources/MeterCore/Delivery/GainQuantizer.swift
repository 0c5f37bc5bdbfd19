/// Applies a static gain to interleaved Float samples and writes them in an output sample
/// format, the layout `RecordingWriter`s take (`SampleFormat`): s16 with TPDF dither of
/// ±1 LSB (`DitherNoise.triangular`) before rounding, s24 (in the low bits of 32-bit words)
/// and s32 rounded without dither, float as the product itself (`x * gain` in Float, so a
/// float output is the input times the gain sample for sample). Integer outputs are clamped
/// to their range.
public struct GainQuantizer: Sendable {
    public let gain: Float
    public let format: SampleFormat
    private var noise: DitherNoise

    public init(gain: Float, format: SampleFormat, noise: DitherNoise) {
        self.gain = gain
        self.format = format
        self.noise = noise
    }

    /// Converts `count` samples from `input` into `output` (room for `count` samples of
    /// `format`: `count * format.bytesPerSample` bytes).
    public mutating func apply(_ input: UnsafePointer<Float>, count: Int, into output: UnsafeMutableRawPointer) {
        let g = gain
        switch format {
        case .float:
            let o = output.assumingMemoryBound(to: Float.self)
            for i in 0..<count { o[i] = input[i] * g }
        case .s16:
            let o = output.assumingMemoryBound(to: Int16.self)
            for i in 0..<count {
                let v = (input[i] * g * 32768 + noise.triangular()).rounded()
                o[i] = Int16(max(-32768, min(32767, v.isNaN ? 0 : v)))
            }
        case .s24:
            let o = output.assumingMemoryBound(to: Int32.self)
            for i in 0..<count {
                let v = (input[i] * g * 8_388_608).rounded()
                o[i] = Int32(max(-8_388_608, min(8_388_607, v.isNaN ? 0 : v)))
            }
        case .s32:
            let o = output.assumingMemoryBound(to: Int32.self)
            for i in 0..<count {
                let v = (Double(input[i]) * Double(g) * 2_147_483_648).rounded()
                o[i] = Int32(max(-2_147_483_648, min(2_147_483_647, v.isNaN ? 0 : v)))
            }
        }
    }
}
