/// The few elementary functions the core needs (ln, log10, exp, pow, cos, sin, tan, and the
/// Bessel I0 of Kaiser windows), in plain Swift.
///
/// The Swift standard library has no transcendental functions on Linux; they come from Glibc,
/// usually through Foundation. The core stays free of C and of Foundation (whose start-up
/// and ~15 MB of resident ICU data would dominate a 60 ms `analyze` run), so these are
/// written out here: range reduction plus a short series, accurate to a few ulps, which is
/// many orders of magnitude finer than the 0.01 dB the meter reports. Tests compare them
/// with Glibc over wide ranges.
public enum PureMath {
    public static let ln2 = 0.693_147_180_559_945_309_417_232_121_458
    public static let ln10 = 2.302_585_092_994_045_684_017_991_454_684

    /// Natural logarithm. NaN for negative or NaN input, -inf for 0, +inf for +inf.
    public static func log(_ x: Double) -> Double {
        if x.isNaN || x < 0 { return .nan }
        if x == 0 { return -.infinity }
        if x.isInfinite { return .infinity }
        // x = m * 2^e with m in [sqrt(1/2), sqrt(2)).
        var (m, e) = significandAndExponent(x)  // m in [1, 2)
        if m > 1.414_213_562_373_095_048_801_688 {
            m *= 0.5
            e += 1
        }
        // ln(m) = 2 * atanh(s) = 2 * (s + s^3/3 + s^5/5 + ...), s = (m - 1) / (m + 1),
        // |s| <= 0.1716 so s^2 <= 0.0295: ten terms leave a relative error below 1e-16.
        // The polynomial in s^2 is evaluated by Estrin's scheme (pairs, then powers s^4, s^8)
        // rather than Horner's: the same accuracy, a third of the dependent multiply-adds.
        let s = (m - 1) / (m + 1)
        let s2 = s * s
        let s4 = s2 * s2
        let s8 = s4 * s4
        let p01 = 1 + s2 * (1.0 / 3)
        let p23 = 1.0 / 5 + s2 * (1.0 / 7)
        let p45 = 1.0 / 9 + s2 * (1.0 / 11)
        let p67 = 1.0 / 13 + s2 * (1.0 / 15)
        let p89 = 1.0 / 17 + s2 * (1.0 / 19)
        let sum = (p01 + s4 * p23) + s8 * ((p45 + s4 * p67) + s8 * p89)
        return e * ln2 + 2 * s * sum
    }

    /// `x.significand` and `x.exponent` of a finite x > 0, the same values: for a normal
    /// number read from its bits (the standard library's getters are calls, and a live frame
    /// takes some seventy logarithms), for a subnormal one from the getters.
    @inline(__always)
    private static func significandAndExponent(_ x: Double) -> (Double, Double) {
        let bits = x.bitPattern
        let biased = Int(truncatingIfNeeded: bits >> 52)  // x > 0: no sign bit
        guard biased != 0 else { return (x.significand, Double(x.exponent)) }
        let m = Double(bitPattern: bits & 0x000F_FFFF_FFFF_FFFF | 0x3FF0_0000_0000_0000)
        return (m, Double(biased - 1023))
    }

    /// Base-10 logarithm.
    public static func log10(_ x: Double) -> Double { log(x) / ln10 }

    /// e^x. Overflows to +inf, underflows to 0.
    public static func exp(_ x: Double) -> Double {
        if x.isNaN { return .nan }
        if x > 709.8 { return .infinity }
        if x < -745.2 { return 0 }
        // x = k ln2 + r, |r| <= ln2 / 2; e^r by its Taylor series.
        let k = (x / ln2).rounded()
        let r = x - k * ln2
        var term = 1.0
        var sum = 1.0
        for i in 1...18 {
            term *= r / Double(i)
            sum += term
        }
        return scale(sum, byPowerOfTwo: Int(k))
    }

    /// a^b for a > 0.
    public static func pow(_ a: Double, _ b: Double) -> Double { exp(b * log(a)) }

    /// The modified Bessel function of the first kind, order 0 (Kaiser windows), by its series.
    public static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0, k = 1.0
        while term > 1e-12 * sum {
            term *= (x / (2 * k)) * (x / (2 * k))
            sum += term
            k += 1
        }
        return sum
    }

    /// Cosine of x (radians).
    public static func cos(_ x: Double) -> Double {
        guard x.isFinite else { return .nan }
        // Reduce to [-pi, pi], then to [0, pi/2] by symmetry: cos(pi - y) = -cos(y).
        let twoPi = 2 * Double.pi
        var y = x - (x / twoPi).rounded() * twoPi
        y = abs(y)
        var sign = 1.0
        if y > Double.pi / 2 {
            y = Double.pi - y
            sign = -1
        }
        let y2 = y * y
        var term = 1.0
        var sum = 1.0
        var i = 0.0
        for _ in 0..<12 {
            term *= -y2 / ((i + 1) * (i + 2))
            sum += term
            i += 2
        }
        return sign * sum
    }

    /// Sine of x (radians), as cos(pi/2 - x).
    public static func sin(_ x: Double) -> Double { cos(Double.pi / 2 - x) }

    /// Tangent of x (radians); used for filter design (bilinear pre-warping).
    public static func tan(_ x: Double) -> Double { sin(x) / cos(x) }

    private static func scale(_ v: Double, byPowerOfTwo k: Int) -> Double {
        // Two steps keep intermediate factors finite near the ends of the range.
        let half = k / 2
        return v * Double(sign: .plus, exponent: half, significand: 1)
            * Double(sign: .plus, exponent: k - half, significand: 1)
    }
}
