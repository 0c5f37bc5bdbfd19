import Foundation
import Testing
import TestSupport
@testable import MeterCore

/// One pipeline: the same samples give the same frames, bit for bit, however the input is
/// split into calls (live capture pushes 10 ms chunks, `analyze` large decoded blocks).
@Suite struct ChunkingIndependenceTests {
    static func noise(frames: Int, channels: Int, seed: UInt64) -> [Float] {
        var rng = SeededRNG(seed: seed)
        return (0..<(frames * channels)).map { i -> Float in
            let ramp: Double = 0.2 * Double((i / channels) % 97) / 97
            return Float(0.3 * rng.signed() + ramp) // noise on a ramp
        }
    }

    static func run(_ samples: [Float], channels: Int, blocks: [Int], bands: Int,
                    spl: SoundLevelSettings? = nil, octaves: Int = 0) throws -> (frames: [MeterFrame], end: StreamSummary) {
        var s = MeterSettings(rate: 48000, channels: channels, fps: 30, windowMs: 50, bands: bands, fftSize: 1024, spl: spl)
        s.octaves = octaves
        let pipeline = try MeterPipeline(settings: ValidSettings(s), transform: bands > 0 ? ReferenceFFT(size: 1024) : nil)
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

    /// The sound level meter's filters and detectors, and the octave bank's filters and
    /// decimators, carry their state across calls.
    @Test(arguments: [TimeWeighting.fast, .impulse])
    func soundLevelsDoNotDependOnBlockSizes(time: TimeWeighting) throws {
        let samples = Self.noise(frames: 48000 + 777, channels: 2, seed: 5)
        let spl = SoundLevelSettings(weighting: .a, timeWeighting: time)
        let reference = try Self.run(samples, channels: 2, blocks: [16384], bands: 0, spl: spl, octaves: 3)
        #expect(reference.frames.allSatisfy { $0.spl?.splDb.count == 2 && $0.bandsDb?.count == 31 } && reference.end.spl != nil)
        for blocks in [[480], [7, 13, 1600, 3], [5000]] {
            let other = try Self.run(samples, channels: 2, blocks: blocks, bands: 0, spl: spl, octaves: 3)
            #expect(other.frames == reference.frames, "blocks \(blocks)")
            #expect(other.end == reference.end, "blocks \(blocks)")
        }
    }

    @Test func rollingSumIsBitIdenticalAcrossSplits() {
        let x = Self.noise(frames: 5000, channels: 1, seed: 9)
        func sums(_ splits: [Int]) -> [Double] {
            let r = RollingSquareSum(window: 1000, hop: 1000)
            var out: [Double] = []
            var i = 0, k = 0
            x.withUnsafeBufferPointer { p in
                while i < x.count {
                    let n = min(splits[k % splits.count], x.count - i)
                    _ = r.push(p.baseAddress! + i, count: n)
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

    /// Drives a pipeline over `samples` with the positions in `gaps` skipped (never arrived),
    /// in runs of `blocks` (cycled), cut at the gaps' edges.
    static func runWithGaps(_ samples: [Float], channels: Int, settings: MeterSettings,
                            gaps: [Range<Int>], blocks: [Int]) throws -> (frames: [MeterFrame], end: StreamSummary) {
        let pipeline = try MeterPipeline(settings: ValidSettings(settings))
        var frames: [MeterFrame] = []
        let total = samples.count / channels
        var p = 0, call = 0
        samples.withUnsafeBufferPointer { buf in
            while p < total {
                if let g = gaps.first(where: { $0.contains(p) }) {
                    pipeline.skip(frames: g.upperBound - p) { frames.append($0) }
                    p = g.upperBound
                    continue
                }
                let nextGap = gaps.map(\.lowerBound).filter { $0 > p }.min() ?? total
                let n = min(blocks[call % blocks.count], nextGap - p, total - p)
                call += 1
                pipeline.process(buf.baseAddress! + p * channels, frames: n) { frames.append($0) }
                p += n
            }
        }
        pipeline.finish { frames.append($0) }
        return (frames, pipeline.summary())
    }

    /// Windows that are not multiples of the block (256) or of the hop, hops longer and shorter
    /// than the window, gaps: the same frames for every chunking, and on the hop grid the
    /// level of the samples that arrived in each window, computed plainly here (their squares
    /// summed in Double, divided by their count), within the rolling sum's tolerance.
    @Test(arguments: [(30.0, 50.0), (30.0, 23.3), (100.0, 77.7), (7.0, 1000.0), (1000.0, 0.1)])
    func framesAcrossGapsMatchThePlainLevels(fps: Double, windowMs: Double) throws {
        let channels = 2
        let settings = MeterSettings(rate: 48000, channels: channels, fps: fps, windowMs: windowMs)
        let total = 48000 * 2 + 333
        let samples = Self.noise(frames: total, channels: channels, seed: 77)
        let gaps = [5000..<5001, 20_000..<23_777, 40_000..<90_000, 90_500..<90_600]
        let reference = try Self.runWithGaps(samples, channels: channels, settings: settings, gaps: gaps, blocks: [65536])
        for blocks in [[480], [7, 13, 1600, 3], [1599, 1601], [1]] where blocks != [1] || fps >= 100 {
            let other = try Self.runWithGaps(samples, channels: channels, settings: settings, gaps: gaps, blocks: blocks)
            #expect(other.frames == reference.frames, "blocks \(blocks)")
            #expect(other.end == reference.end, "blocks \(blocks)")
        }
        // The plain level, per channel, at each grid frame: 10 log10(1 + 5e-6) dB is 2.2e-5 dB.
        let hop = settings.hop, window = settings.window
        let allowedDb = 10 * log10(1 + RollingSquareSumTests.tolerance)
        var checked = 0
        for c in 0..<channels {
            for f in reference.frames where f.pos % hop == 0 {
                let arrived = (max(0, f.pos - window)..<f.pos).filter { i in !gaps.contains { $0.contains(i) } }
                let squares = arrived.reduce(0.0) { s, i in s + Double(samples[i * channels + c]) * Double(samples[i * channels + c]) }
                if arrived.isEmpty {
                    #expect(f.rmsDb[c] == Decibels.floor, "pos \(f.pos) channel \(c)")
                } else {
                    let expected = db(power: squares / Double(arrived.count))
                    #expect(abs(f.rmsDb[c] - expected) <= allowedDb, "pos \(f.pos) channel \(c): \(f.rmsDb[c]) vs \(expected)")
                }
                checked += 1
            }
        }
        #expect(checked > 0)
    }
}
