import Foundation
import Testing
import TestSupport
@testable import MeterCore

/// `waveform` runs on the one pipeline: its picture is a measurement (`WaveformRequest`), the
/// bars carried by the end line and the pixels by the frames. The same samples give the same
/// picture, bit for bit, however they come in blocks, and the picture of a sine reads its
/// amplitude.
@Suite struct WaveformMeasurementTests {
    /// A sine of `amplitude` at 1 kHz on every channel (48 samples a period at 48 kHz).
    static func sine(frames: Int, channels: Int, amplitude: Double) -> [Float] {
        (0..<frames).flatMap { i in
            Array(repeating: Float(amplitude * sin(2 * Double.pi * 1000 * Double(i) / 48000)), count: channels)
        }
    }

    static func run(_ samples: [Float], channels: Int, _ picture: WaveformRequest,
                    blocks: [Int]) throws -> (frames: [MeterFrame], end: StreamSummary) {
        var s = MeterSettings(rate: 48000, channels: channels, fps: 10)
        s.waveform = picture
        let sink = RecordingSink()
        try MeterPipeline(settings: ValidSettings(s)).run(
            source: ArraySource(rate: 48000, channels: channels, samples: samples, blockSizes: blocks), sink: sink)
        return (sink.frames, sink.summary!)
    }

    static let blockings = [[16384], [1], [7, 13, 1600, 3], [4799, 4801], [65536]]

    @Test(arguments: [1, 2, 6])
    func theBarsAreTheAccumulatorsWhateverTheBlocks(channels: Int) throws {
        var rng = SeededRNG(seed: UInt64(channels))
        let frames = 48000 + 777
        let samples = (0..<(frames * channels)).map { _ in Float(0.4 * rng.signed()) }
        var direct = WaveformAccumulator(totalFrames: frames, bars: 37, channels: channels)
        samples.withUnsafeBufferPointer { direct.push($0.baseAddress!, frames: frames) }
        let expected = direct.result(rate: 48000, floorDb: -70)
        for blocks in Self.blockings {
            let run = try Self.run(samples, channels: channels, .bars(count: 37, frames: frames, floorDb: -70), blocks: blocks)
            #expect(run.end.waveform == expected, "blocks \(blocks)")
            #expect(run.end.pos == frames)
            #expect(run.frames.allSatisfy { $0.pixels.isEmpty })
        }
    }

    /// Bars of whole periods of a sine of amplitude 0.5: RMS 0.5/sqrt(2), peak 0.5.
    @Test func theBarsOfASineReadItsLevel() throws {
        let frames = 48 * 1000
        let run = try Self.run(Self.sine(frames: frames, channels: 2, amplitude: 0.5), channels: 2,
                               .bars(count: 10, frames: frames, floorDb: -60), blocks: [4096])
        let w = try #require(run.end.waveform)
        #expect(w.frames == frames && w.bars == 10 && w.floorDb == -60)
        for (rms, peak) in zip(w.rmsDb, w.peakDb) {
            #expect(abs(rms - dB(amplitude: 0.5 / 2.0.squareRoot())) < 0.01)
            #expect(abs(peak - dB(amplitude: 0.5)) < 0.01)
        }
    }

    /// The pixels the frames carry, then the end line's, are the accumulator's, in order: none
    /// repeated by a frame whose hop finished no pixel (4800 frames a hop, 10000 a pixel).
    @Test(arguments: [MinMaxAccumulator.Layout.fixed(samplesPerPixel: 10000), .fixed(samplesPerPixel: 333),
                      .bars(count: 50, frames: 30_001), .bars(count: 40_000, frames: 30_001)])
    func thePixelsAreTheAccumulatorsInOrder(layout: MinMaxAccumulator.Layout) throws {
        var rng = SeededRNG(seed: 9)
        let frames = 30_001
        let samples = (0..<(frames * 2)).map { _ in Float(0.8 * rng.signed()) }
        for split in [false, true] {
            var direct = MinMaxAccumulator(channels: 2, split: split, layout: layout)
            var expected: [Float] = []
            samples.withUnsafeBufferPointer { direct.push($0.baseAddress!, frames: frames, into: &expected) }
            direct.finish(into: &expected)
            for blocks in Self.blockings {
                let run = try Self.run(samples, channels: 2, .pixels(split: split, layout: layout), blocks: blocks)
                #expect(run.frames.flatMap(\.pixels) + run.end.pixels == expected, "blocks \(blocks), split \(split)")
            }
        }
    }

    /// Pixels of a sine, each at least a period long, span its amplitude.
    @Test func thePixelsOfASineSpanItsAmplitude() throws {
        let run = try Self.run(Self.sine(frames: 48000, channels: 1, amplitude: 0.5), channels: 1,
                               .pixels(split: false, layout: .fixed(samplesPerPixel: 480)), blocks: [16384])
        let pixels = run.frames.flatMap(\.pixels) + run.end.pixels
        #expect(pixels.count == 2 * 100)
        for k in stride(from: 0, to: pixels.count, by: 2) {
            #expect(abs(Double(pixels[k]) + 0.5) < 1e-3 && abs(Double(pixels[k + 1]) - 0.5) < 1e-3)
        }
    }

    /// A length-only run measures nothing and counts every frame.
    @Test func aLengthRunCountsTheFrames() throws {
        let run = try Self.run([Float](repeating: 0.1, count: 2 * 12345), channels: 2, .length, blocks: [1000])
        #expect(run.end.pos == 12345 && run.end.waveform == nil && run.end.pixels.isEmpty)
    }
}
