@testable import MeterCore

/// THE PREVIOUS IMPLEMENTATION, kept as the reference the new one must match bit for bit (issue 16).
/// The sum of squares of the last `window` samples of one channel, exact at any position.
///
/// A running sum that adds new squares and subtracts old ones drifts, and after a loud
/// passage it leaves a residue where silence should read -160 dB. Instead the samples are
/// grouped in blocks of `blockSize`: each block keeps its own sum (in Double), the window's
/// sum is the complete blocks it covers plus the few samples of its first, partial block,
/// summed afresh. Nothing is ever subtracted, so silence after noise reads exactly zero.
///
/// Within a block, squares are summed in eight Float lanes, lane = absolute sample index mod
/// 8, so SIMD does the work yet the result does not depend on how the input was split into
/// calls: live capture (10 ms chunks) and `analyze` (large blocks) give the same bits. Lanes
/// are added in Double, in lane order, and blocks in Double.
///
/// Storage is fixed at creation; `push` never allocates.
final class ReferenceRollingSquareSum {
    let window: Int
    let blockSize: Int
    /// Samples pushed so far.
    private(set) var count: Int = 0

    private let samples: UnsafeMutablePointer<Float>   // ring of the last `window` samples
    private let blockSums: UnsafeMutablePointer<Double> // ring of per-block sums
    private let blockCount: Int
    private var lanes = SIMD8<Float>()                 // the current block's partial sums
    private var completedSquares: Double = 0           // all blocks finished so far

    init(window: Int, blockSize: Int = 256) {
        precondition(window >= 1 && blockSize >= 1)
        self.window = window
        self.blockSize = blockSize
        self.blockCount = window / blockSize + 3
        samples = .allocate(capacity: window)
        samples.initialize(repeating: 0, count: window)
        blockSums = .allocate(capacity: blockCount)
        blockSums.initialize(repeating: 0, count: blockCount)
    }

    deinit {
        samples.deallocate()
        blockSums.deallocate()
    }

    /// Sum of squares of every sample pushed (for whole-stream RMS).
    var totalSquares: Double {
        count % blockSize == 0 ? completedSquares : completedSquares + lanesSum()
    }

    /// Appends `n` samples read at `base[i * stride]` and returns their largest magnitude.
    func push(_ base: UnsafePointer<Float>, stride: Int, count n: Int) -> Float {
        var peak: Float = 0
        var i = 0
        while i < n {
            let inBlock = count % blockSize
            let inRing = count % window
            let seg = min(n - i, blockSize - inBlock, window - inRing)
            let p = base + i * stride
            let pk = stride == 1
                ? accumulateContiguous(p, seg, copyTo: samples + inRing)
                : accumulateStrided(p, stride, seg, copyTo: samples + inRing)
            peak = max(peak, pk)
            count += seg
            i += seg
            let sum = lanesSum()
            blockSums[((count - 1) / blockSize) % blockCount] = sum
            if count % blockSize == 0 {
                completedSquares += sum
                lanes = SIMD8<Float>()
            }
        }
        return peak
    }

    /// The lanes added in Double, in a fixed order.
    @inline(__always)
    private func lanesSum() -> Double {
        var s: Double = 0
        for j in 0..<8 { s += Double(lanes[j]) }
        return s
    }

    /// Adds the squares of `n` contiguous samples (the first at absolute index `count`) to the
    /// lanes, copies them into the ring, and returns their largest magnitude.
    @inline(__always)
    private func accumulateContiguous(_ p: UnsafePointer<Float>, _ n: Int,
                                      copyTo dst: UnsafeMutablePointer<Float>) -> Float {
        dst.update(from: p, count: n)
        var acc = lanes
        var peak: Float = 0
        var k = 0
        // Scalar until the absolute index is a multiple of 8, so lanes line up.
        while k < n && (count + k) & 7 != 0 {
            let x = p[k]
            acc[(count + k) & 7] += x * x
            peak = max(peak, abs(x))
            k += 1
        }
        var hi = SIMD8<Float>()
        var lo = SIMD8<Float>()
        let raw = UnsafeRawPointer(p)
        while k + 8 <= n {
            let v = raw.loadUnaligned(fromByteOffset: k * 4, as: SIMD8<Float>.self)
            acc += v * v
            hi.replace(with: v, where: v .> hi)
            lo.replace(with: v, where: v .< lo)
            k += 8
        }
        // Lane reductions by hand: the generic SIMD min()/max() are not inlined.
        for j in 0..<8 { peak = max(peak, max(hi[j], -lo[j])) }
        while k < n {
            let x = p[k]
            acc[(count + k) & 7] += x * x
            peak = max(peak, abs(x))
            k += 1
        }
        lanes = acc
        return peak
    }

    /// The same for samples `stride` apart.
    private func accumulateStrided(_ p: UnsafePointer<Float>, _ stride: Int, _ n: Int,
                                   copyTo dst: UnsafeMutablePointer<Float>) -> Float {
        var peak: Float = 0
        for k in 0..<n {
            let x = p[k * stride]
            dst[k] = x
            lanes[(count + k) & 7] += x * x
            peak = max(peak, abs(x))
        }
        return peak
    }

    /// Sum of squares of samples [max(0, count - window), count).
    func windowSum() -> Double {
        guard count > 0 else { return 0 }
        let lo = max(0, count - window)
        let firstFull = (lo + blockSize - 1) / blockSize
        // The block holding the newest sample; its sum covers exactly the samples pushed into it
        // (a block whose first sample has not arrived yet still holds an old sum: never read).
        let current = (count - 1) / blockSize
        if firstFull > current { return directSum(from: lo, to: count) }
        var sum = directSum(from: lo, to: firstFull * blockSize)
        var j = firstFull
        while j <= current {
            sum += blockSums[j % blockCount]
            j += 1
        }
        return sum
    }

    /// Samples the window covers right now (fewer than `window` at the very start).
    var windowCount: Int { min(count, window) }

    /// Sum of squares of samples [a, b), read from the ring in at most two contiguous runs.
    private func directSum(from a: Int, to b: Int) -> Double {
        guard b > a else { return 0 }
        let start = a % window
        let first = min(b - a, window - start)
        return Self.squares(samples + start, first) + Self.squares(samples, b - a - first)
    }

    @inline(__always)
    private static func squares(_ p: UnsafePointer<Float>, _ n: Int) -> Double {
        var s: Double = 0
        for k in 0..<n {
            let d = Double(p[k])
            s += d * d
        }
        return s
    }

}
