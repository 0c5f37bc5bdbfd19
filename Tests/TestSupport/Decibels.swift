import Foundation

/// The tests' one decibel helper: a power (mean square) or an amplitude in dB, floored at
/// -160 dB as pulsemeter's own readings are (silence reads -160, never -inf).
public func dB(power p: Double) -> Double { p > 0 ? max(-160, 10 * log10(p)) : -160 }
public func dB(amplitude a: Double) -> Double { a > 0 ? max(-160, 20 * log10(a)) : -160 }

/// The names MeterCoreTests used for `dB(power:)` and `dB(amplitude:)`.
public func db(power p: Double) -> Double { dB(power: p) }
public func db(amplitude a: Double) -> Double { dB(amplitude: a) }
