import Testing
@testable import MeterCore

/// The rolling sums that keep no samples (issue 16) against the previous implementation, which
/// kept a ring of `window` samples (`ReferenceRollingSquareSum`): the same bits at every
/// position of the hop grid, for any split of the input, across skipped positions (fed to the
/// reference as zeros), for windows that are not multiples of the block or the hop, hops
/// longer and shorter than the window.
@Suite struct RollingSumReferenceTests {
    /// (window, hop, blockSize)
    static let shapes: [(Int, Int, Int)] = [
        (2400, 1600, 256), (1000, 1600, 256), (2401, 37, 256), (100, 7, 256), (777, 300, 64),
        (50, 1000, 64), (4096, 512, 256), (3, 2, 8), (1, 1, 1), (513, 1, 256), (300, 300, 256),
        (256, 100, 256), (10, 3, 4),
    ]

    /// A stream of `length` positions: the samples, and which positions were skipped.
    struct Stream {
        var x: [Float]
        var skipped: [Bool]
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

    /// Feeds `s` in runs cut by `splits` (cycled), at the grid and at skip boundaries, and
    /// compares with the reference at every grid position.
    static func compare(_ s: Stream, window: Int, hop: Int, blockSize: Int, splits: [Int],
                        sourceLocation: SourceLocation = #_sourceLocation) {
        let r = RollingSquareSum(window: window, hop: hop, blockSize: blockSize)
        let ref = ReferenceRollingSquareSum(window: window, blockSize: blockSize)
        let zeros = [Float](repeating: 0, count: s.x.count)
        var p = 0, call = 0, checked = 0, mismatches = 0
        s.x.withUnsafeBufferPointer { x in
            zeros.withUnsafeBufferPointer { z in
                while p < s.x.count {
                    var n = min(splits[call % splits.count], s.x.count - p, hop - p % hop)
                    call += 1
                    let skip = s.skipped[p]
                    var q = p
                    while q < p + n && s.skipped[q] == skip { q += 1 }
                    n = q - p
                    if skip {
                        r.skip(n)
                        _ = ref.push(z.baseAddress!, stride: 1, count: n)
                    } else {
                        let a = r.push(x.baseAddress! + p, stride: 1, count: n)
                        let b = ref.push(x.baseAddress! + p, stride: 1, count: n)
                        if a != b { mismatches += 1 }
                    }
                    p += n
                    if p % hop == 0 {
                        let lo = max(0, p - window)
                        let received = (lo..<p).filter { !s.skipped[$0] }.count
                        if r.windowSum().bitPattern != ref.windowSum().bitPattern
                            || r.windowCount != received
                            || r.totalSquares.bitPattern != ref.totalSquares.bitPattern {
                            mismatches += 1
                        }
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == s.x.count / hop, sourceLocation: sourceLocation)
        #expect(mismatches == 0, "window \(window) hop \(hop) block \(blockSize) splits \(splits)",
                sourceLocation: sourceLocation)
        #expect(r.received == s.skipped.filter { !$0 }.count, sourceLocation: sourceLocation)
    }

    @Test(arguments: [false, true])
    func sameBitsAsTheSampleRingOnTheGrid(skips: Bool) {
        for (w, h, b) in Self.shapes {
            let s = Self.stream(length: max(8 * w, 20 * h, 9000), seed: UInt64(w * 7 + h * 3 + b), skips: skips)
            for splits in [[1_000_000], [1], [7, 13, 1600, 3], [255, 257], [4096, 1, 100]] {
                if splits == [1] && s.x.count > 20000 { continue }
                Self.compare(s, window: w, hop: h, blockSize: b, splits: splits)
            }
        }
    }

    @Test func aGapLongerThanTheWindowReadsNothingThenOnlyNewSamples() {
        let r = RollingSquareSum(window: 1000, hop: 100, blockSize: 64)
        let loud = [Float](repeating: 0.5, count: 1000)
        loud.withUnsafeBufferPointer { _ = r.push($0.baseAddress!, stride: 1, count: 1000) }
        r.skip(100_000)
        #expect(r.windowSum() == 0)
        #expect(r.windowCount == 0)
        loud.withUnsafeBufferPointer { _ = r.push($0.baseAddress!, stride: 1, count: 300) }
        #expect(r.windowCount == 300)
        #expect(r.windowSum() == 300 * 0.25)
        #expect(r.received == 1300 && r.count == 101_300)
    }

    @Test func offTheGridTheWindowReachesBackToItsBlockStart() {
        // The last, partial hop of a stream: window [lo rounded down to a block, count).
        let x = Self.stream(length: 5000, seed: 3, skips: false).x
        let r = RollingSquareSum(window: 1000, hop: 1600, blockSize: 64)
        x.withUnsafeBufferPointer { _ = r.push($0.baseAddress!, stride: 1, count: 4321) }
        let lo = (4321 - 1000) / 64 * 64
        #expect(r.windowCount == 4321 - lo)
        var naive = 0.0
        for i in lo..<4321 { naive += Double(x[i]) * Double(x[i]) }
        #expect(abs(r.windowSum() - naive) <= 5e-6 * naive)
    }

    @Test func anAnnouncedEndOffTheGridIsExact() {
        let x = Self.stream(length: 5000, seed: 4, skips: false).x
        for (w, h, b) in Self.shapes where 4321 % h != 0 {
            let r = RollingSquareSum(window: w, hop: h, blockSize: b)
            let ref = ReferenceRollingSquareSum(window: w, blockSize: b)
            r.expectRead(at: 4321)
            x.withUnsafeBufferPointer {
                for (a, n) in [(0, 1000), (1000, 3), (1003, 3318)] {
                    _ = r.push($0.baseAddress! + a, stride: 1, count: n)
                    _ = ref.push($0.baseAddress! + a, stride: 1, count: n)
                }
            }
            #expect(r.windowSum().bitPattern == ref.windowSum().bitPattern, "window \(w) hop \(h) block \(b)")
            #expect(r.windowCount == min(w, 4321))
        }
    }
}
