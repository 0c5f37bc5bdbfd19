/// A chain of second-order IIR sections for one channel, run in Double over whole blocks.
///
/// The frequency weightings of the sound level meter and the fractional-octave band filters
/// are such chains. Each block is converted to Double once, every section runs over it in
/// place (transposed direct form II), and the result is converted back: no per-sample
/// allocation, and no Float rounding between sections (a pole near z = 1, as a 20 Hz pole at
/// 96 kHz is, would amplify it).
public final class BiquadCascade {
    /// One section: (b0 + b1 z^-1 + b2 z^-2) / (1 + a1 z^-1 + a2 z^-2).
    public struct Section: Sendable, Equatable {
        public var b0, b1, b2, a1, a2: Double

        public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
            self.b0 = b0
            self.b1 = b1
            self.b2 = b2
            self.a1 = a1
            self.a2 = a2
        }

        /// The section scaled by `gain` (its numerator only).
        public func scaled(by gain: Double) -> Section {
            Section(b0: b0 * gain, b1: b1 * gain, b2: b2 * gain, a1: a1, a2: a2)
        }

        /// |H|^2 at `w` radians per sample. With phi0 = cos^2(w/2), phi1 = sin^2(w/2) and
        /// phi2 = 4 phi0 phi1, |b0 + b1 z^-1 + b2 z^-2|^2 = (b0+b1+b2)^2 phi0 + (b0-b1+b2)^2 phi1
        /// - 4 b0 b2 phi2 (and likewise the denominator): the form the weighting design matches in.
        public func powerGain(atRadians w: Double) -> Double {
            let s = PureMath.sin(w / 2)
            let p1 = s * s, p0 = 1 - p1, p2 = 4 * p0 * p1
            func form(_ c0: Double, _ c1: Double, _ c2: Double) -> Double {
                (c0 + c1 + c2) * (c0 + c1 + c2) * p0 + (c0 - c1 + c2) * (c0 - c1 + c2) * p1 - 4 * c0 * c2 * p2
            }
            return form(b0, b1, b2) / form(1, a1, a2)
        }
    }

    public let sections: [Section]
    /// Two state values per section.
    private let state: UnsafeMutablePointer<Double>
    private let scratch: UnsafeMutablePointer<Double>
    public static let blockCapacity = 4096

    public init(_ sections: [Section]) {
        self.sections = sections
        state = .allocate(capacity: max(1, 2 * sections.count))
        state.initialize(repeating: 0, count: max(1, 2 * sections.count))
        scratch = .allocate(capacity: Self.blockCapacity)
    }

    deinit {
        state.deallocate()
        scratch.deallocate()
    }

    /// The chain's power gain (|H|^2) at `hz` for a stream of `rate` Hz.
    public static func powerGain(of sections: [Section], atHz hz: Double, rate: Int) -> Double {
        let w = 2 * Double.pi * hz / Double(rate)
        var g = 1.0
        for s in sections { g *= s.powerGain(atRadians: w) }
        return g
    }

    /// Filters `n` contiguous samples from `input` into `output` (which may be `input`).
    public func process(_ input: UnsafePointer<Float>, count n: Int, into output: UnsafeMutablePointer<Float>) {
        var done = 0
        while done < n {
            let m = min(n - done, Self.blockCapacity)
            let x = scratch
            for i in 0..<m { x[i] = Double(input[done + i]) }
            runSections(m)
            for i in 0..<m { output[done + i] = Float(x[i]) }
            done += m
        }
    }

    private func runSections(_ m: Int) {
        let x = scratch
        for (k, s) in sections.enumerated() {
            var z1 = state[2 * k], z2 = state[2 * k + 1]
            let b0 = s.b0, b1 = s.b1, b2 = s.b2, a1 = s.a1, a2 = s.a2
            for i in 0..<m {
                let v = x[i]
                let y = b0 * v + z1
                z1 = b1 * v - a1 * y + z2
                z2 = b2 * v - a2 * y
                x[i] = y
            }
            // A decaying state would reach subnormal numbers, which are slow on every CPU;
            // below 1e-30 (600 dB under full scale) it is zero.
            if abs(z1) < 1e-30 && abs(z2) < 1e-30 { z1 = 0; z2 = 0 }
            state[2 * k] = z1
            state[2 * k + 1] = z2
        }
    }
}
