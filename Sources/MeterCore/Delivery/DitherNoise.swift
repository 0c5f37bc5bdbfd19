/// The random source of the 16-bit dither: SplitMix64 (Steele, Lea and Flood, 2014), fast,
/// seeded by the caller (a command seeds it from the system's generator, a test with a fixed
/// number), so MeterCore keeps no state of the OS and a test's output is reproducible.
public struct DitherNoise: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// One TPDF value in LSB: the sum of two independent uniform values of ±0.5 LSB each,
    /// triangular over (-1, 1).
    @inline(__always)
    public mutating func triangular() -> Float {
        let r = next()
        let scale: Float = 1.0 / 4_294_967_296
        return (Float(UInt32(truncatingIfNeeded: r)) + Float(UInt32(truncatingIfNeeded: r >> 32))) * scale - 1
    }
}
