import Foundation
import Testing
import TestSupport
@testable import MeterCore

@Suite struct WaveformAccumulatorTests {
    /// The naive summary: boundaries by plain integer arithmetic, per-bar sums by brute force.
    static func naive(_ x: [Float], channels: Int, bars n: Int) -> (rms: [Double], peak: [Double], bounds: [Int]) {
        let f = x.count / channels
        let bounds = (0...n).map { $0 * f / n }
        var rms: [Double] = [], peak: [Double] = []
        for i in 0..<n {
            let (a, b) = (bounds[i], bounds[i + 1])
            if a == b {
                rms.append(-160)
                peak.append(-160)
                continue
            }
            var ss = 0.0, pk = 0.0
            for j in a..<b {
                var m: Float = 0
                for c in 0..<channels { m += x[j * channels + c] }
                m *= 1 / Float(channels)
                ss += Double(m) * Double(m)
                pk = max(pk, Double(abs(m)))
            }
            rms.append(db(power: ss / Double(b - a)))
            peak.append(db(amplitude: pk))
        }
        return (rms, peak, bounds)
    }

    static func run(_ x: [Float], channels: Int, bars: Int, pushSizes: [Int]) -> Waveform {
        let frames = x.count / channels
        var acc = WaveformAccumulator(totalFrames: frames, bars: bars, channels: channels)
        var done = 0, call = 0
        x.withUnsafeBufferPointer { buf in
            while done < frames {
                let k = min(pushSizes[call % pushSizes.count], frames - done)
                call += 1
                acc.push(buf.baseAddress! + done * channels, frames: k)
                done += k
            }
        }
        #expect(acc.framesSeen == frames)
        #expect(acc.overflow == 0)
        return acc.result(rate: 8000, floorDb: -60)
    }

    @Test func boundariesMatchFloorFormula() {
        for frames in [0, 1, 2, 3, 5, 7, 10, 99, 100, 101, 1000, 4099, 48000, 123_457] {
            for bars in [1, 2, 3, 4, 7, 10, 48, 64, 99, 100, 101, 1000, 5000] {
                for i in 0...bars {
                    #expect(WaveformAccumulator.boundary(i, bars: bars, frames: frames) == i * frames / bars)
                }
            }
        }
        // No overflow where i*F exceeds Int.max.
        let big = Int.max / 3
        #expect(WaveformAccumulator.boundary(1_000_000, bars: 1_000_000, frames: big) == big)
        #expect(WaveformAccumulator.boundary(500_000, bars: 1_000_000, frames: big) == big / 2)
        #expect(WaveformAccumulator.boundary(0, bars: 1_000_000, frames: big) == 0)
        // floor(1 * (2^62) / 3) computed exactly.
        #expect(WaveformAccumulator.boundary(1, bars: 3, frames: 1 << 62) == (1 << 62) / 3)
        #expect(WaveformAccumulator.boundary(999_999, bars: 1_000_000, frames: 1 << 62)
                == 4_611_681_406_741_369_476)  // Python: (1 << 62) * 999999 // 1000000
    }

    @Test func barsMatchNaiveForManyShapes() {
        var rng = SeededRNG(seed: 11)
        let pushPatterns: [[Int]] = [[1], [3, 1, 7], [64], [1000], [16384], [5, 250, 2, 33]]
        for channels in [1, 2, 3, 6] {
            for frames in [0, 1, 2, 5, 17, 100, 999, 2000] {
                // Loudness varies across the file so every bar differs.
                let x = (0..<(frames * channels)).map { i -> Float in
                    let t = Double(i / channels) / Double(max(1, frames))
                    return Float(rng.signed() * (0.05 + 0.9 * t) * (i % channels == 0 ? 1 : 0.5))
                }
                for bars in [1, 2, 3, 7, 16, 64, 99, 100, 101, 3000] {
                    let expected = Self.naive(x, channels: channels, bars: bars)
                    for pattern in pushPatterns {
                        let w = Self.run(x, channels: channels, bars: bars, pushSizes: pattern)
                        #expect(w.bars == bars)
                        #expect(w.frames == frames)
                        #expect(w.channels == channels)
                        var mismatches: [String] = []
                        for i in 0..<bars {
                            let empty = expected.bounds[i] == expected.bounds[i + 1]
                            if abs(w.rmsDb[i] - expected.rms[i]) >= 1e-4 || abs(w.peakDb[i] - expected.peak[i]) >= 1e-5
                                || (empty && (w.rmsDb[i] != -160 || w.peakDb[i] != -160)) {
                                mismatches.append("bar \(i): rms \(w.rmsDb[i]) vs \(expected.rms[i]), peak \(w.peakDb[i]) vs \(expected.peak[i])")
                            }
                        }
                        #expect(mismatches.isEmpty, "ch \(channels) F \(frames) N \(bars) push \(pattern): \(mismatches.prefix(3))")
                    }
                }
            }
        }
    }

    @Test func zeroFramesAllBarsSilent() {
        let w = Self.run([], channels: 2, bars: 5, pushSizes: [1])
        #expect(w.rmsDb == Array(repeating: -160, count: 5))
        #expect(w.peakDb == Array(repeating: -160, count: 5))
        #expect(w.levels == Array(repeating: 0, count: 5))
        #expect(w.duration == 0)
    }

    @Test func moreBarsThanFramesPutsEachFrameInExactlyOneBar() {
        // F = 3 frames of distinct amplitude into N = 7 bars: bars 2, 4 and 6 hold frames 0, 1, 2.
        let x: [Float] = [0.5, 0.25, 0.125]
        let w = Self.run(x, channels: 1, bars: 7, pushSizes: [1])
        // floor(i*3/7) = 0,0,0,1,1,2,2,3 -> bar 2 = [0,1), bar 4 = [1,2), bar 6 = [2,3)
        let expected: [Double] = [-160, -160, 20 * log10(0.5), -160, 20 * log10(0.25), -160, 20 * log10(0.125)]
        for i in 0..<7 {
            #expect(abs(w.rmsDb[i] - expected[i]) < 1e-9)
            #expect(abs(w.peakDb[i] - expected[i]) < 1e-9)
        }
    }

    @Test func oneBarIsTheWholeFile() {
        var rng = SeededRNG(seed: 3)
        let x = (0..<5000).map { _ in Float(rng.signed() * 0.5) }
        let w = Self.run(x, channels: 1, bars: 1, pushSizes: [777])
        let ss = x.reduce(0.0) { $0 + Double($1) * Double($1) }
        #expect(abs(w.rmsDb[0] - 10 * log10(ss / 5000)) < 1e-4)
        #expect(abs(w.peakDb[0] - 20 * log10(Double(x.map { abs($0) }.max()!))) < 1e-9)
    }

    @Test func monoMixOfOppositeChannelsIsSilent() {
        let x: [Float] = (0..<100).flatMap { i -> [Float] in let v = Float(i % 7) / 10; return [v, -v] }
        let w = Self.run(x, channels: 2, bars: 4, pushSizes: [9])
        #expect(w.rmsDb == [-160, -160, -160, -160])
    }

    @Test func levelsClampToFloor() {
        let w = Waveform(rate: 8000, channels: 1, frames: 4, floorDb: -60,
                         rmsDb: [-160, -60, -30, 0, -75, 3, -0.0, -59.99], peakDb: Array(repeating: 0, count: 8))
        let expected: [Double] = [0, 0, 0.5, 1, 0, 1, 1, (60 - 59.99) / 60]
        for (a, b) in zip(w.levels, expected) { #expect(abs(a - b) < 1e-12) }
        #expect(w.duration == 0.0005)
    }

    @Test func framesBeyondDeclaredCountAreCountedAsOverflow() {
        var acc = WaveformAccumulator(totalFrames: 10, bars: 3, channels: 1)
        let x = [Float](repeating: 0.5, count: 25)
        x.withUnsafeBufferPointer { acc.push($0.baseAddress!, frames: 25) }
        #expect(acc.framesSeen == 10)
        #expect(acc.overflow == 15)
    }

    @Test func jsonRendering() throws {
        let w = Waveform(rate: 48000, channels: 2, frames: 96000, floorDb: -60,
                         rmsDb: [-160, -30.004, -6.0206], peakDb: [-160, -20, -0.0001])
        let text = WaveformRenderer.json(w)
        #expect(text.hasSuffix("}\n"))
        #expect(text == "{\"version\":1,\"rate\":48000,\"channels\":2,\"frames\":96000,\"duration\":2.0,\"bars\":3,\"floor_db\":-60.0,\"rms_db\":[-160.0,-30.0,-6.02],\"peak_db\":[-160.0,-20.0,0.0],\"levels\":[0.0,0.4999,0.8997]}\n")
        let obj = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(obj?["bars"] as? Int == 3)
    }
}
