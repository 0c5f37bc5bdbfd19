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
/// power over the stream (the `end` line). At the end of the input (`finish`) the signal still
/// inside the filters and decimators is run out into those sums: the lowest thirds at 48 kHz
/// trail the input by about 0.3 s, which a short file would otherwise lose.
public final class OctaveFilterBank {
    public let layout: OctaveBands
    public let rate: Int

    /// One rate of the bank: its bands' filters and detectors, and the decimator feeding the next.
    private final class Stage {
        let rate: Double
        /// The bands of this stage, four to a `QuadBandPass`.
        let bands: [Int]
        let quads: [QuadBandPass]
        let rise: Double
        var count = 0
        init(rate: Double, bands: [Int], sections: [[BiquadCascade.Section]], tau: Double) {
            self.rate = rate
            self.bands = bands
            quads = stride(from: 0, to: sections.count, by: 4).map { QuadBandPass(Array(sections[$0..<min($0 + 4, sections.count)])) }
            rise = 1 - PureMath.exp(-1 / (tau * rate))
        }
        /// Band j's (of this stage) time-weighted mean square and sum of squares.
        func level(_ j: Int) -> Double { quads[j / 4].level[j % 4] }
        func squares(_ j: Int) -> Double { quads[j / 4].squares[j % 4] }
    }

    private let stages: [Stage]
    private let decimators: [HalfBandDecimator]
    /// Per stage but the top one, a buffer for its input (the decimator's output); the top
    /// stage reads the caller's samples where they are.
    private let inputs: [UnsafeMutablePointer<Float>]
    private let blockCapacity = BiquadCascade.blockCapacity
    /// dB added to each band: a microphone's response, subtracted; then `offsetDb`, the
    /// calibration (`Decibels.calibrated`).
    private let corrections: [Double]
    private let offsetDb: Double
    /// Zero samples each stage runs at its own rate after the input (`finish`): its decimator
    /// span (59) and the ring-down of its narrowest band (a third whose upper edge is a fifth
    /// of the rate: bandwidth 0.041 x rate, slowest pole decaying by e^-(0.38 pi B t), its
    /// energy by e^-16 within 160 samples), with room to spare.
    static let tail = 512
    private var finished = false

    /// `micCalibration` and `offsetDb`: the sound level meter's calibration
    /// (`MeterSettings.levelOffsetDb`), which every band level is reported in.
    public init(fraction: Int, rate: Int, timeWeighting: TimeWeighting = .fast, micCalibration: MicCalibration? = nil,
                offsetDb: Double = 0) {
        self.offsetDb = offsetDb
        let layout = OctaveBands(fraction: fraction, rate: rate)
        self.layout = layout
        self.rate = rate
        var stages: [Stage] = []
        var r = Double(rate)
        var remaining = Array(0..<layout.count)
        while !remaining.isEmpty {
            let top = stages.isEmpty
            let mine = remaining.filter { top ? layout.bands[$0].upper > 0.2 * r : layout.bands[$0].upper > 0.2 * r && layout.bands[$0].upper <= 0.4 * r }
            stages.append(Stage(rate: r, bands: mine, sections: mine.map { Self.bandPass(layout.bands[$0], rate: r) },
                                tau: timeWeighting.seconds))
            remaining.removeAll { mine.contains($0) }
            r /= 2
        }
        self.stages = stages
        decimators = (1..<max(1, stages.count)).map { _ in HalfBandDecimator() }
        inputs = stages.dropFirst().map { _ in UnsafeMutablePointer<Float>.allocate(capacity: BiquadCascade.blockCapacity) }
        corrections = micCalibration.map { cal in layout.bands.map { -cal.response(atHz: $0.mid) } }
            ?? Array(repeating: 0, count: layout.count)
    }

    deinit {
        for p in inputs { p.deallocate() }
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
        precondition(!finished, "samples after the end of the input")
        var done = 0
        while done < n {
            let m = min(n - done, blockCapacity)
            run(stage: 0, mono + done, count: m)
            done += m
        }
    }

    /// The end of the input: each stage in turn, from the top, runs `tail` zeros, so that what
    /// its filters and the decimators above it still hold reaches its bands' sums. The mean
    /// levels stay normalized by the input's length. Once only; `push` may not follow.
    public func finish() {
        guard !finished else { return }
        finished = true
        let zeros = UnsafeMutablePointer<Float>.allocate(capacity: Self.tail)
        zeros.initialize(repeating: 0, count: Self.tail)
        defer { zeros.deallocate() }
        for index in stages.indices { run(stage: index, zeros, count: Self.tail, counting: false) }
    }

    /// Stage `index` over `m` samples at `x` (stage 0: the caller's; the others: what the
    /// decimator before them wrote into their input buffer); `counting`: input, not the tail.
    private func run(stage index: Int, _ x: UnsafePointer<Float>, count m: Int, counting: Bool = true) {
        let stage = stages[index]
        for quad in stage.quads { quad.process(x, count: m, rise: stage.rise) }
        if counting { stage.count += m }
        if index + 1 < stages.count {
            let out = decimators[index].process(x, count: m, into: inputs[index])
            if out > 0 { run(stage: index + 1, UnsafePointer(inputs[index]), count: out, counting: counting) }
        }
    }

    /// Each band's time-weighted level now, in dB (floored at -160 plus the calibration),
    /// lowest band first.
    public func levels(into out: inout [Double]) {
        for stage in stages {
            for (j, b) in stage.bands.enumerated() { out[b] = corrected(stage.level(j), b) }
        }
    }

    /// Each band's mean power over the stream so far (after `finish`: the whole stream's), in dB.
    public func meanLevels() -> [Double] {
        var out = Array(repeating: Decibels.floor + offsetDb, count: layout.count)
        for stage in stages where stage.count > 0 {
            for (j, b) in stage.bands.enumerated() { out[b] = corrected(stage.squares(j) / Double(stage.count), b) }
        }
        return out
    }

    private func corrected(_ power: Double, _ band: Int) -> Double {
        Decibels.calibrated(Decibels.fromPower(power), offset: offsetDb, correction: corrections[band])
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
