import Foundation
import Testing
import TestSupport
@testable import MeterCore

/// The loudness range's histogram against the sorted list it stands for, and the shape of the
/// true-peak meter's search filter (the peak itself against the exact one:
/// TruePeakAccuracyTests).
@Suite struct LoudnessCoreTests {
    /// Tech 3342's computation on a plain list: gates, sort, percentiles by rank.
    static func listRange(_ lufs: [Double]) -> Double {
        let loud = lufs.filter { $0 >= -70 }
        guard !loud.isEmpty else { return 0 }
        let mean = loud.map { pow(10, $0 / 10) }.reduce(0, +) / Double(loud.count)
        let kept = loud.filter { $0 >= 10 * log10(mean) - 20 }.sorted()
        guard !kept.isEmpty else { return 0 }
        let at = { (p: Double) in kept[Int(Double(kept.count - 1) * p + 0.5)] }
        return at(0.95) - at(0.10)
    }

    @Test func rangeMatchesTheSortedList() {
        var rng = SeededRNG(seed: 42)
        for trial in 0..<20 {
            // Values around a programme level, with quiet stretches under both gates.
            let centre = -40 + 30 * (rng.signed() + 1) / 2
            let spread = 1 + 12 * (rng.signed() + 1) / 2
            var values: [Double] = []
            var range = LoudnessRange()
            for _ in 0..<(50 + trial * 400) {
                let quiet = rng.signed() > 0.7
                let v = quiet ? centre - 25 - 60 * (rng.signed() + 1) / 2 : centre + spread * rng.signed()
                values.append(v)
                range.add(energy: LoudnessMeter.energy(lufs: v))
                // So far, as every frame reads it.
                if values.count % 1000 == 0 {
                    #expect(abs(range.range() - Self.listRange(values)) <= 0.011, "trial \(trial) at \(values.count)")
                }
            }
            let expected = Self.listRange(values)
            #expect(abs(range.range() - expected) <= 0.011, "trial \(trial): \(range.range()) against \(expected)")
        }
        #expect(LoudnessRange().range() == 0)
        var quiet = LoudnessRange()
        quiet.add(energy: LoudnessMeter.energy(lufs: -80))
        #expect(quiet.range() == 0 && quiet.values == 0)
    }

    @Test func searchFilterShape() {
        let phases = TruePeakMeter.searchPhases
        #expect(phases.count == 4 && phases.allSatisfy { $0.count == 12 })
        // Symmetric: phase 3 is phase 0 reversed, phase 2 is phase 1 reversed.
        for (a, b) in zip(phases[3], phases[0].reversed()) { #expect(abs(a - b) < 1e-7) }
        for (a, b) in zip(phases[2], phases[1].reversed()) { #expect(abs(a - b) < 1e-7) }
        // Unity gain at DC in every phase, and each phase's largest tap on the sample nearest
        // its point (1/8 and 3/8 of a period after sample 6 back: tap 6; 5/8 and 7/8: tap 5).
        for (p, phase) in phases.enumerated() {
            #expect(abs(phase.reduce(0, +) - 1) < 1e-6, "\(phase.reduce(0, +))")
            #expect(phase.indices.max { abs(phase[$0]) < abs(phase[$1]) } == (p < 2 ? 6 : 5))
        }
        #expect(TruePeakMeter(rate: 48000, channels: 1).factor == 4)
        #expect(TruePeakMeter(rate: 88200, channels: 1).factor == 4)
        #expect(TruePeakMeter(rate: 96000, channels: 1).factor == 2)
        #expect(TruePeakMeter(rate: 192000, channels: 1).factor == 2)
    }
}
