/// A fractional-octave filter bank (IEC 61260-1, class 1) over the mono mix: each band an
/// 8th-order Butterworth band-pass (four biquads, designed by the bilinear transform with
/// both edges prewarped, 0 dB at the midband), run at the lowest rate that holds it. Fourth
/// order, not third: the bilinear transform squeezes the upper side of a band that lies high
/// in its stage's range and stretches the lower side, and a third-order band-pass then misses
/// the class 1 mask below the band by 3-7 dB (at G^2 and G^3) once its upper edge passes a
/// quarter of the rate; the fourth order meets it up to 0.95 x Nyquist.
///
/// The top bands (upper edge above a fifth of the rate) run at the input rate; each further
/// stage halves the rate (a half-band FIR low-pass, then every second sample) and takes the
/// bands whose upper edge lies between a fifth and two fifths of its rate. Every band thus
/// sits at the same place relative to its stage's Nyquist, and the whole bank costs about
/// twice its top stage however many octaves it spans. The low-pass passes the stage's bands
/// (up to 0.2 x its input rate) and attenuates by 80 dB all that would fold onto them (from
/// 0.3 x its input rate).
///
/// Each band's output is squared into an exponential time weighting (the sound level
/// meter's, F unless said otherwise) for the frame's level, and summed for the band's mean
/// power over the stream (the `end` line).
public final class OctaveFilterBank {
    public let layout: OctaveBands
    public let rate: Int

    /// One rate of the bank: its bands' filters and detectors, and the decimator feeding the next.
    private final class Stage {
        let rate: Double
        let bands: [Int]
        let filters: [BiquadCascade]
        let rise: Double
        var level: [Double]
        var squares: [Double]
        var count = 0
        init(rate: Double, bands: [Int], filters: [BiquadCascade], tau: Double) {
            self.rate = rate
            self.bands = bands
            self.filters = filters
            rise = 1 - PureMath.exp(-1 / (tau * rate))
            level = Array(repeating: 0, count: bands.count)
            squares = Array(repeating: 0, count: bands.count)
        }
    }

    private let stages: [Stage]
    private let decimators: [HalfBandDecimator]
    /// Per stage, a buffer for its input (stage 0: the caller's) and for one band's output.
    private let inputs: [UnsafeMutablePointer<Float>]
    private let work: UnsafeMutablePointer<Float>
    private let blockCapacity = BiquadCascade.blockCapacity
    /// dB added to each band: a microphone's response, subtracted.
    private let corrections: [Double]

    public init(fraction: Int, rate: Int, timeWeighting: TimeWeighting = .fast, micCalibration: MicCalibration? = nil) {
        let layout = OctaveBands(fraction: fraction, rate: rate)
        self.layout = layout
        self.rate = rate
        var stages: [Stage] = []
        var r = Double(rate)
        var remaining = Array(0..<layout.count)
        while !remaining.isEmpty {
            let top = stages.isEmpty
            let mine = remaining.filter { top ? layout.bands[$0].upper > 0.2 * r : layout.bands[$0].upper > 0.2 * r && layout.bands[$0].upper <= 0.4 * r }
            let filters = mine.map { BiquadCascade(Self.bandPass(layout.bands[$0], rate: r)) }
            stages.append(Stage(rate: r, bands: mine, filters: filters, tau: timeWeighting.seconds))
            remaining.removeAll { mine.contains($0) }
            r /= 2
        }
        self.stages = stages
        decimators = (1..<max(1, stages.count)).map { _ in HalfBandDecimator() }
        inputs = stages.map { _ in UnsafeMutablePointer<Float>.allocate(capacity: BiquadCascade.blockCapacity) }
        work = .allocate(capacity: BiquadCascade.blockCapacity)
        corrections = micCalibration.map { cal in layout.bands.map { -cal.response(atHz: $0.mid) } }
            ?? Array(repeating: 0, count: layout.count)
    }

    deinit {
        for p in inputs { p.deallocate() }
        work.deallocate()
    }

    /// An 8th-order Butterworth band-pass from `band.lower` to `band.upper` for `rate`, as four
    /// biquads, 0 dB at the midband.
    static func bandPass(_ band: OctaveBands.Band, rate: Double) -> [BiquadCascade.Section] {
        let k = 2 * rate
        let w1 = k * PureMath.tan(Double.pi * band.lower / rate), w2 = k * PureMath.tan(Double.pi * band.upper / rate)
        let w0sq = w1 * w2, bw = w2 - w1
        var sections: [BiquadCascade.Section] = []
        // The fourth-order low-pass prototype's poles in the upper half plane, at 5 pi/8 and 7 pi/8.
        for angle in [5 * Double.pi / 8, 7 * Double.pi / 8] {
            let lp = Complex(PureMath.cos(angle), PureMath.sin(angle))
            // s^2 - p B s + w0^2 = 0 for each prototype pole p.
            let pb = lp * bw
            let root = (pb * pb - Complex(4 * w0sq, 0)).squareRoot()
            for s in [(pb + root) * 0.5, (pb - root) * 0.5] {
                // Bilinear: z = (k + s) / (k - s); the section holds z and its conjugate.
                let z = (Complex(k, 0) + s) / (Complex(k, 0) - s)
                sections.append(BiquadCascade.Section(b0: 1, b1: 0, b2: -1, a1: -2 * z.re, a2: z.re * z.re + z.im * z.im))
            }
        }
        let g = BiquadCascade.powerGain(of: sections, atHz: band.mid, rate: Int(rate.rounded()))
        sections[0] = sections[0].scaled(by: 1 / g.squareRoot())
        return sections
    }

    /// Adds `n` mono samples.
    public func push(_ mono: UnsafePointer<Float>, count n: Int) {
        var done = 0
        while done < n {
            let m = min(n - done, blockCapacity)
            inputs[0].update(from: mono + done, count: m)
            run(stage: 0, count: m)
            done += m
        }
    }

    private func run(stage index: Int, count m: Int) {
        let stage = stages[index]
        let x = UnsafePointer(inputs[index])
        for (j, filter) in stage.filters.enumerated() {
            filter.process(x, count: m, into: work)
            var y = stage.level[j], sum = stage.squares[j]
            let k = stage.rise
            for i in 0..<m {
                let v = Double(work[i])
                let e = v * v
                sum += e
                y += k * (e - y)
            }
            stage.level[j] = y
            stage.squares[j] = sum
        }
        stage.count += m
        if index + 1 < stages.count {
            let out = decimators[index].process(x, count: m, into: inputs[index + 1])
            if out > 0 { run(stage: index + 1, count: out) }
        }
    }

    /// Each band's time-weighted level now, in dB (floored at -160), lowest band first.
    public func levels(into out: inout [Double]) {
        for stage in stages {
            for (j, b) in stage.bands.enumerated() { out[b] = corrected(stage.level[j], b) }
        }
    }

    /// Each band's mean power over the stream so far, in dB.
    public func meanLevels() -> [Double] {
        var out = Array(repeating: Decibels.floor, count: layout.count)
        for stage in stages where stage.count > 0 {
            for (j, b) in stage.bands.enumerated() { out[b] = corrected(stage.squares[j] / Double(stage.count), b) }
        }
        return out
    }

    private func corrected(_ power: Double, _ band: Int) -> Double {
        let db = Decibels.fromPower(power)
        return db <= Decibels.floor ? db : max(Decibels.floor, db + corrections[band])
    }
}

/// Halves the rate: a Kaiser-windowed half-band FIR low-pass (passband to 0.2, stopband from
/// 0.3 of the input rate at 80 dB), computed only at the kept samples.
final class HalfBandDecimator {
    static let taps: [Float] = {
        // Length 4m + 3 with the centre tap 0.5: every other tap is zero (a half-band filter).
        let n = 59, beta = 0.1102 * (80 - 8.7), mid = Double(n - 1) / 2
        func i0(_ x: Double) -> Double {
            var sum = 1.0, term = 1.0, k = 1.0
            while term > 1e-12 * sum {
                term *= (x / (2 * k)) * (x / (2 * k))
                sum += term
                k += 1
            }
            return sum
        }
        return (0..<n).map { i in
            let t = Double(i) - mid
            let sinc = t == 0 ? 0.5 : PureMath.sin(Double.pi * t / 2) / (Double.pi * t)
            let r = t / mid
            return Float(sinc * i0(beta * max(0, 1 - r * r).squareRoot()) / i0(beta))
        }
    }()

    private let history: UnsafeMutablePointer<Float>
    private var phase = 0
    private let length = HalfBandDecimator.taps.count

    init() {
        history = .allocate(capacity: length - 1 + BiquadCascade.blockCapacity)
        history.initialize(repeating: 0, count: length - 1 + BiquadCascade.blockCapacity)
    }

    deinit { history.deallocate() }

    /// Filters `n` samples and writes every second output to `out`; returns how many.
    func process(_ input: UnsafePointer<Float>, count n: Int, into out: UnsafeMutablePointer<Float>) -> Int {
        let keep = length - 1
        (history + keep).update(from: input, count: n)
        var produced = 0
        Self.taps.withUnsafeBufferPointer { h in
            var i = phase
            while i < n {
                // Output at input index i: sum of h[k] x[i - k], x[i - k] at history[keep + i - k].
                let base = history + i
                var acc: Float = h[keep / 2] * base[keep / 2]
                var k = 0
                while k < keep / 2 {
                    acc += h[k] * (base[keep - k] + base[k])
                    k += 2
                }
                out[produced] = acc
                produced += 1
                i += 2
            }
            phase = i - n
        }
        history.update(from: history + n, count: keep)
        return produced
    }
}

/// A complex number, for the band-pass design.
private struct Complex {
    var re: Double
    var im: Double
    init(_ re: Double, _ im: Double) {
        self.re = re
        self.im = im
    }
    static func + (a: Complex, b: Complex) -> Complex { Complex(a.re + b.re, a.im + b.im) }
    static func - (a: Complex, b: Complex) -> Complex { Complex(a.re - b.re, a.im - b.im) }
    static func * (a: Complex, b: Complex) -> Complex { Complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re) }
    static func * (a: Complex, s: Double) -> Complex { Complex(a.re * s, a.im * s) }
    static func / (a: Complex, b: Complex) -> Complex {
        let d = b.re * b.re + b.im * b.im
        return Complex((a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d)
    }
    /// The root with a non-negative real part.
    func squareRoot() -> Complex {
        let m = (re * re + im * im).squareRoot()
        let r = ((m + re) / 2).squareRoot(), i = ((m - re) / 2).squareRoot()
        return Complex(r, im < 0 ? -i : i)
    }
}
