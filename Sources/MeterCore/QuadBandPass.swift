/// Up to four 8th-order band-passes (four biquads each) on the same input, one per SIMD lane:
/// the bands of one stage of `OctaveFilterBank`, filtered, squared into their time weighting
/// and summed in one pass over the block.
///
/// A biquad run sample by sample waits on its own previous output, so a band's four sections
/// in a row cost four such waits per sample; here each wait serves four bands, and the four
/// sections of a sample overlap. Transposed direct form II in Double, as `BiquadCascade`.
final class QuadBandPass {
    /// Bands in use (lanes beyond it hold a copy of lane 0 and are never read).
    let count: Int
    private var b0: [SIMD4<Double>], b1: [SIMD4<Double>], b2: [SIMD4<Double>], a1: [SIMD4<Double>], a2: [SIMD4<Double>]
    private var z1 = [SIMD4<Double>](repeating: .zero, count: 4), z2 = [SIMD4<Double>](repeating: .zero, count: 4)
    /// Per lane: the time-weighted mean square and the sum of squares so far.
    private(set) var level = SIMD4<Double>.zero
    private(set) var squares = SIMD4<Double>.zero

    /// `bands`: one to four chains of four sections each.
    init(_ bands: [[BiquadCascade.Section]]) {
        precondition((1...4).contains(bands.count) && bands.allSatisfy { $0.count == 4 })
        count = bands.count
        func lanes(_ k: Int, _ c: (BiquadCascade.Section) -> Double) -> SIMD4<Double> {
            SIMD4((0..<4).map { c(bands[$0 < bands.count ? $0 : 0][k]) })
        }
        b0 = (0..<4).map { k in lanes(k) { $0.b0 } }
        b1 = (0..<4).map { k in lanes(k) { $0.b1 } }
        b2 = (0..<4).map { k in lanes(k) { $0.b2 } }
        a1 = (0..<4).map { k in lanes(k) { $0.a1 } }
        a2 = (0..<4).map { k in lanes(k) { $0.a2 } }
    }

    /// Filters `n` samples, with `rise` the time weighting's coefficient at this rate.
    func process(_ x: UnsafePointer<Float>, count n: Int, rise: Double) {
        let (p0, p1, p2, p3) = (b0[0], b0[1], b0[2], b0[3])
        let (q0, q1, q2, q3) = (b1[0], b1[1], b1[2], b1[3])
        let (r0, r1, r2, r3) = (b2[0], b2[1], b2[2], b2[3])
        let (s0, s1, s2, s3) = (a1[0], a1[1], a1[2], a1[3])
        let (t0, t1, t2, t3) = (a2[0], a2[1], a2[2], a2[3])
        var (u0, u1, u2, u3) = (z1[0], z1[1], z1[2], z1[3])
        var (w0, w1, w2, w3) = (z2[0], z2[1], z2[2], z2[3])
        var lvl = level, sum = squares
        let k = SIMD4<Double>(repeating: rise)
        for i in 0..<n {
            let v = SIMD4<Double>(repeating: Double(x[i]))
            let y0 = p0 * v + u0
            u0 = q0 * v - s0 * y0 + w0
            w0 = r0 * v - t0 * y0
            let y1 = p1 * y0 + u1
            u1 = q1 * y0 - s1 * y1 + w1
            w1 = r1 * y0 - t1 * y1
            let y2 = p2 * y1 + u2
            u2 = q2 * y1 - s2 * y2 + w2
            w2 = r2 * y1 - t2 * y2
            let y3 = p3 * y2 + u3
            u3 = q3 * y2 - s3 * y3 + w3
            w3 = r3 * y2 - t3 * y3
            let e = y3 * y3
            sum += e
            lvl += k * (e - lvl)
        }
        // A decaying state would reach subnormal numbers, slow on every CPU; below 1e-30
        // (600 dB under full scale) it is zero.
        func flush(_ v: inout SIMD4<Double>) { v.replace(with: 0.0, where: (v .< 1e-30) .& (v .> -1e-30)) }
        flush(&u0); flush(&u1); flush(&u2); flush(&u3)
        flush(&w0); flush(&w1); flush(&w2); flush(&w3)
        (z1[0], z1[1], z1[2], z1[3]) = (u0, u1, u2, u3)
        (z2[0], z2[1], z2[2], z2[3]) = (w0, w1, w2, w3)
        level = lvl
        squares = sum
    }
}
