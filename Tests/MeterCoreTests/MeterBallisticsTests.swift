import Foundation
@testable import MeterCore
import Testing

/// The meters' ballistics against their standards' numbers: the VU's step response (99 % in
/// 300 ms, 1 to 1.5 % overshoot, IEC 60268-17), the PPMs' integration times and fall rates
/// (IEC 60268-10), the K-system's reference levels.
@Suite struct MeterBallisticsTests {
    static func sine(amplitude: Double, hz: Double = 1000, seconds: Double, rate: Int = 48000) -> [Float] {
        (0..<Int(seconds * Double(rate))).map { Float(amplitude * sin(2 * Double.pi * hz * Double($0) / Double(rate))) }
    }

    /// Pushes `x` in steps of `step` samples; the reading (channel 0) after each.
    static func readings(_ kind: MeterKind, _ x: [Float], step: Int = 48, rate: Int = 48000) -> [Double] {
        let meter = MeterBallistics(kind: kind, rate: rate, channels: 1)
        var out: [Double] = []
        var r = [Decibels.floor]
        x.withUnsafeBufferPointer { p in
            for k in stride(from: 0, to: x.count, by: step) {
                meter.push(p.baseAddress! + k, channelStride: 0, count: min(step, x.count - k))
                meter.readings(rmsDb: [0], into: &r)
                out.append(r[0])
            }
        }
        return out
    }

    @Test func vuStepResponse() {
        // The alignment sine (peak -18 dBFS) from silence, read every millisecond.
        let deflection = Self.readings(.vu, Self.sine(amplitude: pow(10, -18.0 / 20), seconds: 3)).map { pow(10, $0 / 20) }
        let t99 = Double(deflection.firstIndex { $0 >= 0.99 } ?? -1) + 1  // ms
        #expect(t99 >= 270 && t99 <= 330, "99 % at \(t99) ms")
        let overshoot = (deflection.max()! - 1) * 100
        #expect(overshoot >= 1.0 && overshoot <= 1.5, "overshoot \(overshoot) %")
        #expect(abs(20 * log10(deflection.last!)) < 0.02, "steady \(20 * log10(deflection.last!)) VU")
        #expect(abs(MeterBallistics.vuDamping - 0.8126) < 0.001)
    }

    @Test(arguments: [(MeterKind.ppm1, 0.005, 20.0, 1.5), (.ppm2, 0.010, 24.0, 2.8)])
    func ppmIntegrationAndFall(kind: MeterKind, integration: Double, fallDb: Double, fallSeconds: Double) {
        let a = 0.5
        for hz in [100.0, 1000, 5000] {
            let steady = Self.readings(kind, Self.sine(amplitude: a, hz: hz, seconds: 0.5)).last!
            #expect(abs(steady - 20 * log10(a)) < 0.1, "steady at \(hz) Hz: \(steady)")
        }
        let steady = Self.readings(kind, Self.sine(amplitude: a, hz: 5000, seconds: 0.5)).last!
        // A 5 kHz burst of the integration time reads 2 dB low (tolerance +-0.5 dB).
        let burst = Self.sine(amplitude: a, hz: 5000, seconds: integration) + [Float](repeating: 0, count: 4800)
        let peak = Self.readings(kind, burst, step: 1).max()!
        #expect(abs(peak - steady + 2) <= 0.5, "a \(integration * 1000) ms burst reads \(peak - steady) dB")
        // After the tone, the reading falls linearly in dB.
        let tail = Self.readings(kind, Self.sine(amplitude: a, seconds: 0.5) + [Float](repeating: 0, count: Int(fallSeconds * 48000)))
        #expect(abs((steady - tail.last!) - fallDb) < 0.3, "fell \(steady - tail.last!) dB in \(fallSeconds) s")
    }

    @Test(arguments: [(MeterKind.k20, -20.0), (.k14, -14.0), (.k12, -12.0)])
    func kSystemReadsFromItsReference(kind: MeterKind, reference: Double) {
        // A sine at -20 dBFS RMS (this tool's convention: a full-scale sine reads -3.01).
        let x = Self.sine(amplitude: pow(10, -20.0 / 20) * sqrt(2), seconds: 6)
        let reading = Self.readings(kind, x).last!
        #expect(abs(reading - (-20 - reference)) < 0.05, "\(kind.rawValue): \(reading)")
    }
}
