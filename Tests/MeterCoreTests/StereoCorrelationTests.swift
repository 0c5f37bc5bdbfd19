import Foundation
@testable import MeterCore
import Testing
import TestSupport

/// correlation and balance_db of the first two channels over the window: in phase +1,
/// inverted -1, independent noise about 0; the balance is right minus left.
@Suite struct StereoCorrelationTests {
    static func frames(_ left: [Float], _ right: [Float], channels: Int = 2) throws -> [MeterFrame] {
        var x = [Float](repeating: 0, count: left.count * channels)
        for i in 0..<left.count {
            x[i * channels] = left[i]
            x[i * channels + 1] = right[i]
            for c in 2..<max(2, channels) { x[i * channels + c] = 0.1 }
        }
        let pipeline = try MeterPipeline(settings: ValidSettings(MeterSettings(rate: 48000, channels: channels)))
        let sink = CollectingSink()
        try pipeline.run(source: ArraySource(rate: 48000, channels: channels, samples: x, blockSizes: [1000, 37]), sink: sink)
        return sink.frames
    }

    static func noise(_ n: Int, seed: UInt64) -> [Float] {
        var rng = SeededRNG(seed: seed)
        return (0..<n).map { _ in Float(0.3 * rng.signed()) }
    }

    @Test func inPhaseInvertedAndIndependent() throws {
        let n = 48000
        let l = (0..<n).map { Float(0.4 * sin(2 * Double.pi * 440 * Double($0) / 48000)) }
        let inPhase = try Self.frames(l, l.map { $0 * 0.5 })
        #expect(inPhase.allSatisfy { abs($0.correlation! - 1) < 1e-6 })
        #expect(inPhase.dropFirst(2).allSatisfy { abs($0.balanceDb! - 20 * log10(0.5)) < 0.01 })
        let inverted = try Self.frames(l, l.map { -$0 })
        #expect(inverted.allSatisfy { abs($0.correlation! + 1) < 1e-6 && abs($0.balanceDb!) < 0.01 })
        let independent = try Self.frames(Self.noise(n, seed: 1), Self.noise(n, seed: 2))
        let values = independent.map { $0.correlation! }
        // 2400 samples a window: a correlation of independent noise spreads about 1/sqrt(2400) = 0.02.
        #expect(values.allSatisfy { abs($0) < 0.1 }, "\(values.map { abs($0) }.max()!)")
        #expect(abs(values.reduce(0, +) / Double(values.count)) < 0.02)
        // Silence on one side: 0, not NaN.
        let oneSided = try Self.frames(l, [Float](repeating: 0, count: n), channels: 3)
        #expect(oneSided.allSatisfy { $0.correlation == 0 && $0.balanceDb! < -100 })
        // Mono: no stereo fields.
        let pipeline = try MeterPipeline(settings: ValidSettings(MeterSettings(rate: 48000, channels: 1)))
        let sink = CollectingSink()
        try pipeline.run(source: ArraySource(rate: 48000, channels: 1, samples: l), sink: sink)
        #expect(sink.frames.allSatisfy { $0.correlation == nil && $0.balanceDb == nil })
    }
}
