/// The frequency weightings of IEC 61672-1 (A, C and Z), designed for the actual sample rate.
///
/// The analog weightings have poles at f1 = 20.6 Hz (double), f2 = 107.7 Hz, f3 = 737.9 Hz
/// and f4 = 12194 Hz (double), computed here from the standard's own constants (fr = 1 kHz,
/// fL = 10^1.5 Hz, fH = 10^3.9 Hz, D^2 = 1/2, fA = 10^2.45 Hz), and zeros at 0 Hz (four for A,
/// two for C); Z is flat.
///
/// The high-pass poles (f1, f2, f3) lie far below Nyquist and go through the bilinear
/// transform, each prewarped at its own frequency. The f4 pair does not: the bilinear
/// transform maps the analog response at infinity to Nyquist, so it puts a double zero there
/// and bends the top octaves down (designed so at 48 kHz, A reads 1.2 dB low at 10 kHz,
/// 6.4 dB at 16 kHz and 16 dB at 20 kHz; at 44.1 kHz 1.5, 8.5 and 25 dB). That pair is
/// designed instead by matched z (poles at exp(-2 pi f4 / rate)) with a numerator whose
/// magnitude matches the analog one exactly at 0 Hz, at f4 (or a quarter of the rate, when
/// f4 is near Nyquist) and at Nyquist. At 44.1 and 48 kHz the whole weighting then stays
/// within 0.15 dB of the standard's formula up to 12.5 kHz and within 0.9 dB at 16 and
/// 20 kHz (class 1 allows -16 dB and -infinity there); at 96 kHz within 0.08 dB. Finally
/// the chain is scaled to read exactly 0 dB at 1 kHz, as the standard normalizes it.
public enum FrequencyWeighting: String, Sendable, CaseIterable {
    case a = "A", c = "C", z = "Z"

    /// The analog poles f1, f2, f3, f4 in Hz, from the constants of IEC 61672-1 (5.4.11-14).
    public static let poles: (f1: Double, f2: Double, f3: Double, f4: Double) = {
        let fr = 1000.0, fL = PureMath.pow(10, 1.5), fH = PureMath.pow(10, 3.9)
        let d = (0.5).squareRoot(), fA = PureMath.pow(10, 2.45)
        let b = (1 / (1 - d)) * (fr * fr + fL * fL * fH * fH / (fr * fr) - d * (fL * fL + fH * fH))
        let c = fL * fL * fH * fH
        let root = (b * b - 4 * c).squareRoot()
        return (((-b - root) / 2).squareRoot(), (3 - (5.0).squareRoot()) / 2 * fA,
                (3 + (5.0).squareRoot()) / 2 * fA, ((-b + root) / 2).squareRoot())
    }()

    /// The weighting as biquad sections for a stream of `rate` Hz, 0 dB at 1 kHz (none for Z).
    /// A is C followed by `cToA` (A's poles are C's and f2, f3), so the meter gets the
    /// C-weighted signal for the peak on the way to A.
    public func sections(rate: Int) -> [BiquadCascade.Section] {
        let p = Self.poles
        switch self {
        case .z: return []
        case .c:
            return Self.normalized([Self.highPassPair(p.f1, p.f1, rate: rate), Self.matchedLowPass(p.f4, rate: rate)], rate: rate)
        case .a:
            return Self.c.sections(rate: rate) + [Self.cToA(rate: rate)]
        }
    }

    /// The section that turns the C-weighted signal into the A-weighted one: the f2 and f3
    /// poles (with two zeros at 0 Hz), 0 dB at 1 kHz.
    public static func cToA(rate: Int) -> BiquadCascade.Section {
        normalized([highPassPair(poles.f2, poles.f3, rate: rate)], rate: rate)[0]
    }

    /// `list` scaled to 0 dB at 1 kHz (its first section's numerator).
    static func normalized(_ list: [BiquadCascade.Section], rate: Int) -> [BiquadCascade.Section] {
        var list = list
        let g = BiquadCascade.powerGain(of: list, atHz: 1000, rate: rate)
        list[0] = list[0].scaled(by: 1 / g.squareRoot())
        return list
    }

    /// s/(s + 2 pi fa) times s/(s + 2 pi fb), each by the bilinear transform prewarped at its
    /// pole, as one section.
    static func highPassPair(_ fa: Double, _ fb: Double, rate: Int) -> BiquadCascade.Section {
        func first(_ f: Double) -> (b: Double, a: Double) {
            let k = PureMath.tan(Double.pi * f / Double(rate))
            return (1 / (1 + k), (k - 1) / (k + 1))
        }
        let x = first(fa), y = first(fb)
        // (g (1 - z^-1)) (h (1 - z^-1)) / ((1 + ax z^-1)(1 + ay z^-1))
        let g = x.b * y.b
        return BiquadCascade.Section(b0: g, b1: -2 * g, b2: g, a1: x.a + y.a, a2: x.a * y.a)
    }

    /// (2 pi f / (s + 2 pi f))^2 by matched z, its numerator fitted to the analog magnitude
    /// at 0 Hz, at f (or rate/4 when f is above 0.45 x rate) and at Nyquist.
    static func matchedLowPass(_ f: Double, rate: Int) -> BiquadCascade.Section {
        let fs = Double(rate)
        let w0 = 2 * Double.pi * f / fs
        let pole = PureMath.exp(-w0)
        let a1 = -2 * pole, a2 = pole * pole
        func analog(_ w: Double) -> Double {
            let hz = w * fs / (2 * Double.pi)
            let r = f * f / (hz * hz + f * f)
            return r * r
        }
        func phis(_ w: Double) -> (Double, Double, Double) {
            let s = PureMath.sin(w / 2)
            let p1 = s * s
            return (1 - p1, p1, 4 * (1 - p1) * p1)
        }
        let a0sq = (1 + a1 + a2) * (1 + a1 + a2), a1sq = (1 - a1 + a2) * (1 - a1 + a2), a2sq = -4 * a2
        let bb0 = a0sq * analog(0)
        let bb1 = a1sq * analog(Double.pi)
        let wm = w0 < 0.9 * Double.pi ? w0 : Double.pi / 2
        let (p0, p1, p2) = phis(wm)
        let bb2 = (analog(wm) * (a0sq * p0 + a1sq * p1 + a2sq * p2) - bb0 * p0 - bb1 * p1) / p2
        // Factor (b0+b1+b2)^2 = bb0, (b0-b1+b2)^2 = bb1, -4 b0 b2 = bb2 into b0, b1, b2.
        let w = (bb0.squareRoot() + bb1.squareRoot()) / 2
        let b0 = (w + max(0, w * w + bb2).squareRoot()) / 2
        let b1 = (bb0.squareRoot() - bb1.squareRoot()) / 2
        return BiquadCascade.Section(b0: b0, b1: b1, b2: -bb2 / (4 * b0), a1: a1, a2: a2)
    }
}
