import Foundation
import Testing
import TestSupport
@testable import MeterCore

/// PureMath against Glibc over wide ranges: relative error within a few ulps.
@Suite struct PureMathTests {
    static func close(_ a: Double, _ b: Double, _ rel: Double = 1e-14) -> Bool {
        a == b || abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)
    }

    @Test func logMatchesGlibc() {
        var rng = SeededRNG(seed: 1234)  // seeded: a failure reproduces
        for _ in 0..<20000 {
            let x = Double.random(in: -700...700, using: &rng)
            let v = Foundation.exp(x)
            #expect(Self.close(PureMath.log(v), Foundation.log(v), 1e-13), "log(\(v))")
            #expect(Self.close(PureMath.log10(v), Foundation.log10(v), 1e-13), "log10(\(v))")
        }
        for v in [1.0, 2.0, 10.0, 0.5, 1e-300, Double.leastNormalMagnitude / 1024, Double.leastNonzeroMagnitude * 6071, Double.leastNormalMagnitude, Double.leastNonzeroMagnitude,
                  Double.greatestFiniteMagnitude, 1.4142135623730951, 1.4142135623730954] {
            #expect(Self.close(PureMath.log(v), Foundation.log(v), 1e-13), "log(\(v))")
        }
        #expect(PureMath.log(0) == -.infinity)
        #expect(PureMath.log(-1).isNaN)
        #expect(PureMath.log(.nan).isNaN)
        #expect(PureMath.log(.infinity) == .infinity)
    }

    @Test func expAndPowMatchGlibc() {
        for i in -7000...7000 {
            let x = Double(i) / 10
            #expect(Self.close(PureMath.exp(x), Foundation.exp(x), 1e-13), "exp(\(x))")
        }
        #expect(PureMath.exp(800) == .infinity)
        #expect(PureMath.exp(-800) == 0)
        for (a, b) in [(320.0, 0.5), (10.0, -16.0), (2.0, 10.0), (1.2589254117941673, 3.0)] {
            #expect(Self.close(PureMath.pow(a, b), Foundation.pow(a, b), 1e-13))
        }
    }

    @Test func cosMatchesGlibc() {
        for i in -20000...20000 {
            let x = Double(i) / 1000
            #expect(abs(PureMath.cos(x) - Foundation.cos(x)) < 1e-14, "cos(\(x))")
        }
        // The Hann window's own arguments.
        for n in [64, 2048, 65536] {
            for i in stride(from: 0, to: n, by: max(1, n / 512)) {
                let x = 2 * Double.pi * Double(i) / Double(n)
                #expect(abs(PureMath.cos(x) - Foundation.cos(x)) < 1e-14)
            }
        }
    }

    /// tan as the K-weighting design uses it: pi * f0 / rate for every rate from 16 Hz up.
    @Test func tanMatchesGlibc() {
        for f0 in [38.13547087602444, 1681.974450955533] {
            for rate in [16, 100, 8000, 22050, 44100, 48000, 96000, 192000, 768000] {
                let x = Double.pi * f0 / Double(rate)
                #expect(Self.close(PureMath.tan(x), Foundation.tan(x), 1e-12), "tan(\(x))")
            }
        }
    }
}
