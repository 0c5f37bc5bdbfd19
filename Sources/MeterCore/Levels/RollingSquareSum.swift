/// The sum of squares of one channel over the last `window` positions, read at the positions of
/// a hop grid (multiples of `hop`), in memory that does not grow with the window in samples.
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
/// did), and kept until the window is read. Memory: window / blockSize block sums plus
/// window / hop partial sums, and no zero-filling.
///
/// Within a block, squares are summed in eight Float lanes, lane = absolute position mod 8,
/// so SIMD does the work yet the result does not depend on how the input was split into calls:
/// live capture (10 ms chunks) and `analyze` (large blocks) give the same bits. Lanes are
/// added in Double, in lane order, and blocks in Double.
///
/// Positions that never arrived (`skip`) stay on the grid and add nothing; they are not
/// counted in `windowCount`. One read off the grid (the last, partial hop of a file whose
/// length is known) can be announced with `expectRead(at:)` and is exact too; any other read
/// off the grid extends the window back to the start of its first block (fewer than
/// `blockSize` positions more).
///
/// Used per channel by the levels; any other windowed power (loudness) can use it as is:
/// samples in, window sum of their squares out.
public final class RollingSquareSum {
    public let window: Int
    public let hop: Int
    public let blockSize: Int
    /// Positions so far: samples pushed plus positions skipped.
    public private(set) var count: Int = 0
    /// Samples pushed so far.
    public private(set) var received: Int = 0

    /// The squares from a window start to the end of its block, in two pieces split at the
    /// next multiple of `window` (where the ring of samples this replaces wrapped).
    private struct Partial {
        var start: Int
        var end: Int
        var split: Int
        var head: Double = 0
        var tail: Double = 0
    }

    private let sums: BlockSums                        // per-block (and per-group) sums
    private var lanes = SIMD8<Float>()                 // the current block's partial sums
    private var completedSquares: Double = 0           // all blocks finished so far
    private let partials: UnsafeMutablePointer<Partial> // ring of pending window starts
    private let partialCapacity: Int
    private var partialHead = 0
    private var partialCount = 0
    private var nextStartIndex: Int                    // k of the next start k * hop - window
    private var skipped: [Range<Int>] = []             // skipped positions a window may still cover
    private var offGrid: Partial?                      // the start of one announced read off the grid

    public init(window: Int, hop: Int, blockSize: Int = 256) {
        precondition(window >= 1 && hop >= 1 && blockSize >= 1)
        self.window = window
        self.hop = hop
        self.blockSize = blockSize
        sums = BlockSums(window: window, blockSize: blockSize)
        // Starts alive at once lie in [count - window, count + blockSize).
        partialCapacity = (window + blockSize) / hop + 3
        partials = .allocate(capacity: partialCapacity)
        nextStartIndex = window / hop + 1
    }

    deinit {
        partials.deallocate()
    }

    /// Sum of squares of every sample pushed (for whole-stream RMS).
    public var totalSquares: Double {
        count % blockSize == 0 ? completedSquares : completedSquares + lanesSum()
    }

    /// Appends the `n` contiguous samples at `base` and returns their largest magnitude.
    public func push(_ base: UnsafePointer<Float>, count n: Int) -> Float {
        var peak: Float = 0
        var i = 0
        while i < n {
            let seg = min(n - i, blockSize - count % blockSize)
            let p = base + i
            preparePartials(from: count, before: count + seg)
            addToPartials(p, seg)
            peak = max(peak, accumulate(p, seg))
            count += seg
            received += seg
            i += seg
            finishSegment()
        }
        return peak
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
            if count % blockSize == 0 && rest >= sums.blockCount * blockSize {
                // A gap longer than every block kept: all of them read zero.
                let whole = rest / blockSize * blockSize
                sums.zero()
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
        offGrid = Partial(start: s, end: (s + blockSize - 1) / blockSize * blockSize,
                          split: (s / window + 1) * window)
    }

    /// Sum of squares over the window ending at `count`.
    public func windowSum() -> Double {
        guard count > 0 else { return 0 }
        let (lo, partial) = windowStart()
        let firstFull = (lo + blockSize - 1) / blockSize
        // The block holding the newest position; its sum covers exactly the positions passed in
        // it (a block not entered yet still holds an old sum: never read).
        let current = (count - 1) / blockSize
        if firstFull > current { return partial }
        return sums.sum(adding: partial, blocks: firstFull, through: current, complete: count / blockSize)
    }

    /// Samples the window covers right now (fewer than `window` at the very start or across
    /// skipped positions).
    public var windowCount: Int {
        let lo = windowStart().lo
        var n = count - lo
        for r in skipped { n -= max(0, min(r.upperBound, count) - max(r.lowerBound, lo)) }
        return n
    }

    /// Where the window read now starts, and the squares from there to its block's end.
    private func windowStart() -> (lo: Int, partial: Double) {
        let lo = max(0, count - window)
        if lo % blockSize == 0 { return (lo, 0) }
        if let e = offGrid, e.start == lo { return (lo, e.head + e.tail) }
        var k = 0
        while k < partialCount {
            let e = partials[(partialHead + k) % partialCapacity]
            if e.start == lo { return (lo, e.head + e.tail) }
            if e.start > lo { break }
            k += 1
        }
        // Off the grid: back to the block's start.
        return (lo / blockSize * blockSize, 0)
    }

    /// Drops starts read before position `now` and adds those that begin before `limit`
    /// (starts added late, after a gap, rightly hold nothing: their positions were skipped).
    private func preparePartials(from now: Int, before limit: Int) {
        while partialCount > 0 && partials[partialHead].start + window < now {
            partialHead = (partialHead + 1) % partialCapacity
            partialCount -= 1
        }
        nextStartIndex = max(nextStartIndex, (now + hop - 1) / hop)
        while nextStartIndex * hop - window < limit {
            let s = nextStartIndex * hop - window
            precondition(partialCount < partialCapacity)
            let end = (s + blockSize - 1) / blockSize * blockSize
            partials[(partialHead + partialCount) % partialCapacity] =
                Partial(start: s, end: end, split: (s / window + 1) * window)
            partialCount += 1
            nextStartIndex += 1
        }
    }

    /// Adds the squares of the segment [count, count + n) to every start whose partial block it
    /// overlaps (the newest starts: those inside the current block).
    private func addToPartials(_ p: UnsafePointer<Float>, _ n: Int) {
        if var e = offGrid, e.end > count, e.start < count + n {
            Self.add(p, from: count, count: n, to: &e)
            offGrid = e
        }
        let blockStart = count / blockSize * blockSize
        var k = partialCount - 1
        while k >= 0 {
            let idx = (partialHead + k) % partialCapacity
            if partials[idx].start <= blockStart { break }
            k -= 1
            Self.add(p, from: count, count: n, to: &partials[idx])
        }
    }

    /// Adds the squares of the samples at positions [from, from + n) that fall in `e`'s range.
    @inline(__always)
    private static func add(_ p: UnsafePointer<Float>, from: Int, count n: Int, to e: inout Partial) {
        let lo = max(e.start, from), hi = min(e.end, from + n)
        guard lo < hi else { return }
        let mid = min(max(e.split, lo), hi)
        e.head = squares(p + (lo - from), mid - lo, adding: e.head)
        e.tail = squares(p + (mid - from), hi - mid, adding: e.tail)
    }

    /// Records the current block's sum after a segment; closes the block at its end.
    @inline(__always)
    private func finishSegment() {
        let sum = lanesSum()
        sums.set((count - 1) / blockSize, sum)
        if count % blockSize == 0 {
            sums.completed(count / blockSize - 1)
            completedSquares += sum
            lanes = SIMD8<Float>()
        }
    }

    /// The lanes added in Double, in a fixed order.
    @inline(__always)
    private func lanesSum() -> Double {
        var s: Double = 0
        for j in 0..<8 { s += Double(lanes[j]) }
        return s
    }

    /// Adds the squares of `n` contiguous samples (the first at absolute position `count`) to
    /// the lanes and returns their largest magnitude.
    @inline(__always)
    private func accumulate(_ p: UnsafePointer<Float>, _ n: Int) -> Float {
        var acc = lanes
        var peak: Float = 0
        var k = 0
        // Scalar until the absolute position is a multiple of 8, so lanes line up.
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

    /// `s` plus the squares of `n` contiguous samples, in Double, in order.
    @inline(__always)
    private static func squares(_ p: UnsafePointer<Float>, _ n: Int, adding s: Double) -> Double {
        var s = s
        for k in 0..<n {
            let d = Double(p[k])
            s += d * d
        }
        return s
    }
}
