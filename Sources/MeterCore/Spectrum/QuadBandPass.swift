/// Up to four 8th-order band-passes (four biquads each) on the same input, one per SIMD lane:
/// the bands of one stage of `OctaveFilterBank`, filtered, squared into their time weighting
/// and summed in one pass over the block.
///
/// A biquad run sample by sample waits on its own previous output, so a band's four sections
/// in a row cost four such waits per sample; here each wait serves four bands, and the four
/// sections of a sample overlap. Every section of a Butterworth band-pass has the numerator
/// g (1 - z^-2); the gains come out of the loop (a band's output is their product times that
/// of the sections with numerator 1 - z^-2, whose power the detector then scales), so a
/// section is y = x - t, t' = v + a1 y, v' = x + a2 y (transposed direct form II, both states
/// negated) with two coefficients. The filters run in Float (four lanes in one register, so
/// the whole chain stays in registers; a band sits between a tenth and a half of its stage's
/// Nyquist, where Float's rounding is 130 dB down); the squares are summed in Float over runs
/// of 256 samples of the stream (counted from its start, so the sums do not depend on how the
/// stream is cut into blocks) and those in Double.
final class QuadBandPass {
    /// Bands in use (lanes beyond it hold a copy of lane 0 and are never read).
    let count: Int
    private let a1: [SIMD4<Float>], a2: [SIMD4<Float>]
    /// Per lane: the power of the band's four numerator gains, which its squares are scaled by.
    private let power: SIMD4<Float>
    private var t = [SIMD4<Float>](repeating: .zero, count: 4), v = [SIMD4<Float>](repeating: .zero, count: 4)
    /// Per lane: the time-weighted mean square, and the squares (gains taken out) of the
    /// whole runs so far and of the current one, `filled` samples long.
    private var lanesLevel = SIMD4<Float>.zero
    private var runs = SIMD4<Double>.zero, part = SIMD4<Float>.zero
    private var filled = 0
    private static let run = 256
    var level: SIMD4<Double> { SIMD4<Double>(lanesLevel) }
    /// Per lane: the sum of squares so far.
    var squares: SIMD4<Double> { (runs + SIMD4<Double>(part)) * SIMD4<Double>(power) }

    /// `bands`: one to four chains of four sections each, numerators g (1, 0, -1).
    init(_ bands: [[BiquadCascade.Section]]) {
        precondition((1...4).contains(bands.count) && bands.allSatisfy { $0.count == 4 })
        precondition(bands.allSatisfy { $0.allSatisfy { $0.b1 == 0 && $0.b2 == -$0.b0 } })
        count = bands.count
        func lanes(_ c: ([BiquadCascade.Section]) -> Double) -> SIMD4<Float> {
            SIMD4((0..<4).map { Float(c(bands[$0 < bands.count ? $0 : 0])) })
        }
        a1 = (0..<4).map { k in lanes { $0[k].a1 } }
        a2 = (0..<4).map { k in lanes { $0[k].a2 } }
        power = lanes { chain in
            let g = chain.reduce(1.0) { $0 * $1.b0 }
            return g * g
        }
    }

    /// One section (numerator 1 - z^-2): its output for input `x`, its state moved on.
    @inline(__always)
    private static func section(_ x: SIMD4<Float>, _ a1: SIMD4<Float>, _ a2: SIMD4<Float>,
                                _ t: inout SIMD4<Float>, _ v: inout SIMD4<Float>) -> SIMD4<Float> {
        let y = x - t
        t = v + a1 * y
        v = x + a2 * y
        return y
    }

    /// Filters `n` samples, with `rise` the time weighting's coefficient at this rate.
    func process(_ x: UnsafePointer<Float>, count n: Int, rise: Double) {
        let (c0, c1, c2, c3) = (a1[0], a1[1], a1[2], a1[3])
        let (d0, d1, d2, d3) = (a2[0], a2[1], a2[2], a2[3])
        var (t0, t1, t2, t3) = (t[0], t[1], t[2], t[3])
        var (v0, v1, v2, v3) = (v[0], v[1], v[2], v[3])
        var lvl = lanesLevel, part = self.part
        let k = Float(rise) * power, keep = SIMD4<Float>(repeating: Float(1 - rise))
        var start = 0
        while start < n {
            let end = min(n, start + Self.run - filled)
            for i in start..<end {
                let s = SIMD4<Float>(repeating: x[i])
                let y0 = Self.section(s, c0, d0, &t0, &v0)
                let y1 = Self.section(y0, c1, d1, &t1, &v1)
                let y2 = Self.section(y1, c2, d2, &t2, &v2)
                let y3 = Self.section(y2, c3, d3, &t3, &v3)
                let e = y3 * y3
                part += e
                lvl = keep * lvl + k * e
            }
            filled += end - start
            if filled == Self.run {
                runs += SIMD4<Double>(part)
                part = .zero
                filled = 0
            }
            start = end
        }
        // A decaying state would reach subnormal numbers, slow on every CPU; below 1e-30
        // (600 dB under full scale) it is zero.
        func flush(_ v: inout SIMD4<Float>) { v.replace(with: 0, where: (v .< 1e-30) .& (v .> -1e-30)) }
        flush(&t0); flush(&t1); flush(&t2); flush(&t3)
        flush(&v0); flush(&v1); flush(&v2); flush(&v3)
        (t[0], t[1], t[2], t[3]) = (t0, t1, t2, t3)
        (v[0], v[1], v[2], v[3]) = (v0, v1, v2, v3)
        lanesLevel = lvl
        self.part = part
    }
}
