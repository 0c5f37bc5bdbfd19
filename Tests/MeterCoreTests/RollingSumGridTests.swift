import Testing
import TestSupport
@testable import MeterCore

/// The rolling sums that keep no samples, read on the hop grid, against a plain computation:
/// the squares of the samples that arrived in each window, summed in Double. Within the
/// tolerance the lanes allow (`RollingSquareSumTests.tolerance`), exactly zero where the
/// window holds nothing but silence and skipped positions, and the same bits for any split
/// of the input; across skipped positions, for windows that are not multiples of the block or
/// the hop, hops longer and shorter than the window.
@Suite struct RollingSumGridTests {
    /// (window, hop, blockSize)
    static let shapes: [(Int, Int, Int)] = [
        (2400, 1600, 256), (1000, 1600, 256), (2401, 37, 256), (100, 7, 256), (777, 300, 64),
        (50, 1000, 64), (4096, 512, 256), (3, 2, 8), (1, 1, 1), (513, 1, 256), (300, 300, 256),
        (256, 100, 256), (10, 3, 4),
        // Windows of 128 blocks (the fewest kept in groups) and more, read partly in groups (`BlockSums`).
        (1024, 32, 8), (1300, 7, 4), (2400, 1600, 8),
    ]

    /// A stream of `length` positions: the samples, and which positions were skipped.
    struct Stream {
        var x: [Float]
        var skipped: [Bool]

        /// The sum of squares, in Double, of the samples that arrived in [lo, hi).
        func plainSum(_ lo: Int, _ hi: Int) -> Double {
            var s = 0.0
            for i in lo..<hi where !skipped[i] { s += Double(x[i]) * Double(x[i]) }
            return s
        }
    }

    static func stream(length: Int, seed: UInt64, skips: Bool) -> Stream {
        var rng = SeededRNG(seed: seed)
        let x = (0..<length).map { i -> Float in
            // Loud, quiet and silent stretches, so windows cross loud/quiet boundaries.
            let gain: Double = (i / 211) % 3 == 0 ? 0 : ((i / 211) % 3 == 1 ? 1 : 1e-3)
            return Float(rng.signed() * gain)
        }
        var skipped = [Bool](repeating: false, count: length)
        if skips {
            var p = 0
            while p < length {
                p += 1 + Int(rng.next() % 3000)
                let n = 1 + Int(rng.next() % 700)
                for i in min(length, p)..<min(length, p + n) { skipped[i] = true }
                p += n
            }
        }
        return Stream(x: x, skipped: skipped)
    }

    /// What the sum reads at one grid position.
    struct Reading: Equatable {
        var sum: UInt64
        var count: Int
        var total: UInt64
    }

    /// The plain sum and the count of arrived samples of the window ending at each grid
    /// position of `s` (the `k`th at `(k + 1) * hop`): what every split of the stream must read.
    /// Computed once per stream and window, not once per split: in the unoptimized test build
    /// these sums were most of the suite's CPU time.
    struct PlainWindows {
        var sums: [Double] = []
        var counts: [Int] = []

        init(_ s: Stream, window: Int, hop: Int) {
            var p = hop
            while p <= s.x.count {
                let lo = max(0, p - window)
                sums.append(s.plainSum(lo, p))
                counts.append((lo..<p).filter { !s.skipped[$0] }.count)
                p += hop
            }
        }
    }

    /// Feeds `s` in runs cut by `splits` (cycled), at the grid and at skip boundaries, checks
    /// every reading on the grid against the plain sums (`plain`: computed from `s` unless
    /// given), and returns the readings.
    static func readings(_ s: Stream, window: Int, hop: Int, blockSize: Int, splits: [Int], plain: PlainWindows? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) -> [Reading] {
        let windows = plain ?? PlainWindows(s, window: window, hop: hop)
        let r = RollingSquareSum(window: window, hop: hop, blockSize: blockSize)
        var p = 0, call = 0, mismatches = 0, total = 0.0
        var out: [Reading] = []
        s.x.withUnsafeBufferPointer { x in
            while p < s.x.count {
                var n = min(splits[call % splits.count], s.x.count - p, hop - p % hop)
                call += 1
                let skip = s.skipped[p]
                var q = p
                while q < p + n && s.skipped[q] == skip { q += 1 }
                n = q - p
                if skip {
                    r.skip(n)
                } else {
                    let peak = r.push(x.baseAddress! + p, count: n)
                    if peak != s.x[p..<q].map({ abs($0) }).max()! { mismatches += 1 }
                    total += s.plainSum(p, q)
                }
                p += n
                guard p % hop == 0 else { continue }
                let plain = windows.sums[p / hop - 1]
                let sum = r.windowSum()
                let sumOK = plain == 0 ? sum == 0 : abs(sum - plain) <= RollingSquareSumTests.tolerance * plain
                let totalOK = abs(r.totalSquares - total) <= RollingSquareSumTests.tolerance * total
                if !sumOK || !totalOK || r.windowCount != windows.counts[p / hop - 1] {
                    mismatches += 1
                }
                out.append(Reading(sum: sum.bitPattern, count: r.windowCount, total: r.totalSquares.bitPattern))
            }
        }
        #expect(out.count == s.x.count / hop, sourceLocation: sourceLocation)
        #expect(mismatches == 0, "window \(window) hop \(hop) block \(blockSize) splits \(splits)",
                sourceLocation: sourceLocation)
        #expect(r.received == s.skipped.filter { !$0 }.count, sourceLocation: sourceLocation)
        return out
    }

    @Test(arguments: [false, true])
    func plainSumsOnTheGridWhateverTheSplit(skips: Bool) {
        for (w, h, b) in Self.shapes {
            let s = Self.stream(length: max(8 * w, 20 * h, 9000), seed: UInt64(w * 7 + h * 3 + b), skips: skips)
            let plain = PlainWindows(s, window: w, hop: h)
            let whole = Self.readings(s, window: w, hop: h, blockSize: b, splits: [1_000_000], plain: plain)
            for splits in [[1], [7, 13, 1600, 3], [255, 257], [4096, 1, 100]] {
                if splits == [1] && s.x.count > 20000 { continue }
                let other = Self.readings(s, window: w, hop: h, blockSize: b, splits: splits, plain: plain)
                #expect(other == whole, "window \(w) hop \(h) block \(b) splits \(splits): other bits than in one piece")
            }
        }
    }

    /// Block size 4: the window's 250 blocks are read in groups.
    @Test(arguments: [64, 4])
    func aGapLongerThanTheWindowReadsNothingThenOnlyNewSamples(blockSize: Int) {
        let r = RollingSquareSum(window: 1000, hop: 100, blockSize: blockSize)
        let loud = [Float](repeating: 0.5, count: 1000)
        loud.withUnsafeBufferPointer { _ = r.push($0.baseAddress!, count: 1000) }
        r.skip(100_000)
        #expect(r.windowSum() == 0)
        #expect(r.windowCount == 0)
        loud.withUnsafeBufferPointer { _ = r.push($0.baseAddress!, count: 300) }
        #expect(r.windowCount == 300)
        #expect(r.windowSum() == 300 * 0.25)
        #expect(r.received == 1300 && r.count == 101_300)
    }

    @Test func offTheGridTheWindowReachesBackToItsBlockStart() {
        // The last, partial hop of a stream: window [lo rounded down to a block, count).
        let x = Self.stream(length: 5000, seed: 3, skips: false).x
        let r = RollingSquareSum(window: 1000, hop: 1600, blockSize: 64)
        x.withUnsafeBufferPointer { _ = r.push($0.baseAddress!, count: 4321) }
        let lo = (4321 - 1000) / 64 * 64
        #expect(r.windowCount == 4321 - lo)
        var naive = 0.0
        for i in lo..<4321 { naive += Double(x[i]) * Double(x[i]) }
        #expect(abs(r.windowSum() - naive) <= RollingSquareSumTests.tolerance * naive)
    }

    @Test func anAnnouncedEndOffTheGridIsExact() {
        let x = Self.stream(length: 5000, seed: 4, skips: false).x
        let plain = Stream(x: x, skipped: [Bool](repeating: false, count: x.count))
        for (w, h, b) in Self.shapes where 4321 % h != 0 {
            let r = RollingSquareSum(window: w, hop: h, blockSize: b)
            r.expectRead(at: 4321)
            x.withUnsafeBufferPointer {
                for (a, n) in [(0, 1000), (1000, 3), (1003, 3318)] {
                    _ = r.push($0.baseAddress! + a, count: n)
                }
            }
            let expected = plain.plainSum(max(0, 4321 - w), 4321)
            #expect(abs(r.windowSum() - expected) <= RollingSquareSumTests.tolerance * expected, "window \(w) hop \(h) block \(b)")
            #expect(r.windowCount == min(w, 4321))
        }
    }
}
