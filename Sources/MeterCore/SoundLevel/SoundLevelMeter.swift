/// The sound level meter of one stream, per channel: the frequency-weighted signal, its
/// time-weighted level (e.g. LAF) and its equivalent continuous level (Leq) since the start
/// at every frame; at the end Leq, the highest and lowest time-weighted level, the
/// C-weighted peak (LCpeak), the sound exposure level (SEL, re 1 s) and the levels exceeded
/// 10, 50 and 90 % of the time.
///
/// The time-weighted level is updated at every sample (so Lmax catches a toneburst's true
/// maximum, as IEC 61672-1's toneburst tests ask); the detector starts from zero, as a
/// meter switched on, so Lmin and the percentiles count only what comes after five time
/// constants (`TimeWeighting.settlingSamples`). Percentiles are of the frame readings,
/// histogrammed in 0.05 dB bins (`LevelHistogram`), so memory stays flat however long the
/// stream. Levels are computed in dBFS and shifted by the calibration when reported.
public final class SoundLevelMeter {
    public let settings: SoundLevelSettings
    public let channels: Int
    /// The C weighting's two sections (the way to A, and the peak) and the section from C to
    /// A, each with its numerator's gain taken out (1, -2, 1 for the two high-pass pairs; 1,
    /// b1, b2 for the low-pass): the gains scale the detector's squares instead (`power`) and
    /// the peak (`gainC`), which saves five multiplies a sample.
    private let c0: BiquadCascade.Section, c1: BiquadCascade.Section, toA: BiquadCascade.Section
    /// The power gain taken out of the signal the detector gets (A's, C's, or 1 for Z), and
    /// the amplitude gain taken out of C's.
    private let power: Double, gainC: Double
    /// Per pair of channels (SIMD2 lanes): the three sections' states, two values each
    /// (transposed direct form II).
    private var filterState: [SIMD2<Double>]
    private let rise: Double
    /// I's peak detector decays by this factor per sample; 0 for F and S, whose level is then
    /// the exponential average itself.
    private let decay: Double
    private let settle: Int
    private var count = 0
    /// Per channel: the time-weighted mean square (for I, the peak-held one and its 35 ms average).
    private var level: [Double]
    private var average: [Double]
    /// The sum of squares of the weighted signal with its gain taken out (times `power`: the real one).
    private var squares: [Double]
    private var maxLevel: [Double]
    private var minLevel: [Double]
    /// The highest magnitude of the C-weighted signal (gain taken out).
    private var peak: [Double]
    private var histograms: [LevelHistogram]

    public init(settings: SoundLevelSettings, rate: Int, channels: Int) {
        self.settings = settings
        self.channels = channels
        let c = FrequencyWeighting.c.sections(rate: rate), a = FrequencyWeighting.cToA(rate: rate)
        // The high-pass pairs' numerators are g (1, -2, 1) (`FrequencyWeighting.highPassPair`).
        precondition([c[0], a].allSatisfy { $0.b1 == -2 * $0.b0 && $0.b2 == $0.b0 })
        c0 = c[0]
        c1 = c[1].scaled(by: 1 / c[1].b0)
        toA = a
        gainC = c[0].b0 * c[1].b0
        switch settings.weighting {
        case .a: power = (gainC * a.b0) * (gainC * a.b0)
        case .c: power = gainC * gainC
        case .z: power = 1
        }
        filterState = Array(repeating: .zero, count: 6 * ((channels + 1) / 2))
        rise = 1 - PureMath.exp(-1 / (settings.timeWeighting.seconds * Double(rate)))
        decay = settings.timeWeighting == .impulse ? PureMath.exp(-1 / (TimeWeighting.impulseDecaySeconds * Double(rate))) : 0
        settle = settings.timeWeighting.settlingSamples(rate: rate)
        level = Array(repeating: 0, count: channels)
        average = Array(repeating: 0, count: channels)
        squares = Array(repeating: 0, count: channels)
        maxLevel = Array(repeating: 0, count: channels)
        minLevel = Array(repeating: .infinity, count: channels)
        peak = Array(repeating: 0, count: channels)
        histograms = Array(repeating: LevelHistogram(), count: channels)
    }

    /// Adds `n` frames given per channel: channel c's samples at `planar + c * channelStride`.
    /// Channels go two at a time, side by side in SIMD2 lanes (a last odd channel fills both),
    /// so each sample's wait on the filters' recursion serves two channels. The loop is
    /// inlined once per weighting and per detector kind, so neither is a branch inside it.
    public func push(_ planar: UnsafePointer<Float>, channelStride: Int, count n: Int) {
        guard n > 0 else { return }
        for c in stride(from: 0, to: channels, by: 2) {
            let second = min(c + 1, channels - 1), lanes = (c, second)
            let left = planar + c * channelStride, right = planar + second * channelStride
            switch (settings.weighting, decay > 0) {
            case (.a, false): measure(pair: c / 2, left, right, n, lanes: lanes, taking: .a, holding: false)
            case (.a, true): measure(pair: c / 2, left, right, n, lanes: lanes, taking: .a, holding: true)
            case (.c, false): measure(pair: c / 2, left, right, n, lanes: lanes, taking: .c, holding: false)
            case (.c, true): measure(pair: c / 2, left, right, n, lanes: lanes, taking: .c, holding: true)
            case (.z, false): measure(pair: c / 2, left, right, n, lanes: lanes, taking: .z, holding: false)
            case (.z, true): measure(pair: c / 2, left, right, n, lanes: lanes, taking: .z, holding: true)
            }
        }
        count += n
    }

    /// A high-pass pair (numerator 1 - 2 z^-1 + z^-2) on one sample of both lanes, transposed
    /// direct form II: its output, its state moved on.
    @inline(__always)
    private static func highPass(_ x: SIMD2<Double>, _ s: BiquadCascade.Section,
                                 _ z1: inout SIMD2<Double>, _ z2: inout SIMD2<Double>) -> SIMD2<Double> {
        let y = x + z1
        z1 = z2 - (x + x) - s.a1 * y
        z2 = x - s.a2 * y
        return y
    }

    /// A section with the numerator 1 + b1 z^-1 + b2 z^-2, likewise.
    @inline(__always)
    private static func section(_ x: SIMD2<Double>, _ s: BiquadCascade.Section,
                                _ z1: inout SIMD2<Double>, _ z2: inout SIMD2<Double>) -> SIMD2<Double> {
        let y = x + z1
        z1 = s.b1 * x - s.a1 * y + z2
        z2 = s.b2 * x - s.a2 * y
        return y
    }

    /// `m` samples of two channels in one pass, no branch on the data: the weightings (the one
    /// `taking` says goes on), the C-weighted signal's magnitude for the peak, and the time
    /// weighting: the sum of squares, the level at every sample and its extremes. F and S:
    /// y = (1 - k) y + k x^2; I (`holding`): that average, peak-held, decaying. The weighting's
    /// recursion and the detector's depend on each other only forwards, so in one loop the
    /// processor overlaps their waits.
    @inline(__always)
    private func measure(pair: Int, _ left: UnsafePointer<Float>, _ right: UnsafePointer<Float>, _ m: Int,
                         lanes: (Int, Int), taking weighting: FrequencyWeighting, holding: Bool) {
        let (l, r) = lanes
        let base = 6 * pair
        var (a, b, c, d, e, f) = (filterState[base], filterState[base + 1], filterState[base + 2],
                                  filterState[base + 3], filterState[base + 4], filterState[base + 5])
        var peakC = SIMD2(peak[l], peak[r])
        let magnitude = SIMD2<UInt64>(repeating: ~(1 << 63))
        var y = SIMD2(level[l], level[r]), e35 = SIMD2(average[l], average[r]), sum = SIMD2(squares[l], squares[r])
        var hi = SIMD2(maxLevel[l], maxLevel[r]), lo = SIMD2(minLevel[l], minLevel[r])
        let k = rise * power, keep = 1 - rise, dk = decay
        let s0 = c0, s1 = c1, s2 = toA
        // Samples from `from` on come after the settling time.
        let from = max(0, min(m, settle - count))
        for i in 0..<m {
            let x = SIMD2(Double(left[i]), Double(right[i]))
            let cw = Self.section(Self.highPass(x, s0, &a, &b), s1, &c, &d)
            // |cw| by clearing the sign bits: one compare and select for the peak, not two.
            let size = unsafeBitCast(unsafeBitCast(cw, to: SIMD2<UInt64>.self) & magnitude, to: SIMD2<Double>.self)
            peakC = peakC.replacing(with: size, where: size .> peakC)
            let w: SIMD2<Double>
            switch weighting {
            case .a: w = Self.highPass(cw, s2, &e, &f)
            case .c: w = cw
            case .z: w = x
            }
            let sq = w * w
            sum += sq
            e35 = keep * e35 + k * sq
            if holding {
                let held = dk * y
                y = e35.replacing(with: held, where: held .> e35)
            } else {
                y = e35
            }
            hi = hi.replacing(with: y, where: y .> hi)
            if i >= from { lo = lo.replacing(with: y, where: y .< lo) }
        }
        // A decaying state would reach subnormal numbers, slow on every CPU; below 1e-30
        // (600 dB under full scale) it is zero.
        func flush(_ v: inout SIMD2<Double>) { v.replace(with: 0, where: (v .< 1e-30) .& (v .> -1e-30)) }
        flush(&a); flush(&b); flush(&c); flush(&d); flush(&e); flush(&f)
        (filterState[base], filterState[base + 1], filterState[base + 2]) = (a, b, c)
        (filterState[base + 3], filterState[base + 4], filterState[base + 5]) = (d, e, f)
        func store(_ lane: Int, _ ch: Int) {
            peak[ch] = peakC[lane]
            level[ch] = y[lane]
            average[ch] = e35[lane]
            squares[ch] = sum[lane]
            maxLevel[ch] = hi[lane]
            minLevel[ch] = lo[lane]
        }
        // Lane 1 of a last odd channel repeats lane 0: storing it first, then lane 0, is harmless.
        store(1, r)
        store(0, l)
    }

    /// A dBFS level shifted by the calibration, the floor with it (digital silence reads
    /// -160 plus the calibration).
    private func reported(_ dbfs: Double) -> Double {
        Decibels.calibrated(dbfs, offset: settings.offsetDb)
    }

    /// The time-weighted level and Leq per channel now; the reading counts for the
    /// percentiles once the detector has settled.
    public func reading() -> SoundLevelReading {
        var spl: [Double] = [], leq: [Double] = []
        for c in 0..<channels {
            let db = Decibels.fromPower(level[c])
            if count >= settle { histograms[c].add(db) }
            spl.append(reported(db))
            leq.append(reported(count > 0 ? Decibels.fromPower(power * squares[c] / Double(count)) : Decibels.floor))
        }
        return SoundLevelReading(splDb: spl, leqDb: leq)
    }

    /// The whole stream's figures, given the stream's `rate`.
    public func summary(rate: Int) -> SoundLevelSummary {
        var s = SoundLevelSummary(channels: channels)
        for c in 0..<channels {
            let leq = count > 0 ? Decibels.fromPower(power * squares[c] / Double(count)) : Decibels.floor
            s.leqDb[c] = reported(leq)
            s.selDb[c] = reported(Decibels.fromPower(power * squares[c] / Double(rate)))
            s.lmaxDb[c] = reported(Decibels.fromPower(maxLevel[c]))
            // Shorter than the settling time: the lowest is the level at the end.
            let lo = minLevel[c].isFinite ? minLevel[c] : level[c]
            s.lminDb[c] = reported(Decibels.fromPower(lo))
            s.lpeakDb[c] = reported(Decibels.fromAmplitude(peak[c] * gainC))
            let h = histograms[c]
            func ln(_ p: Double) -> Double { reported(h.exceeded(percent: p) ?? Decibels.fromPower(level[c])) }
            s.ln[c] = SoundLevelSummary.Percentiles(l10: ln(10), l50: ln(50), l90: ln(90))
        }
        return s
    }
}

/// One frame's sound levels (NDJSON `spl_db`, `leq_db`), per channel, in the meter's unit.
public struct SoundLevelReading: Sendable, Equatable {
    public var splDb: [Double]
    public var leqDb: [Double]

    public init(splDb: [Double], leqDb: [Double]) {
        self.splDb = splDb
        self.leqDb = leqDb
    }
}

/// The whole stream's sound levels (the `end` line), per channel.
public struct SoundLevelSummary: Sendable, Equatable {
    public struct Percentiles: Sendable, Equatable {
        public var l10, l50, l90: Double
    }
    public var leqDb: [Double]
    public var lmaxDb: [Double]
    public var lminDb: [Double]
    /// The C-weighted peak (LCpeak).
    public var lpeakDb: [Double]
    /// Sound exposure level, re 1 s: Leq + 10 log10(duration / 1 s).
    public var selDb: [Double]
    public var ln: [Percentiles]

    public init(channels: Int) {
        let floor = Array(repeating: Decibels.floor, count: channels)
        leqDb = floor
        lmaxDb = floor
        lminDb = floor
        lpeakDb = floor
        selDb = floor
        ln = Array(repeating: Percentiles(l10: Decibels.floor, l50: Decibels.floor, l90: Decibels.floor), count: channels)
    }
}
