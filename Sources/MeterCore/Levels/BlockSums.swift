/// The per-block sums of squares of a `RollingSquareSum`, in a ring, and, for a window of many
/// blocks, the sums of groups of `group` consecutive blocks, so that reading a window costs
/// about window / (blockSize * group) + 2 * group additions instead of one per block (a 60 s
/// window at 48 kHz spans 11,250 blocks of 256 samples, read 30 times a second per channel).
///
/// A group's sum is taken once, when its last block is complete: its blocks' sums added in
/// order, in Double. A read adds its first blocks one by one up to a group boundary, then the
/// whole groups, then the blocks after the last whole one. Nothing is subtracted, so silence
/// after noise still reads zero. Windows shorter than two groups keep no groups: a read of
/// them is the sum of its blocks in order, bit for bit as before groups existed.
final class BlockSums {
    static let group = 64
    /// Ring of per-block sums: block j at j % blockCount.
    private let blocks: UnsafeMutablePointer<Double>
    let blockCount: Int
    /// Ring of per-group sums (group g: blocks g * group ..< (g + 1) * group), or nil.
    private let groups: UnsafeMutablePointer<Double>?
    private let groupCount: Int

    init(window: Int, blockSize: Int) {
        let spanned = window / blockSize
        blockCount = spanned + 3
        // Not zero-filled (memory is touched as the stream reaches it): a block is written
        // before any read covers it, a group before any read takes it whole.
        blocks = .allocate(capacity: blockCount)
        if spanned >= 2 * Self.group {
            groupCount = spanned / Self.group + 3
            groups = .allocate(capacity: groupCount)
        } else {
            groupCount = 0
            groups = nil
        }
    }

    deinit {
        blocks.deallocate()
        groups?.deallocate()
    }

    /// Sets block `block`'s sum (of the positions passed in it so far).
    @inline(__always)
    func set(_ block: Int, _ sum: Double) { blocks[block % blockCount] = sum }

    /// Block `block` is complete: closes its group when it is the group's last block.
    @inline(__always)
    func completed(_ block: Int) {
        guard let groups, (block + 1) % Self.group == 0 else { return }
        var s: Double = 0
        for j in (block + 1 - Self.group)...block { s += blocks[j % blockCount] }
        groups[(block / Self.group) % groupCount] = s
    }

    /// Every block and group reads zero (a gap longer than the window).
    func zero() {
        blocks.initialize(repeating: 0, count: blockCount)
        groups?.initialize(repeating: 0, count: groupCount)
    }

    /// `start` plus the sums of blocks `first` through `last`, of which those below `complete`
    /// are complete (whole groups among those are read as groups).
    func sum(adding start: Double, blocks first: Int, through last: Int, complete: Int) -> Double {
        var sum = start
        var j = first
        if let groups {
            let g0 = (first + Self.group - 1) / Self.group, g1 = complete / Self.group
            if g0 < g1 {
                while j < g0 * Self.group {
                    sum += blocks[j % blockCount]
                    j += 1
                }
                for g in g0..<g1 { sum += groups[g % groupCount] }
                j = g1 * Self.group
            }
        }
        while j <= last {
            sum += blocks[j % blockCount]
            j += 1
        }
        return sum
    }
}
