import Foundation
import Testing
@testable import MeterCore

/// The loudness range's histogram against the sorted list it stands for, and the true-peak
/// oversampler against the Annex's interpolation written out directly.
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

    @Test func annexFilterShape() {
        let phases = TruePeakMeter.annexPhases
        #expect(phases.count == 4 && phases.allSatisfy { $0.count == 12 })
        // Symmetric 48-tap filter: phase 3 is phase 0 reversed, phase 2 is phase 1 reversed.
        #expect(phases[3] == Array(phases[0].reversed()) && phases[2] == Array(phases[1].reversed()))
        // About unity gain at DC in every phase: 1.0016 and 0.9730 (the Annex's filter ripples
        // by about 0.2 dB in its passband).
        for p in phases { #expect(abs(p.reduce(0, +) - 1) < 0.03, "\(p.reduce(0, +))") }
        #expect(TruePeakMeter(rate: 48000, channels: 1).factor == 4)
        #expect(TruePeakMeter(rate: 88200, channels: 1).factor == 4)
        #expect(TruePeakMeter(rate: 96000, channels: 1).factor == 2)
        #expect(TruePeakMeter(rate: 192000, channels: 1).factor == 1)
    }

    /// y_p[n] = sum over k of h_p[k] x[n - k], in Double, with zeros before the start; the
    /// meter's peak is the largest |y| or |x|. Fed in uneven blocks, planar, two channels.
    @Test(arguments: [48000, 96000, 192000])
    func oversamplerMatchesTheDirectForm(rate: Int) {
        var rng = SeededRNG(seed: UInt64(rate))
        let n = 5000
        var x: [[Float]] = [[], []]
        var lp = [0.0, 0.0]
        for _ in 0..<n {
            for c in 0..<2 {
                lp[c] = 0.5 * lp[c] + 0.5 * rng.signed()
                x[c].append(Float(lp[c] * (c == 0 ? 0.9 : 0.4)))
            }
        }
        let meter = TruePeakMeter(rate: rate, channels: 2)
        let phases = meter.factor == 4 ? TruePeakMeter.annexPhases : meter.factor == 2 ? [TruePeakMeter.annexPhases[0], TruePeakMeter.annexPhases[2]] : []
        var planar = [Float](repeating: 0, count: 2 * TruePeakMeter.blockCapacity)
        var done = 0, size = 1
        while done < n {
            let m = min(size, n - done, TruePeakMeter.blockCapacity)
            for c in 0..<2 { for i in 0..<m { planar[c * TruePeakMeter.blockCapacity + i] = x[c][done + i] } }
            planar.withUnsafeBufferPointer { meter.push($0.baseAddress!, channelStride: TruePeakMeter.blockCapacity, count: m) }
            done += m
            size = size * 3 + 1
        }
        for c in 0..<2 {
            var peak = Double(x[c].map { abs($0) }.max()!)
            for i in 0..<n {
                for h in phases {
                    var y = 0.0
                    for k in 0..<12 where i - k >= 0 { y += Double(h[k]) * Double(x[c][i - k]) }
                    peak = max(peak, abs(y))
                }
            }
            let expected = 20 * log10(peak)
            #expect(abs(meter.truePeakDb[c] - expected) < 0.0001, "channel \(c): \(meter.truePeakDb[c]) against \(expected)")
        }
    }
}
