import Foundation
@testable import MeterCore
import Testing

/// The fractional-octave bank against IEC 61260-1: base-10 midbands and edges computed here
/// from G = 10^(3/10), and each band's relative attenuation, measured with sines through the
/// whole bank (decimation included), within the class 1 mask at its breakpoints.
@Suite struct OctaveFilterBankTests {
    static let g = pow(10, 0.3)

    /// Class 1 limits of relative attenuation (dB) at the octave-normalized breakpoints
    /// Omega = G^0, G^(1/8), G^(1/4), G^(3/8), G^(1/2) (the band edge), G, G^2, G^3, G^4, G^5
    /// (and their reciprocals below the midband): the mask as IEC 61260:1995 and ANSI
    /// S1.11-2004 give it (the 2014 edition's acceptance limits add an allowance for
    /// measurement uncertainty to limits like these).
    static let mask: [(exponent: Double, lowest: Double, highest: Double)] = [
        (0, -0.3, 0.3), (1.0 / 8, -0.3, 0.4), (1.0 / 4, -0.3, 0.6), (3.0 / 8, -0.3, 1.3), (1.0 / 2, 2.0, 5.0),
        (1, 17.5, .infinity), (2, 42, .infinity), (3, 61, .infinity), (4, 70, .infinity), (5, 70, .infinity),
    ]

    /// The breakpoint frequencies of a 1/b-octave band at `mid`: Omega mapped to the band's
    /// width by 1 + (G^(1/2b) - 1) / (G^(1/2) - 1) x (Omega - 1), above and (reciprocal) below.
    static func breakpoints(mid: Double, fraction b: Double) -> [(hz: Double, lowest: Double, highest: Double)] {
        let scale = (pow(g, 1 / (2 * b)) - 1) / (pow(g, 0.5) - 1)
        var out: [(Double, Double, Double)] = []
        for m in mask {
            let omega = 1 + scale * (pow(g, m.exponent) - 1)
            out.append((mid * omega, m.lowest, m.highest))
            if m.exponent > 0 { out.append((mid / omega, m.lowest, m.highest)) }
        }
        return out
    }

    /// The power each band passes of a unit sine at `hz` (faded in over 20 ms), measured over
    /// the second half of `seconds` (the mean over the whole run minus that over the first half).
    static func bandPowers(hz: Double, rate: Int, fraction: Int, seconds: Double) -> [Double] {
        let bank = OctaveFilterBank(fraction: fraction, rate: rate)
        let n = Int(seconds * Double(rate)), half = n / 2, fade = rate / 50
        var x = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let gain = i < fade ? 0.5 - 0.5 * cos(Double.pi * Double(i) / Double(fade)) : 1
            x[i] = Float(gain * sin(2 * Double.pi * hz * Double(i) / Double(rate)))
        }
        var first: [Double] = []
        x.withUnsafeBufferPointer { p in
            bank.push(p.baseAddress!, count: half)
            first = bank.meanLevels()
            bank.push(p.baseAddress! + half, count: n - half)
        }
        let whole = bank.meanLevels()
        return zip(first, whole).map { a, w in max(0, 2 * pow(10, w / 10) - pow(10, a / 10)) }
    }

    @Test func midbandsAndEdgesAreBaseTen() {
        let thirds = OctaveBands(fraction: 3, rate: 48000)
        #expect(thirds.count == 31)
        #expect(abs(thirds.bands[0].mid - 1000 * pow(Self.g, -17.0 / 3)) < 1e-9)
        #expect(abs(thirds.bands.last!.mid - 1000 * pow(Self.g, 13.0 / 3)) < 1e-6)
        for b in thirds.bands {
            #expect(abs(b.upper / b.lower - pow(Self.g, 1.0 / 3)) < 1e-12)
            #expect(abs(b.mid * b.mid - b.lower * b.upper) < 1e-6 * b.mid * b.mid)
        }
        let k1 = thirds.bands.firstIndex { abs($0.mid - 1000) < 1e-9 }
        #expect(k1 != nil)
        // At 44.1 kHz the 20 kHz third (upper edge 22.4 kHz) is above 0.95 x Nyquist.
        #expect(OctaveBands(fraction: 3, rate: 44100).bands.last!.mid < 17000)
        let octaves = OctaveBands(fraction: 1, rate: 48000)
        #expect(octaves.bands.map { ($0.mid).rounded() } == [32, 63, 126, 251, 501, 1000, 1995, 3981, 7943, 15849])
    }

    /// One case per band tested: (fraction, nominal midband, rate, seconds of sine).
    @Test(arguments: [
        (3, 1000.0, 48000, 0.6), (3, 16000.0, 48000, 0.4), (3, 20000.0, 48000, 0.4), (3, 31.5, 48000, 2.0),
        (3, 125.0, 44100, 1.0), (3, 12500.0, 44100, 0.4), (1, 1000.0, 48000, 0.6), (1, 16000.0, 48000, 0.4),
        (1, 63.0, 96000, 1.5),
    ])
    func relativeAttenuationMeetsClassOne(fraction: Int, nominal: Double, rate: Int, seconds: Double) throws {
        let layout = OctaveBands(fraction: fraction, rate: rate)
        let band = try #require(layout.bands.firstIndex { abs($0.mid / nominal - 1) < 0.03 }, "no band at \(nominal) Hz")
        let mid = layout.bands[band].mid
        let reference = Self.bandPowers(hz: mid, rate: rate, fraction: fraction, seconds: seconds)[band]
        #expect(abs(10 * log10(reference / 0.5)) < 0.05, "the midband reads \(10 * log10(reference / 0.5)) dB")
        for point in Self.breakpoints(mid: mid, fraction: Double(fraction)) where point.hz < 0.95 * Double(rate) / 2 {
            let p = Self.bandPowers(hz: point.hz, rate: rate, fraction: fraction, seconds: seconds)[band]
            let attenuation = p > 0 ? -10 * log10(p / reference) : .infinity
            #expect(attenuation >= point.lowest && attenuation <= point.highest,
                    "1/\(fraction) octave at \(nominal) Hz, \(rate) Hz: \(attenuation) dB at \(point.hz) Hz, allowed \(point.lowest)...\(point.highest)")
        }
    }

    /// A steady sine at the midband of the 20, 25 and 31.5 Hz thirds (48 kHz, amplitude 0.5,
    /// from the first sample to the last) reads in its band, at the end, the mean square of
    /// its own samples within 0.1 dB, in a 3 s stream as in a 30 s one: the band's share of
    /// what the filters and the nine decimators above it still hold (about 0.3 s) counts.
    @Test(arguments: [(20.0, 3.0), (25.0, 3.0), (31.5, 3.0), (20.0, 30.0), (25.0, 30.0), (31.5, 30.0)])
    func lowThirdsReadTheStreamsOwnLevel(nominal: Double, seconds: Double) throws {
        let rate = 48000
        let bank = OctaveFilterBank(fraction: 3, rate: rate)
        let band = try #require(bank.layout.bands.firstIndex { abs($0.mid / nominal - 1) < 0.03 })
        let mid = bank.layout.bands[band].mid
        let n = Int(seconds * Double(rate))
        var x = [Float](repeating: 0, count: n)
        var squares = 0.0
        for i in 0..<n {
            x[i] = Float(0.5 * sin(2 * Double.pi * mid * Double(i) / Double(rate) + 0.3))
            squares += Double(x[i]) * Double(x[i])
        }
        x.withUnsafeBufferPointer { p in
            var done = 0
            while done < n {
                let m = min(4800, n - done)
                bank.push(p.baseAddress! + done, count: m)
                done += m
            }
        }
        bank.finish()
        let leq = 10 * log10(squares / Double(n))
        let level = bank.meanLevels()[band]
        #expect(abs(level - leq) <= 0.1, "\(nominal) Hz, \(seconds) s: \(level) dB in its band, Leq \(leq) dB")
        // A second finish changes nothing.
        bank.finish()
        #expect(bank.meanLevels()[band] == level)
    }
}
