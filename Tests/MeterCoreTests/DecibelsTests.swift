import Foundation
import Testing
import TestSupport
@testable import MeterCore

@Suite struct DecibelsTests {
    @Test func knownValues() {
        #expect(Decibels.fromPower(1) == 0)
        #expect(Decibels.fromAmplitude(1) == 0)
        #expect(abs(Decibels.fromPower(0.5) - (-3.0103)) < 1e-4)
        #expect(abs(Decibels.fromAmplitude(0.5) - (-6.0206)) < 1e-4)
        #expect(abs(Decibels.fromAmplitude(0.1) - (-20)) < 1e-9)
        #expect(abs(Decibels.fromPower(1e-4) - (-40)) < 1e-9)
        #expect(abs(Decibels.fromAmplitude(2) - 6.0206) < 1e-4)
    }

    @Test func floorAndCeiling() {
        for p in [0.0, -0.0, -1, -Double.infinity, .nan, -.nan, 1e-17, 1e-300, .leastNonzeroMagnitude] {
            #expect(Decibels.fromPower(p) == -160.0, "power \(p)")
        }
        for a in [0.0, -0.0, -1, -Double.infinity, .nan, 1e-9, 1e-200, .leastNonzeroMagnitude] {
            #expect(Decibels.fromAmplitude(a) == -160.0, "amplitude \(a)")
        }
        // Exactly at the floor.
        #expect(abs(Decibels.fromPower(1e-16) - (-160)) < 1e-9)
        #expect(abs(Decibels.fromAmplitude(1e-8) - (-160)) < 1e-9)
        #expect(Decibels.fromPower(.infinity) == Decibels.ceiling)
        #expect(Decibels.fromAmplitude(.infinity) == Decibels.ceiling)
        #expect(Decibels.fromPower(.greatestFiniteMagnitude) == Decibels.ceiling)
        #expect(Decibels.fromAmplitude(.greatestFiniteMagnitude) == Decibels.ceiling)
        #expect(Decibels.ceiling.isFinite)
    }

    @Test func alwaysFiniteAndInRange() {
        var rng = SeededRNG(seed: 42)
        var values: [Double] = [0, .nan, .infinity, -.infinity, .ulpOfOne, .greatestFiniteMagnitude]
        for _ in 0..<2000 { values.append(pow(10, rng.signed() * 40) * (rng.signed() < -0.8 ? -1 : 1)) }
        for v in values {
            for d in [Decibels.fromPower(v), Decibels.fromAmplitude(v)] {
                #expect(d.isFinite)
                #expect(d >= -160.0 && d <= Decibels.ceiling)
            }
        }
    }

    @Test func monotonic() {
        var last = -Double.infinity
        for e in stride(from: -20.0, through: 20.0, by: 0.01) {
            let d = Decibels.fromPower(pow(10, e))
            #expect(d >= last)
            last = d
        }
    }
}
