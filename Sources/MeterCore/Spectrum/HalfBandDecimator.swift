/// Halves the rate: a Kaiser-windowed half-band FIR low-pass (passband to 0.2, stopband from
/// 0.3 of the input rate at 80 dB), computed only at the kept samples.
///
/// In polyphase form: every other tap of a half-band filter is zero but the centre one, so an
/// output (taken at an even input sample) is the centre tap times one odd sample plus 15
/// symmetric tap pairs times even samples only. The input is split into its even and odd
/// samples, and eight outputs at a time are computed from unaligned SIMD8 loads of the even
/// ones: 16 multiplies per eight outputs, no branch.
final class HalfBandDecimator {
    static let taps: [Float] = {
        // Length 4m + 3 with the centre tap 0.5: every other tap is zero (a half-band filter).
        let n = 59, beta = 0.1102 * (80 - 8.7), mid = Double(n - 1) / 2
        return (0..<n).map { i in
            let t = Double(i) - mid
            let sinc = t == 0 ? 0.5 : PureMath.sin(Double.pi * t / 2) / (Double.pi * t)
            let r = t / mid
            return Float(sinc * PureMath.besselI0(beta * max(0, 1 - r * r).squareRoot()) / PureMath.besselI0(beta))
        }
    }()

    /// Even input samples kept from before the block (the filter's span, 58 input samples, in
    /// even ones) and odd ones (the centre tap lies 29 back: 15 odd samples).
    private static let evenHistory = taps.count / 2, oddHistory = (taps.count / 2 + 1) / 2
    /// The taps on even samples, taps[2q] (= taps[58 - 2q]) for q in 0..<15, and the centre.
    private let pairs: UnsafeMutablePointer<SIMD8<Float>>
    private let pairCount = HalfBandDecimator.evenHistory / 2 + 1
    private let centre: SIMD8<Float>
    private let even: UnsafeMutablePointer<Float>
    private let odd: UnsafeMutablePointer<Float>
    /// 1 when the next input sample is odd (the last block ended on an even one).
    private var parity = 0

    init() {
        let h = Self.taps
        pairs = .allocate(capacity: pairCount)
        for q in 0..<pairCount { (pairs + q).initialize(to: SIMD8(repeating: h[2 * q])) }
        centre = SIMD8(repeating: h[h.count / 2])
        // Room for a block's half and for the reads of the last SIMD8 group beyond it.
        let room = BiquadCascade.blockCapacity / 2 + 1 + Self.evenHistory + 8
        even = .allocate(capacity: room)
        even.initialize(repeating: 0, count: room)
        odd = .allocate(capacity: room)
        odd.initialize(repeating: 0, count: room)
    }

    deinit {
        pairs.deallocate()
        even.deallocate()
        odd.deallocate()
    }

    /// Filters `n` samples (at most `BiquadCascade.blockCapacity`) and writes every second
    /// output to `out` (which has room for seven more); returns how many.
    func process(_ input: UnsafePointer<Float>, count n: Int, into out: UnsafeMutablePointer<Float>) -> Int {
        let start = parity
        let (ne, no) = split(input, n)
        parity = (start + n) & 1
        // Output j of the block: the centre tap on `odd[j + start]`, pair q on `even[j + 29 - q]`
        // and `even[j + q]`; two sums, so that the adds wait on each other half as long.
        let pairs = self.pairs, last = pairCount - 1, span = Self.evenHistory
        @inline(__always) func load(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
            UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
        }
        var j = 0
        while j < ne {
            let e = even + j
            var acc0 = centre * load(odd + j + start), acc1 = SIMD8<Float>.zero
            var q = 0
            while q < last {
                acc0 += pairs[q] * (load(e + (span &- q)) + load(e + q))
                acc1 += pairs[q &+ 1] * (load(e + (span &- q &- 1)) + load(e + (q &+ 1)))
                q &+= 2
            }
            acc0 += pairs[last] * (load(e + span - last) + load(e + last))
            UnsafeMutableRawPointer(out + j).storeBytes(of: acc0 + acc1, as: SIMD8<Float>.self)
            j &+= 8
        }
        even.update(from: even + ne, count: Self.evenHistory)
        odd.update(from: odd + no, count: Self.oddHistory)
        return ne
    }

    /// Appends the block's even samples to `even` and its odd ones to `odd` (after their
    /// histories); returns how many of each.
    private func split(_ input: UnsafePointer<Float>, _ n: Int) -> (Int, Int) {
        let e = even + Self.evenHistory
        var o = odd + Self.oddHistory, p = input, rest = n
        if parity == 1 && rest > 0 {
            o[0] = p[0]
            o += 1
            p += 1
            rest -= 1
        }
        for i in 0..<rest / 2 {
            e[i] = p[2 * i]
            o[i] = p[2 * i + 1]
        }
        if rest & 1 == 1 { e[rest / 2] = p[rest - 1] }
        let ne = (rest + 1) / 2, no = n - ne
        return (ne, no)
    }
}
