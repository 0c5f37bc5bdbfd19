/// The sum of squares of the last `window` samples of one channel, exact at any position.
///
/// A running sum that adds new squares and subtracts old ones drifts, and after a loud
/// passage it leaves a residue where silence should read -160 dB. Instead the samples are
/// grouped in blocks of `blockSize`: each block keeps its own sum (in Double), the window's
/// sum is the complete blocks it covers plus the few samples of its first, partial block,
/// summed afresh. Nothing is ever subtracted, so silence after noise reads exactly zero.
///
/// Storage is fixed at creation; `push` never allocates.
public final class RollingSquareSum {
    public let window: Int
    public let blockSize: Int
    /// Samples pushed so far.
    public private(set) var count: Int = 0
    /// Sum of squares of every sample pushed (for whole-stream RMS).
    public private(set) var totalSquares: Double = 0

    private let samples: UnsafeMutablePointer<Float>   // ring of the last `window` samples
    private let blockSums: UnsafeMutablePointer<Double> // ring of per-block sums
    private let blockCount: Int

    public init(window: Int, blockSize: Int = 64) {
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

    /// Appends `n` samples read at `base[i * stride]` and returns their largest magnitude.
    public func push(_ base: UnsafePointer<Float>, stride: Int, count n: Int) -> Float {
        var peak: Float = 0
        var i = 0
        while i < n {
            let inBlock = count % blockSize
            let inRing = count % window
            if inBlock == 0 { blockSums[(count / blockSize) % blockCount] = 0 }
            let seg = min(n - i, blockSize - inBlock, window - inRing)
            var acc: Double = 0
            var p = base + i * stride
            let dst = samples + inRing
            for k in 0..<seg {
                let x = p.pointee
                dst[k] = x
                let d = Double(x)
                acc += d * d
                peak = max(peak, abs(x))
                p += stride
            }
            blockSums[(count / blockSize) % blockCount] += acc
            totalSquares += acc
            count += seg
            i += seg
        }
        return peak
    }

    /// Sum of squares of samples [max(0, count - window), count).
    public func windowSum() -> Double {
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
    public var windowCount: Int { min(count, window) }

    private func directSum(from a: Int, to b: Int) -> Double {
        var s: Double = 0
        var i = a
        while i < b {
            let d = Double(samples[i % window])
            s += d * d
            i += 1
        }
        return s
    }

}
