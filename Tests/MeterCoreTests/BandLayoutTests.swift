import Testing
@testable import MeterCore

@Suite struct BandLayoutTests {
    struct Case: Sendable, CustomStringConvertible {
        var bands: Int, fftSize: Int, rate: Int, fmin: Double, fmax: Double
        var description: String { "bands \(bands) fft \(fftSize) rate \(rate) \(fmin)-\(fmax) Hz" }
    }

    static var cases: [Case] {
        var out: [Case] = []
        for rate in [8000, 22050, 44100, 48000, 96000] {
            for fft in [64, 256, 1024, 2048, 8192] {
                let nyq = Double(rate) / 2
                for (fmin, fmax) in [(50.0, min(16000, 0.95 * nyq)), (20.0, nyq), (1.0, 100.0),
                                     (1000.0, 1100.0), (Double(rate) / Double(fft), 2 * Double(rate) / Double(fft))] {
                    for bands in [1, 2, 3, 8, 16, 32, 64, 200] {
                        out.append(Case(bands: bands, fftSize: fft, rate: rate, fmin: fmin, fmax: fmax))
                    }
                }
            }
        }
        return out
    }

    /// Bins k with fmin <= k*binHz < fmax, computed by brute force.
    static func binsInRange(_ c: Case) -> [Int] {
        let binHz = Double(c.rate) / Double(c.fftSize)
        return (0...(c.fftSize / 2)).filter { Double($0) * binHz >= c.fmin && Double($0) * binHz < c.fmax }
    }

    @Test func layoutInvariantsOrErrorWhenTooManyBands() {
        var built = 0, refused = 0
        for c in Self.cases {
            let available = Self.binsInRange(c)
            do {
                let layout = try BandLayout(bands: c.bands, fftSize: c.fftSize, rate: c.rate, fmin: c.fmin, fmax: c.fmax)
                built += 1
                #expect(available.count >= c.bands, "\(c): built with only \(available.count) bins")
                #expect(layout.count == c.bands)
                #expect(layout.edgeBins.count == c.bands + 1)
                #expect(layout.binHz == Double(c.rate) / Double(c.fftSize))
                // Every band non-empty, edges strictly increasing, bands contiguous.
                for b in 0..<layout.count {
                    #expect(layout.bins(of: b).count >= 1, "\(c) band \(b) empty")
                    #expect(layout.edgeBins[b] < layout.edgeBins[b + 1])
                    if b > 0 { #expect(layout.bins(of: b).lowerBound == layout.bins(of: b - 1).upperBound) }
                }
                // Exactly the bins within [fmin, fmax) are covered.
                if let first = available.first, let last = available.last {
                    #expect(layout.edgeBins.first == first, "\(c)")
                    #expect(layout.edgeBins.last == last + 1, "\(c)")
                }
                // Hz edges: the bins' frequencies, increasing, within [fmin, fmax] (hi is exclusive).
                let hz = layout.edgesHz
                #expect(hz.count == c.bands)
                for (i, (lo, hi)) in hz.enumerated() {
                    #expect(lo < hi)
                    #expect(lo >= c.fmin - 1e-9)
                    #expect(hi - layout.binHz < c.fmax)
                    #expect(lo == Double(layout.edgeBins[i]) * layout.binHz)
                    #expect(lo <= Double(c.rate) / 2)
                    if i > 0 { #expect(lo == hz[i - 1].1) }
                }
            } catch {
                refused += 1
                #expect(available.count < c.bands, "\(c): refused though \(available.count) bins lie in range")
                #expect(error == SettingError(.bands, value: Double(c.bands),
                                              allowed: .bandsWithinBins(bins: available.count, fftSize: c.fftSize)))
            }
        }
        #expect(built > 100 && refused > 10)
    }

    @Test func exactlyAsManyBandsAsBinsGivesOneBinEach() throws {
        // 48000/1024 = 46.875 Hz bins; [100, 1000) holds bins 3...21 (19 bins).
        let layout = try BandLayout(bands: 19, fftSize: 1024, rate: 48000, fmin: 100, fmax: 1000)
        #expect(layout.edgeBins == Array(3...22))
        #expect(throws: SettingError(.bands, value: 20, allowed: .bandsWithinBins(bins: 19, fftSize: 1024))) {
            try BandLayout(bands: 20, fftSize: 1024, rate: 48000, fmin: 100, fmax: 1000)
        }
    }

    @Test func logSpacingForWideBands() throws {
        // With plenty of bins the edges follow fmin * (fmax/fmin)^(i/bands) to within a bin.
        let layout = try BandLayout(bands: 10, fftSize: 65536, rate: 48000, fmin: 50, fmax: 16000)
        for (i, (lo, _)) in layout.edgesHz.enumerated() {
            let ideal = 50 * pow(16000.0 / 50, Double(i) / 10)
            #expect(lo >= ideal - 1e-9 && lo < ideal + layout.binHz, "edge \(i): \(lo) vs \(ideal)")
        }
    }

    @Test func settingsValidationUsesLayout() {
        var s = MeterSettings(rate: 8000, channels: 1, bands: 500, fftSize: 256)
        #expect(throws: SettingError.self) { _ = try ValidSettings(s) }
        s.bands = 16
        #expect(throws: Never.self) { _ = try ValidSettings(s) }
        // The default fmax: min(16000, 0.95 x Nyquist).
        #expect(s.effectiveFmax == 3800)
        #expect(MeterSettings(rate: 48000).effectiveFmax == 16000)
    }
}

import Foundation
