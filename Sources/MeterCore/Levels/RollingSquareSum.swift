/// The sum of squares of one channel over the last `window` positions, read at the positions of
/// a hop grid (multiples of `hop`): a `RollingSums` of one series, with its exactness and its
/// memory that does not grow with the window (see there).
///
/// Any windowed power of one signal (loudness) uses it as is: samples in, window sum of their
/// squares out. The levels keep every channel and the stereo product in one `RollingSums`.
public final class RollingSquareSum {
    private let sums: RollingSums

    public init(window: Int, hop: Int, blockSize: Int = 256) {
        sums = RollingSums(series: 1, window: window, hop: hop, blockSize: blockSize)
    }

    public var window: Int { sums.window }
    public var hop: Int { sums.hop }
    public var blockSize: Int { sums.blockSize }
    /// Positions so far: samples pushed plus positions skipped.
    public var count: Int { sums.count }
    /// Samples pushed so far.
    public var received: Int { sums.received }
    /// Sum of squares of every sample pushed (for whole-stream RMS).
    public var totalSquares: Double { sums.total(0) }
    /// Samples the window covers right now (fewer than `window` at the very start or across
    /// skipped positions).
    public var windowCount: Int { sums.windowCount }

    /// Appends the `n` contiguous samples at `base` and returns their largest magnitude.
    public func push(_ base: UnsafePointer<Float>, count n: Int) -> Float {
        var kernel = ChannelSquares(base)
        sums.push(&kernel, count: n)
        return kernel.peak
    }

    /// Advances over `n` positions whose samples never arrived (see `RollingSums.skip`).
    public func skip(_ n: Int) { sums.skip(n) }

    /// Announces a read at `position`, off the hop grid (see `RollingSums.expectRead`).
    public func expectRead(at position: Int) { sums.expectRead(at: position) }

    /// Sum of squares over the window ending at `count`.
    public func windowSum() -> Double { sums.windowSum(0) }
}
