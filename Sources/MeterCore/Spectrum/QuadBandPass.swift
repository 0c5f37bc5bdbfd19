/// Up to four 8th-order band-passes (four biquads each) on the same input, one per SIMD lane:
/// the bands of one stage of `OctaveFilterBank`, filtered, squared into their time weighting
/// and summed in one pass over the block.
///
/// A biquad run sample by sample waits on its own previous output, so a band's four sections
/// in a row cost four such waits per sample; here each wait serves four bands, and the four
/// sections of a sample overlap. Every section of a Butterworth band-pass has the numerator
/// g (1 - z^-2), so a section is y = g x + u, u' = w - a1 y, w' = -g x - a2 y (transposed
/// direct form II) with three coefficients. The filters run in Float (four lanes in one
/// register, so the whole chain stays in registers; a band sits between a tenth and a half of
/// its stage's Nyquist, where Float's rounding is 130 dB down), the sums of squares in Double.
final class QuadBandPass {
    /// Bands in use (lanes beyond it hold a copy of lane 0 and are never read).
    let count: Int
    private let g: [SIMD4<Float>], a1: [SIMD4<Float>], a2: [SIMD4<Float>]
    private var u = [SIMD4<Float>](repeating: .zero, count: 4), w = [SIMD4<Float>](repeating: .zero, count: 4)
    /// Per lane: the time-weighted mean square and the sum of squares so far.
    private var lanesLevel = SIMD4<Float>.zero
    private(set) var squares = SIMD4<Double>.zero
    var level: SIMD4<Double> { SIMD4<Double>(lanesLevel) }

    /// `bands`: one to four chains of four sections each, numerators g (1, 0, -1).
    init(_ bands: [[BiquadCascade.Section]]) {
        precondition((1...4).contains(bands.count) && bands.allSatisfy { $0.count == 4 })
        precondition(bands.allSatisfy { $0.allSatisfy { $0.b1 == 0 && $0.b2 == -$0.b0 } })
        count = bands.count
        func lanes(_ k: Int, _ c: (BiquadCascade.Section) -> Double) -> SIMD4<Float> {
            SIMD4((0..<4).map { Float(c(bands[$0 < bands.count ? $0 : 0][k])) })
        }
        g = (0..<4).map { k in lanes(k) { $0.b0 } }
        a1 = (0..<4).map { k in lanes(k) { $0.a1 } }
        a2 = (0..<4).map { k in lanes(k) { $0.a2 } }
    }

    /// One section: its output for input `x`, its state moved on.
    @inline(__always)
    private static func section(_ x: SIMD4<Float>, _ g: SIMD4<Float>, _ a1: SIMD4<Float>, _ a2: SIMD4<Float>,
                                _ u: inout SIMD4<Float>, _ w: inout SIMD4<Float>) -> SIMD4<Float> {
        let gx = g * x
        let y = gx + u
        u = w - a1 * y
        w = -gx - a2 * y
        return y
    }

    /// Filters `n` samples, with `rise` the time weighting's coefficient at this rate.
    func process(_ x: UnsafePointer<Float>, count n: Int, rise: Double) {
        let (g0, g1, g2, g3) = (g[0], g[1], g[2], g[3])
        let (c0, c1, c2, c3) = (a1[0], a1[1], a1[2], a1[3])
        let (d0, d1, d2, d3) = (a2[0], a2[1], a2[2], a2[3])
        var (u0, u1, u2, u3) = (u[0], u[1], u[2], u[3])
        var (w0, w1, w2, w3) = (w[0], w[1], w[2], w[3])
        var lvl = lanesLevel, sum = squares
        let k = SIMD4<Float>(repeating: Float(rise))
        for i in 0..<n {
            let v = SIMD4<Float>(repeating: x[i])
            let y0 = Self.section(v, g0, c0, d0, &u0, &w0)
            let y1 = Self.section(y0, g1, c1, d1, &u1, &w1)
            let y2 = Self.section(y1, g2, c2, d2, &u2, &w2)
            let y3 = Self.section(y2, g3, c3, d3, &u3, &w3)
            let e = y3 * y3
            sum += SIMD4<Double>(e)
            lvl += k * (e - lvl)
        }
        // A decaying state would reach subnormal numbers, slow on every CPU; below 1e-30
        // (600 dB under full scale) it is zero.
        func flush(_ v: inout SIMD4<Float>) { v.replace(with: 0, where: (v .< 1e-30) .& (v .> -1e-30)) }
        flush(&u0); flush(&u1); flush(&u2); flush(&u3)
        flush(&w0); flush(&w1); flush(&w2); flush(&w3)
        (u[0], u[1], u[2], u[3]) = (u0, u1, u2, u3)
        (w[0], w[1], w[2], w[3]) = (w0, w1, w2, w3)
        lanesLevel = lvl
        squares = sum
    }
}
