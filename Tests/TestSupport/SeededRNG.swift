import MeterCore

/// The tests' one seeded random number generator (SplitMix64): every test that wants "random"
/// data sees the same data on every run. `SplitMix(state:)` and `SeededRNG(seed:)` are the
/// same generator from the same starting state (the names of the two copies it replaced).
public struct SeededRNG: RandomNumberGenerator, Sendable {
    /// The generator MeterCore's dither already runs (SplitMix64), not a second copy of it.
    private var core: DitherNoise
    public init(seed: UInt64) { core = DitherNoise(seed: seed) }
    public init(state: UInt64) { core = DitherNoise(seed: state) }

    public mutating func next() -> UInt64 { core.next() }

    /// Uniform in [-1, 1).
    public mutating func signed() -> Double { Double(next() >> 11) / Double(1 << 52) - 1 }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// The name PulseMeterCLITests used for `SeededRNG`.
public typealias SplitMix = SeededRNG
