import Testing
@testable import MeterCore

@Suite struct MinMaxAccumulatorTests {
    /// Brute force: per pixel range, min and max of the mix (sum / count) or of each channel.
    static func naive(_ x: [Float], channels: Int, ranges: [Range<Int>], split: Bool) -> [Float] {
        var out: [Float] = []
        for r in ranges {
            for c in 0..<(split ? channels : 1) {
                if r.isEmpty { out += [0, 0]; continue }
                let v = r.map { f -> Float in
                    if split { return x[f * channels + c] }
                    var m: Float = 0
                    for k in 0..<channels { m += x[f * channels + k] }
                    return m / Float(channels)
                }
                out += [v.min()!, v.max()!]
            }
        }
        return out
    }

    static func run(_ x: [Float], channels: Int, split: Bool, layout: MinMaxAccumulator.Layout, chunk: Int) -> [Float] {
        var acc = MinMaxAccumulator(channels: channels, split: split, layout: layout)
        var out: [Float] = []
        let frames = x.count / channels
        x.withUnsafeBufferPointer { p in
            var i = 0
            while i < frames {
                let n = min(chunk, frames - i)
                acc.push(p.baseAddress! + i * channels, frames: n, into: &out)
                i += n
            }
        }
        acc.finish(into: &out)
        return out
    }

    @Test(arguments: [1, 2, 3])
    func everyChunkingGivesTheNaivePixels(channels: Int) {
        var rng = SystemRandomNumberGenerator()
        for frames in [0, 1, 5, 97, 1000] {
            let x = (0..<(frames * channels)).map { _ in Float.random(in: -1...1, using: &rng) }
            for split in [false, true] {
                for spp in [1, 3, 64, 2000] {
                    let ranges = stride(from: 0, to: frames, by: spp).map { $0..<min(frames, $0 + spp) }
                    let want = Self.naive(x, channels: channels, ranges: ranges, split: split)
                    for chunk in [1, 7, 4096] {
                        #expect(Self.run(x, channels: channels, split: split, layout: .fixed(samplesPerPixel: spp), chunk: chunk) == want)
                    }
                }
                for n in [1, 4, frames + 3] where n >= 1 {
                    let ranges = (0..<n).map { ($0 * frames / n)..<(($0 + 1) * frames / n) }
                    let want = Self.naive(x, channels: channels, ranges: ranges, split: split)
                    for chunk in [1, 7, 4096] {
                        let got = Self.run(x, channels: channels, split: split, layout: .bars(count: n, frames: frames), chunk: chunk)
                        #expect(got == want, "frames \(frames) bars \(n) chunk \(chunk)")
                    }
                }
            }
        }
    }

    @Test func headerFigures() {
        #expect(MinMaxAccumulator.Layout.fixed(samplesPerPixel: 256).pixelCount(frames: 513) == 3)
        #expect(MinMaxAccumulator.Layout.fixed(samplesPerPixel: 256).pixelCount(frames: 0) == 0)
        #expect(MinMaxAccumulator(channels: 2, split: true, layout: .fixed(samplesPerPixel: 256)).outputChannels == 2)
        let bars = MinMaxAccumulator(channels: 2, split: false, layout: .bars(count: 4, frames: 10))
        #expect(bars.layout.pixelCount(frames: 10) == 4 && bars.layout.samplesPerPixel == 3 && bars.outputChannels == 1)
        #expect(MinMaxAccumulator.Layout.bars(count: 10, frames: 3).samplesPerPixel == 1)
    }
}
