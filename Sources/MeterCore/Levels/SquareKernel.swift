/// What a `RollingSums` sums, over the frames of one block: each kind of input is one type,
/// and `RollingSums.push` is specialized for it, so every series of a block is summed in one
/// pass over its samples.
///
/// `accumulate` adds each series' squares (or products) to its eight Float lanes, the frame at
/// absolute position p to lane p mod 8, in frame order; `addSquares` adds them to one Double per
/// series, in frame order. Both give the same bits however the input was split into blocks.
protocol SquareKernel {
    /// Adds frames [offset, offset + n), the first at absolute position `position`, to
    /// `lanes[s]` for every series s; notes the channels' peaks.
    mutating func accumulate(from offset: Int, count n: Int, position: Int, lanes: UnsafeMutablePointer<SIMD8<Float>>)
    /// Adds frames [offset, offset + n) to `sums[s]` for every series s, in Double, in order.
    func addSquares(from offset: Int, count n: Int, into sums: UnsafeMutablePointer<Double>)
}

/// Lane arithmetic the kernels share.
enum SquareLanes {
    /// Adds the squares of `n` contiguous samples to `lanes` (the first at absolute position
    /// `position`) and returns their largest magnitude.
    @inline(__always)
    static func squares(_ p: UnsafePointer<Float>, _ n: Int, position: Int, lanes: inout SIMD8<Float>) -> Float {
        var acc = lanes
        var peak: Float = 0
        var k = 0
        // Scalar until the absolute position is a multiple of 8, so lanes line up.
        while k < n && (position + k) & 7 != 0 {
            let x = p[k]
            acc[(position + k) & 7] += x * x
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
        peak = max(peak, magnitude(hi: hi, lo: lo))
        while k < n {
            let x = p[k]
            acc[(position + k) & 7] += x * x
            peak = max(peak, abs(x))
            k += 1
        }
        lanes = acc
        return peak
    }

    /// The largest of hi's lanes and of lo's lanes negated. Lane reductions by hand: the
    /// generic SIMD min()/max() are not inlined.
    @inline(__always)
    static func magnitude(hi: SIMD8<Float>, lo: SIMD8<Float>) -> Float {
        var peak: Float = 0
        for j in 0..<8 { peak = max(peak, max(hi[j], -lo[j])) }
        return peak
    }

    /// `s` plus the squares of `n` contiguous samples, in Double, in order.
    @inline(__always)
    static func squares(_ p: UnsafePointer<Float>, _ n: Int, adding s: Double) -> Double {
        var s = s
        for k in 0..<n {
            let d = Double(p[k])
            s += d * d
        }
        return s
    }
}

/// One channel's squares (series 0), its samples contiguous.
struct ChannelSquares: SquareKernel {
    let samples: UnsafePointer<Float>
    var peak: Float = 0

    init(_ samples: UnsafePointer<Float>) { self.samples = samples }

    @inline(__always)
    mutating func accumulate(from offset: Int, count n: Int, position: Int, lanes: UnsafeMutablePointer<SIMD8<Float>>) {
        peak = max(peak, SquareLanes.squares(samples + offset, n, position: position, lanes: &lanes[0]))
    }

    @inline(__always)
    func addSquares(from offset: Int, count n: Int, into sums: UnsafeMutablePointer<Double>) {
        sums[0] = SquareLanes.squares(samples + offset, n, adding: sums[0])
    }
}

/// Interleaved stereo frames: the squares of L (series 0) and R (series 1) and their product
/// L R (series 2), all three from one load of each eight frames.
struct StereoSquares: SquareKernel {
    let frames: UnsafePointer<Float>
    var peaks: (left: Float, right: Float) = (0, 0)

    init(interleaved frames: UnsafePointer<Float>) { self.frames = frames }

    @inline(__always)
    mutating func accumulate(from offset: Int, count n: Int, position: Int, lanes: UnsafeMutablePointer<SIMD8<Float>>) {
        let p = frames + 2 * offset
        var l2 = lanes[0], r2 = lanes[1], lr = lanes[2]
        var peakL: Float = 0, peakR: Float = 0
        var k = 0
        while k < n && (position + k) & 7 != 0 {
            scalar(p, k, lane: (position + k) & 7, &l2, &r2, &lr, &peakL, &peakR)
            k += 1
        }
        // The squares of the frames as they lie (L R L R ...) into sixteen lanes, L's lane j at
        // 2j and R's at 2j + 1: each lane adds the same squares in the same order as eight
        // lanes per channel would. The peaks from the largest squares (sqrt(x * x) is |x|
        // exactly for every Float whose square neither underflows nor overflows), L's in the
        // even and R's in the odd of four lanes. Nine vectors of state: they stay in the
        // baseline's sixteen registers.
        var squares = SIMD16<Float>()
        squares.evenHalf = l2
        squares.oddHalf = r2
        var largest = SIMD4<Float>()
        let raw = UnsafeRawPointer(p)
        let first = k
        while k &+ 8 <= n {
            let v = raw.loadUnaligned(fromByteOffset: k &* 8, as: SIMD16<Float>.self)
            let vv = v * v
            squares += vv
            lr += v.evenHalf * v.oddHalf
            // A tree, so that only one maximum per loop waits on the last.
            var low = vv.lowHalf.lowHalf, high = vv.highHalf.lowHalf
            Self.keepLargest(&low, vv.lowHalf.highHalf)
            Self.keepLargest(&high, vv.highHalf.highHalf)
            Self.keepLargest(&low, high)
            Self.keepLargest(&largest, low)
            k &+= 8
        }
        l2 = squares.evenHalf
        r2 = squares.oddHalf
        peakL = max(peakL, Self.peak(squared: max(largest[0], largest[2]), p, from: first, to: k, channel: 0))
        peakR = max(peakR, Self.peak(squared: max(largest[1], largest[3]), p, from: first, to: k, channel: 1))
        while k < n {
            scalar(p, k, lane: (position + k) & 7, &l2, &r2, &lr, &peakL, &peakR)
            k += 1
        }
        lanes[0] = l2
        lanes[1] = r2
        lanes[2] = lr
        peaks = (max(peaks.left, peakL), max(peaks.right, peakR))
    }

    /// Each lane of `largest` the larger of it and the same lane of `squares` (one maxps).
    @inline(__always)
    private static func keepLargest(_ largest: inout SIMD4<Float>, _ squares: SIMD4<Float>) {
        largest.replace(with: squares, where: squares .> largest)
    }

    /// The largest magnitude among samples whose largest square is `squared`: its square
    /// root, or, should a square have left the normal range (a Float file's samples beyond
    /// 2^64, or below 2^-63, which read as the -160 dB floor either way), channel `channel`'s
    /// samples of frames `first..<last` searched one by one.
    @inline(__always)
    private static func peak(squared m: Float, _ p: UnsafePointer<Float>, from first: Int, to last: Int,
                             channel: Int) -> Float {
        if m.isNormal || m == 0 { return m.squareRoot() }
        var peak: Float = 0
        for k in first..<last { peak = max(peak, abs(p[2 * k + channel])) }
        return peak
    }

    @inline(__always)
    private func scalar(_ p: UnsafePointer<Float>, _ k: Int, lane: Int, _ l2: inout SIMD8<Float>, _ r2: inout SIMD8<Float>,
                        _ lr: inout SIMD8<Float>, _ peakL: inout Float, _ peakR: inout Float) {
        let l = p[2 * k], r = p[2 * k + 1]
        l2[lane] += l * l
        r2[lane] += r * r
        lr[lane] += l * r
        peakL = max(peakL, abs(l))
        peakR = max(peakR, abs(r))
    }

    @inline(__always)
    func addSquares(from offset: Int, count n: Int, into sums: UnsafeMutablePointer<Double>) {
        let p = frames + 2 * offset
        var l2 = sums[0], r2 = sums[1], lr = sums[2]
        for k in 0..<n {
            let l = Double(p[2 * k]), r = Double(p[2 * k + 1])
            l2 += l * l
            r2 += r * r
            lr += l * r
        }
        sums[0] = l2
        sums[1] = r2
        sums[2] = lr
    }
}

/// Any number of channels, each contiguous (channel c at `planar + c * channelStride`): the
/// squares of channel c (series c), and with two or more the product of the first two
/// (series `channels`).
struct PlanarSquares: SquareKernel {
    let planar: UnsafePointer<Float>
    let channels: Int
    let channelStride: Int
    /// Each channel's peak so far.
    let peaks: UnsafeMutablePointer<Float>

    @inline(__always)
    mutating func accumulate(from offset: Int, count n: Int, position: Int, lanes: UnsafeMutablePointer<SIMD8<Float>>) {
        for c in 0..<channels {
            let p = SquareLanes.squares(planar + c * channelStride + offset, n, position: position, lanes: &lanes[c])
            peaks[c] = max(peaks[c], p)
        }
        if channels >= 2 { products(from: offset, count: n, position: position, lanes: &lanes[channels]) }
    }

    /// L R of the first two channels into `lanes`, lane = position mod 8.
    @inline(__always)
    private func products(from offset: Int, count n: Int, position: Int, lanes: inout SIMD8<Float>) {
        let l = planar + offset, r = planar + channelStride + offset
        var acc = lanes
        var k = 0
        while k < n && (position + k) & 7 != 0 {
            acc[(position + k) & 7] += l[k] * r[k]
            k += 1
        }
        while k + 8 <= n {
            acc += UnsafeRawPointer(l + k).loadUnaligned(as: SIMD8<Float>.self)
                * UnsafeRawPointer(r + k).loadUnaligned(as: SIMD8<Float>.self)
            k += 8
        }
        while k < n {
            acc[(position + k) & 7] += l[k] * r[k]
            k += 1
        }
        lanes = acc
    }

    @inline(__always)
    func addSquares(from offset: Int, count n: Int, into sums: UnsafeMutablePointer<Double>) {
        for c in 0..<channels {
            sums[c] = SquareLanes.squares(planar + c * channelStride + offset, n, adding: sums[c])
        }
        guard channels >= 2 else { return }
        let l = planar + offset, r = planar + channelStride + offset
        var lr = sums[channels]
        for k in 0..<n { lr += Double(l[k]) * Double(r[k]) }
        sums[channels] = lr
    }
}
