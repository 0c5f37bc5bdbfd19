@testable import MeterCore
import Testing
import TestSupport

/// The levels of every channel come from one pass over the block (`RollingSums` with a
/// `SquareKernel`): each channel reads bit for bit what it reads alone, 16-bit input what the
/// same samples read as Floats, and the peaks are exact for any Float sample.
@Suite struct LevelSumsTests {
    static func run(_ samples: [Float], channels: Int, blockSizes: [Int] = [1000, 37, 4099]) throws -> CollectingSink {
        let pipeline = try MeterPipeline(settings: ValidSettings(MeterSettings(rate: 48000, channels: channels)))
        let sink = CollectingSink()
        try pipeline.run(source: ArraySource(rate: 48000, channels: channels, samples: samples, blockSizes: blockSizes), sink: sink)
        return sink
    }

    /// Noise whose loudness changes every 700 samples, silent stretches included; each channel its own.
    static func signal(frames n: Int, channels: Int) -> [Float] {
        var rng = SeededRNG(seed: UInt64(channels))
        return (0..<(n * channels)).map { i in
            let gain = [0.9, 0.0, 0.01, 0.3][(i / channels / 700 + i % channels) % 4]
            return Float(gain * rng.signed())
        }
    }

    @Test(arguments: [2, 3, 6])
    func eachChannelReadsWhatItReadsAlone(channels: Int) throws {
        let n = 30_011
        let x = Self.signal(frames: n, channels: channels)
        let together = try Self.run(x, channels: channels)
        for c in 0..<channels {
            let alone = try Self.run((0..<n).map { x[$0 * channels + c] }, channels: 1, blockSizes: [333])
            #expect(together.frames.count == alone.frames.count)
            for (a, b) in zip(together.frames, alone.frames) {
                #expect(a.rmsDb[c] == b.rmsDb[0] && a.peakDb[c] == b.peakDb[0], "channel \(c) at \(a.pos)")
            }
            #expect(together.summary?.rmsDb[c] == alone.summary?.rmsDb[0])
            #expect(together.summary?.peakDb[c] == alone.summary?.peakDb[0])
        }
    }

    @Test(arguments: [(1, 0), (2, 0), (6, 0), (2, 64)])
    func sixteenBitBlocksReadAsTheirFloats(channels: Int, bands: Int) throws {
        let n = 20_000
        var rng = SeededRNG(seed: 7)
        let shorts = (0..<(n * channels)).map { _ in Int16(clamping: Int(rng.signed() * 40_000)) }
        let floats = shorts.map(SampleConversion.float)
        var settings = MeterSettings(rate: 48000, channels: channels)
        settings.bands = bands
        let valid = try ValidSettings(settings)
        func frames(_ feed: (MeterPipeline, (MeterFrame) -> Void) -> Void) -> [MeterFrame] {
            let pipeline = MeterPipeline(settings: valid, transform: bands > 0 ? ReferenceFFT(size: 2048) : nil)
            var out: [MeterFrame] = []
            feed(pipeline) { out.append($0) }
            pipeline.finish { out.append($0) }
            return out
        }
        let fromFloats = frames { p, emit in
            floats.withUnsafeBufferPointer { p.process($0.baseAddress!, frames: n, emit: emit) }
        }
        let fromShorts = frames { p, emit in
            shorts.withUnsafeBufferPointer { b in
                var done = 0
                for size in [5000, 1, 7777, 2000] + [Int](repeating: 4000, count: 10) where done < n {
                    let k = min(size, n - done)
                    p.process(.int16(b.baseAddress! + done * channels), frames: k, emit: emit)
                    done += k
                }
            }
        }
        #expect(fromShorts.count == fromFloats.count)
        for (a, b) in zip(fromShorts, fromFloats) {
            #expect(a.rmsDb == b.rmsDb && a.peakDb == b.peakDb && a.correlation == b.correlation && a.bandsDb == b.bandsDb)
        }
        #expect(fromShorts.contains { $0.peakDb.contains(0) }, "rails reached: 40000 clamps to them")
    }

    @Test func peaksAreExactForAnyFloat() throws {
        // Squares of these leave Float's normal range (above 2^64, below 2^-63), and a NaN
        // sample is passed over.
        let odd: [Float] = [1e30, -3e25, 1e-30, -2e-35, .nan, 0.5]
        var x = [Float](repeating: 0, count: 2 * 1600 * odd.count)
        for (k, v) in odd.enumerated() {
            x[2 * (1600 * k + 803)] = v
            x[2 * (1600 * k + 1211) + 1] = v
        }
        let frames = try Self.run(x, channels: 2, blockSizes: [1600]).frames
        for (k, v) in odd.enumerated() {
            let expected = v.isNaN ? Decibels.floor : Decibels.fromAmplitude(Double(abs(v)))
            #expect(frames[k].peakDb == [expected, expected], "\(v)")
        }
    }
}
