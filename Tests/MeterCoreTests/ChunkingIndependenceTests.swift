import Testing
@testable import MeterCore

/// One pipeline: the same samples give the same frames, bit for bit, however the input is
/// split into calls (live capture pushes 10 ms chunks, `analyze` large decoded blocks).
@Suite struct ChunkingIndependenceTests {
    static func noise(frames: Int, channels: Int, seed: UInt64) -> [Float] {
        var rng = SeededRNG(seed: seed)
        return (0..<(frames * channels)).map { i in
            Float(0.3 * rng.signed() + 0.2 * Double((i / channels) % 97) / 97) // noise on a ramp
        }
    }

    static func run(_ samples: [Float], channels: Int, blocks: [Int], bands: Int) throws -> (frames: [MeterFrame], end: StreamSummary) {
        let s = MeterSettings(rate: 48000, channels: channels, fps: 30, windowMs: 50, bands: bands, fftSize: 1024)
        let pipeline = try MeterPipeline(settings: s, transform: bands > 0 ? ReferenceFFT(size: 1024) : nil)
        let sink = CollectingSink()
        try pipeline.run(source: ArraySource(rate: 48000, channels: channels, samples: samples, blockSizes: blocks), sink: sink)
        return (sink.frames, sink.summary!)
    }

    @Test(arguments: [1, 2, 6])
    func framesDoNotDependOnBlockSizes(channels: Int) throws {
        let samples = Self.noise(frames: 48000 + 777, channels: channels, seed: UInt64(channels))
        let reference = try Self.run(samples, channels: channels, blocks: [16384], bands: 8)
        for blocks in [[480], [1], [7, 13, 1600, 3], [1599, 1601], [65536]] {
            let other = try Self.run(samples, channels: channels, blocks: blocks, bands: 8)
            #expect(other.frames == reference.frames, "blocks \(blocks)")
            #expect(other.end == reference.end, "blocks \(blocks)")
        }
    }

    @Test func rollingSumIsBitIdenticalAcrossSplits() {
        let x = Self.noise(frames: 5000, channels: 1, seed: 9)
        func sums(_ splits: [Int]) -> [Double] {
            let r = RollingSquareSum(window: 1000)
            var out: [Double] = []
            var i = 0, k = 0
            x.withUnsafeBufferPointer { p in
                while i < x.count {
                    let n = min(splits[k % splits.count], x.count - i)
                    _ = r.push(p.baseAddress! + i, stride: 1, count: n)
                    i += n
                    k += 1
                    out.append(r.windowSum())
                    out.append(r.totalSquares)
                }
            }
            return out
        }
        // Compare at common positions: every 1000 samples, using splits that all hit them.
        let a = sums([1000]), b = sums([8, 992]), c = sums([1, 999])
        let pick = { (v: [Double], per: Int) in stride(from: per * 2 - 2, to: v.count, by: per * 2).map { [v[$0], v[$0 + 1]] } }
        #expect(pick(a, 1) == pick(b, 2))
        #expect(pick(a, 1) == pick(c, 2))
    }
}
