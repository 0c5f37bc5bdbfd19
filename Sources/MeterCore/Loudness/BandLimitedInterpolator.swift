/// The signal between its samples, as a band-limited one: a 96-tap Kaiser-windowed sinc
/// (beta 8), tabulated at 64 positions per sample period. Up to 0.47 of the rate it gives a
/// sine's value at every position within 0.0001 of the sine's amplitude (0.001 dB), its
/// images from 0.53 of the rate on kept out as well; halfway between samples it passes 0.48
/// of the rate at -0.2 dB. (48 taps, flat to 0.45, read pink noise up to 0.09 dB low: such
/// noise has its peaks' sharpest part near the Nyquist frequency.) `TruePeakMeter` reads it only where its
/// 4x search says a new peak may lie.
enum BandLimitedInterpolator {
    /// Positions per sample period; a position is counted in these steps from sample 0.
    static let steps = 64
    static let taps = 96
    /// A value at a position in period j (from sample j to j + 1) reads samples j - 47 to j + 48.
    static let before = taps / 2 - 1, after = taps / 2

    /// Row f: g(k - f / steps) for k = -47...48, g(u) = sinc(u) w(u), w the Kaiser window over
    /// |u| < 48. Row 0 is one at k = 0 and zero elsewhere: the sample itself.
    private static let table: [Float] = {
        let beta = 8.0, half = Double(taps / 2), norm = PureMath.besselI0(beta)
        var t = [Float](repeating: 0, count: steps * taps)
        for f in 0..<steps {
            for i in 0..<taps {
                let u = Double(i - before) - Double(f) / Double(steps)
                let sinc = u == 0 ? 1 : PureMath.sin(Double.pi * u) / (Double.pi * u)
                let r = u / half
                t[f * taps + i] = Float(sinc * PureMath.besselI0(beta * max(0, 1 - r * r).squareRoot()) / norm)
            }
        }
        return t
    }()

    /// The value at `position` (not negative, in `steps` per period from `x[0]`); `x` must be
    /// readable from `position / steps - before` to `position / steps + after`.
    static func value(_ x: UnsafePointer<Float>, at position: Int) -> Float {
        let p = UnsafeRawPointer(x + position / steps - before)
        return table.withUnsafeBytes { t in
            let h = t.baseAddress! + position % steps * taps * 4
            var acc = SIMD8<Float>()
            for g in 0..<(taps / 8) {
                acc += h.loadUnaligned(fromByteOffset: g * 32, as: SIMD8<Float>.self)
                    * p.loadUnaligned(fromByteOffset: g * 32, as: SIMD8<Float>.self)
            }
            return acc.sum()
        }
    }

    /// The largest magnitude near `position`, where the signal's sign is `negative` or not: the
    /// values an eighth of a period either side, moved towards the larger (at most four
    /// times), then the vertex of the parabola through the three. `x` must be readable a
    /// period further than for `value` on either side.
    static func localPeak(_ x: UnsafePointer<Float>, near position: Int, negative: Bool) -> Float {
        let s: Float = negative ? -1 : 1, h = steps / 8
        func f(_ p: Int) -> Float { s * value(x, at: p) }
        var c = position
        var l = f(c - h), m = f(c), r = f(c + h)
        var best = max(l, m, r)
        for _ in 0..<4 {
            if l > m && l >= r {
                c -= h
                (m, r) = (l, m)
                l = f(c - h)
            } else if r > m {
                c += h
                (l, m) = (m, r)
                r = f(c + h)
            } else {
                break
            }
            best = max(best, l, r)
        }
        // With m the largest of the three the vertex lies within half a step of c (clamped:
        // on a flat top, rounding decides the curvature's last digits).
        let curvature = l - 2 * m + r
        if curvature < 0 {
            let offset = min(0.5, max(-0.5, (l - r) / (2 * curvature)))
            let vertex = c + Int((Float(h) * offset).rounded())
            if vertex != c { best = max(best, f(vertex)) }
        }
        return best
    }
}
