/// Several sums of squares (or products) over the last `window` positions, read at the positions
/// of a hop grid (multiples of `hop`), in memory that does not grow with the window in samples:
/// the levels' per-channel squares and the stereo cross product L R, all on one grid, one pass
/// over each block (`SquareKernel`).
///
/// A running sum that adds new squares and subtracts old ones drifts, and after a loud
/// passage it leaves a residue where silence should read -160 dB. Instead positions are
/// grouped in blocks of `blockSize`: each block keeps its own sum (in Double), and a window's
/// sum is the complete blocks it covers plus the samples of its first, partial block (a long
/// window's blocks read in groups, `BlockSums`). Nothing is ever subtracted, so silence after
/// noise reads exactly zero.
///
/// The samples themselves are not kept. Reads happen on the hop grid, so every window start
/// (k * hop - window) is known in advance: while the samples of a start's block pass by, the
/// squares from that start to the block's end are summed (in Double, in sample order, restarting
/// at each multiple of `window`, exactly as summing them afresh from a ring of `window` samples
/// did), and kept until the window is read. The starts are the same for every series, so they
/// are kept once. Memory: window / blockSize block sums plus window / hop partial sums per
/// series, and no zero-filling.
///
/// Within a block, each series is summed in eight Float lanes, lane = absolute position mod 8,
/// so SIMD does the work yet the result does not depend on how the input was split into calls:
/// live capture (10 ms chunks) and `analyze` (large blocks) give the same bits. Lanes are
/// added in Double, in lane order, and blocks in Double.
///
/// Positions that never arrived (`skip`) stay on the grid and add nothing; they are not
/// counted in `windowCount`. One read off the grid (the last, partial hop of a file whose
/// length is known) can be announced with `expectRead(at:)` and is exact too; any other read
/// off the grid extends the window back to the start of its first block (fewer than
/// `blockSize` positions more).
public final class RollingSums {
    public let window: Int
    public let hop: Int
    public let blockSize: Int
    /// How many sums are kept side by side.
    public let series: Int
    /// Positions so far: samples pushed plus positions skipped.
    public private(set) var count: Int = 0
    /// Samples pushed so far.
    public private(set) var received: Int = 0

    /// A window start: the squares from `start` to `end` (the end of its block) are summed
    /// in two pieces split at the next multiple of `window` (where the ring of samples this
    /// replaced wrapped); the pieces of slot i, series s, are at `heads`/`tails[i * series + s]`.
    private struct Start {
        var start: Int
        var end: Int
        var split: Int
    }

    private let sums: [BlockSums]                         // per series: per-block (and group) sums
    private let lanes: UnsafeMutablePointer<SIMD8<Float>> // per series: the current block's lanes
    private let completed: UnsafeMutablePointer<Double>   // per series: all blocks finished so far
    private let starts: UnsafeMutablePointer<Start>       // ring of pending window starts
    private let heads: UnsafeMutablePointer<Double>       // per start slot and series (slot
    private let tails: UnsafeMutablePointer<Double>       // `startCapacity` is the off-grid one)
    private let startCapacity: Int
    private var startHead = 0
    private var startCount = 0
    private var nextStartIndex: Int                       // k of the next start k * hop - window
    private var skipped: [Range<Int>] = []                // skipped positions a window may still cover
    private var offGrid: Start?                           // the start of one announced read off the grid

    public init(series: Int, window: Int, hop: Int, blockSize: Int = 256) {
        precondition(series >= 1 && window >= 1 && hop >= 1 && blockSize >= 1)
        self.series = series
        self.window = window
        self.hop = hop
        self.blockSize = blockSize
        sums = (0..<series).map { _ in BlockSums(window: window, blockSize: blockSize) }
        lanes = .allocate(capacity: series)
        lanes.initialize(repeating: SIMD8<Float>(), count: series)
        completed = .allocate(capacity: series)
        completed.initialize(repeating: 0, count: series)
        // Starts alive at once lie in [count - window, count + blockSize).
        startCapacity = (window + blockSize) / hop + 3
        starts = .allocate(capacity: startCapacity)
        heads = .allocate(capacity: (startCapacity + 1) * series)
        tails = .allocate(capacity: (startCapacity + 1) * series)
        nextStartIndex = window / hop + 1
    }

    deinit {
        lanes.deallocate()
        completed.deallocate()
        starts.deallocate()
        heads.deallocate()
        tails.deallocate()
    }

    /// Sum of squares of every sample pushed to series `s` (for whole-stream RMS).
    public func total(_ s: Int) -> Double {
        count % blockSize == 0 ? completed[s] : completed[s] + Self.lanesSum(lanes[s])
    }

    /// Appends the next `n` positions, whose squares `kernel` computes for every series.
    @inline(__always)
    func push<K: SquareKernel>(_ kernel: inout K, count n: Int) {
        var i = 0
        while i < n {
            let seg = min(n - i, blockSize - count % blockSize)
            preparePartials(from: count, before: count + seg)
            addToPartials(&kernel, offset: i, count: seg)
            kernel.accumulate(from: i, count: seg, position: count, lanes: lanes)
            count += seg
            received += seg
            i += seg
            finishSegment()
        }
    }

    /// Advances over `n` positions whose samples never arrived: they add nothing and are not
    /// counted, later reads stay on the grid.
    public func skip(_ n: Int) {
        guard n > 0 else { return }
        if let last = skipped.last, last.upperBound == count {
            skipped[skipped.count - 1] = last.lowerBound..<(count + n)
        } else {
            skipped.append(count..<(count + n))
        }
        var rest = n
        while rest > 0 {
            let seg = min(rest, blockSize - count % blockSize)
            if count % blockSize == 0 && rest >= sums[0].blockCount * blockSize {
                // A gap longer than every block kept: all of them read zero.
                let whole = rest / blockSize * blockSize
                for s in sums { s.zero() }
                count += whole
                rest -= whole
                preparePartials(from: count, before: count)
                continue
            }
            preparePartials(from: count, before: count + seg)
            count += seg
            rest -= seg
            finishSegment()
        }
        let oldest = count - window - blockSize
        if let drop = skipped.firstIndex(where: { $0.upperBound > oldest }), drop > 0 {
            skipped.removeFirst(drop)
        }
    }

    /// Announces a read at `position`, off the hop grid (the end of a stream of known length),
    /// before the stream reaches that window's start: that read is then exact as well.
    public func expectRead(at position: Int) {
        let s = position - window
        guard s > count, s % blockSize != 0, position % hop != 0 else { return }
        offGrid = Start(start: s, end: (s + blockSize - 1) / blockSize * blockSize,
                        split: (s / window + 1) * window)
        clearSlot(startCapacity)
    }

    /// Sum of series `s` over the window ending at `count`.
    public func windowSum(_ s: Int) -> Double {
        windowSum(s, start: windowStart())
    }

    /// Every series' sum over the window ending at `count`, in series order.
    public func windowSums(into result: inout [Double]) {
        let start = windowStart()
        for s in 0..<series { result[s] = windowSum(s, start: start) }
    }

    private func windowSum(_ s: Int, start: (lo: Int, slot: Int?)) -> Double {
        guard count > 0 else { return 0 }
        let partial = start.slot.map { heads[$0 * series + s] + tails[$0 * series + s] } ?? 0
        let firstFull = (start.lo + blockSize - 1) / blockSize
        // The block holding the newest position; its sum covers exactly the positions passed in
        // it (a block not entered yet still holds an old sum: never read).
        let current = (count - 1) / blockSize
        if firstFull > current { return partial }
        return sums[s].sum(adding: partial, blocks: firstFull, through: current, complete: count / blockSize)
    }

    /// Samples the window covers right now (fewer than `window` at the very start or across
    /// skipped positions).
    public var windowCount: Int {
        let lo = windowStart().lo
        var n = count - lo
        for r in skipped { n -= max(0, min(r.upperBound, count) - max(r.lowerBound, lo)) }
        return n
    }

    /// Where the window read now starts, and the slot holding the squares from there to its
    /// block's end (nil: none, the start is on a block boundary or off the grid).
    private func windowStart() -> (lo: Int, slot: Int?) {
        let lo = max(0, count - window)
        if lo % blockSize == 0 { return (lo, nil) }
        if let e = offGrid, e.start == lo { return (lo, startCapacity) }
        var k = 0
        while k < startCount {
            let slot = (startHead + k) % startCapacity
            let e = starts[slot]
            if e.start == lo { return (lo, slot) }
            if e.start > lo { break }
            k += 1
        }
        // Off the grid: back to the block's start.
        return (lo / blockSize * blockSize, nil)
    }

    private func clearSlot(_ slot: Int) {
        (heads + slot * series).initialize(repeating: 0, count: series)
        (tails + slot * series).initialize(repeating: 0, count: series)
    }

    /// Drops starts read before position `now` and adds those that begin before `limit`
    /// (starts added late, after a gap, rightly hold nothing: their positions were skipped).
    private func preparePartials(from now: Int, before limit: Int) {
        while startCount > 0 && starts[startHead].start + window < now {
            startHead = (startHead + 1) % startCapacity
            startCount -= 1
        }
        nextStartIndex = max(nextStartIndex, (now + hop - 1) / hop)
        while nextStartIndex * hop - window < limit {
            let s = nextStartIndex * hop - window
            precondition(startCount < startCapacity)
            let slot = (startHead + startCount) % startCapacity
            starts[slot] = Start(start: s, end: (s + blockSize - 1) / blockSize * blockSize,
                                 split: (s / window + 1) * window)
            clearSlot(slot)
            startCount += 1
            nextStartIndex += 1
        }
    }

    /// Adds the squares of the segment [count, count + n) (the kernel's frames from `offset`)
    /// to every start whose partial block it overlaps (the newest starts: those inside the
    /// current block).
    @inline(__always)
    private func addToPartials<K: SquareKernel>(_ kernel: inout K, offset: Int, count n: Int) {
        if let e = offGrid, e.end > count, e.start < count + n {
            add(&kernel, offset: offset, count: n, to: e, slot: startCapacity)
        }
        let blockStart = count / blockSize * blockSize
        var k = startCount - 1
        while k >= 0 {
            let slot = (startHead + k) % startCapacity
            if starts[slot].start <= blockStart { break }
            k -= 1
            add(&kernel, offset: offset, count: n, to: starts[slot], slot: slot)
        }
    }

    /// Adds the squares of the positions [count, count + n) that fall in `e`'s range to slot
    /// `slot`'s sums.
    @inline(__always)
    private func add<K: SquareKernel>(_ kernel: inout K, offset: Int, count n: Int, to e: Start, slot: Int) {
        let lo = max(e.start, count), hi = min(e.end, count + n)
        guard lo < hi else { return }
        let mid = min(max(e.split, lo), hi)
        kernel.addSquares(from: offset + (lo - count), count: mid - lo, into: heads + slot * series)
        kernel.addSquares(from: offset + (mid - count), count: hi - mid, into: tails + slot * series)
    }

    /// Records the current block's sums after a segment; closes the block at its end.
    @inline(__always)
    private func finishSegment() {
        let block = (count - 1) / blockSize
        let closes = count % blockSize == 0
        for s in 0..<series {
            let sum = Self.lanesSum(lanes[s])
            sums[s].set(block, sum)
            if closes {
                sums[s].completed(block)
                completed[s] += sum
                lanes[s] = SIMD8<Float>()
            }
        }
    }

    /// The lanes added in Double, in a fixed order.
    @inline(__always)
    private static func lanesSum(_ lanes: SIMD8<Float>) -> Double {
        var s: Double = 0
        for j in 0..<8 { s += Double(lanes[j]) }
        return s
    }
}
