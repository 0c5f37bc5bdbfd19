/// The tests' one seeded random number generator (SplitMix64): every test that wants "random"
/// data sees the same data on every run. `SplitMix(state:)` and `SeededRNG(seed:)` are the
/// same generator from the same starting state (the names of the two copies it replaced).
public struct SeededRNG: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    public mutating func signed() -> Double { Double(next() >> 11) / Double(1 << 52) - 1 }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// The name PulseMeterCLITests used for `SeededRNG`.
public typealias SplitMix = SeededRNG
