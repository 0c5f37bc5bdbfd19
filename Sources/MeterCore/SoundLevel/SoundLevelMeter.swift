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
    /// The C weighting's two sections (for the peak, and the way to A) and the section from C
    /// to A; their states per pair of channels (SIMD2 lanes), six values each.
    private let c0: BiquadCascade.Section, c1: BiquadCascade.Section, toA: BiquadCascade.Section
    private var filterState: [SIMD2<Double>]
    private let rise: Double
    private let decay: Double
    private let impulse: Bool
    private let settle: Int
    private var count = 0
    /// Per channel: the time-weighted mean square (for I, the peak-held one and its 35 ms average).
    private var level: [Double]
    private var average: [Double]
    private var squares: [Double]
    private var maxLevel: [Double]
    private var minLevel: [Double]
    private var peak: [Float]
    private var histograms: [LevelHistogram]

    public init(settings: SoundLevelSettings, rate: Int, channels: Int) {
        self.settings = settings
        self.channels = channels
        let c = FrequencyWeighting.c.sections(rate: rate)
        (c0, c1, toA) = (c[0], c[1], FrequencyWeighting.cToA(rate: rate))
        filterState = Array(repeating: .zero, count: 6 * ((channels + 1) / 2))
        rise = 1 - PureMath.exp(-1 / (settings.timeWeighting.seconds * Double(rate)))
        decay = PureMath.exp(-1 / (TimeWeighting.impulseDecaySeconds * Double(rate)))
        impulse = settings.timeWeighting == .impulse
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
    /// so each sample's wait on the filters' recursion serves two channels.
    public func push(_ planar: UnsafePointer<Float>, channelStride: Int, count n: Int) {
        guard n > 0 else { return }
        for c in stride(from: 0, to: channels, by: 2) {
            let second = min(c + 1, channels - 1)
            run(pair: c / 2, planar + c * channelStride, planar + second * channelStride, n, lanes: (c, second))
        }
        count += n
    }

    /// One section on one sample for both lanes (transposed direct form II).
    @inline(__always)
    private static func step(_ v: SIMD2<Double>, _ s: BiquadCascade.Section,
                             _ z1: inout SIMD2<Double>, _ z2: inout SIMD2<Double>) -> SIMD2<Double> {
        let y = s.b0 * v + z1
        z1 = s.b1 * v - s.a1 * y + z2
        z2 = s.b2 * v - s.a2 * y
        return y
    }

    /// The weightings, the peak and the time weighting over `m` samples of two channels.
    private func run(pair: Int, _ left: UnsafePointer<Float>, _ right: UnsafePointer<Float>, _ m: Int, lanes: (Int, Int)) {
        let (l, r) = lanes
        var y = SIMD2(level[l], level[r]), e35 = SIMD2(average[l], average[r]), sum = SIMD2(squares[l], squares[r])
        var hi = SIMD2(maxLevel[l], maxLevel[r]), lo = SIMD2(minLevel[l], minLevel[r])
        var pk = SIMD2(Double(peak[l]), Double(peak[r]))
        let base = 6 * pair
        var (a, b, c, d, e, f) = (filterState[base], filterState[base + 1], filterState[base + 2],
                                  filterState[base + 3], filterState[base + 4], filterState[base + 5])
        let k = rise, dk = decay, weighting = settings.weighting, impulse = self.impulse
        let s0 = c0, s1 = c1, s2 = toA
        // Samples from `from` on come after the settling time.
        let from = max(0, min(m, settle - count))
        for i in 0..<m {
            let x = SIMD2(Double(left[i]), Double(right[i]))
            let cw = Self.step(Self.step(x, s0, &a, &b), s1, &c, &d)
            pk = pointwiseMax(pk, pointwiseMax(cw, -cw))
            let w: SIMD2<Double>
            switch weighting {
            case .z: w = x
            case .c: w = cw
            case .a: w = Self.step(cw, s2, &e, &f)
            }
            let sq = w * w
            sum += sq
            if impulse {
                e35 += k * (sq - e35)
                y = pointwiseMax(e35, y * dk)
            } else {
                y += k * (sq - y)
            }
            hi = pointwiseMax(hi, y)
            if i >= from { lo = pointwiseMin(lo, y) }
        }
        // A decaying state would reach subnormal numbers, slow on every CPU; below 1e-30
        // (600 dB under full scale) it is zero.
        func flush(_ v: inout SIMD2<Double>) { v.replace(with: 0, where: (v .< 1e-30) .& (v .> -1e-30)) }
        flush(&a); flush(&b); flush(&c); flush(&d); flush(&e); flush(&f)
        (filterState[base], filterState[base + 1], filterState[base + 2]) = (a, b, c)
        (filterState[base + 3], filterState[base + 4], filterState[base + 5]) = (d, e, f)
        func store(_ lane: Int, _ ch: Int) {
            level[ch] = y[lane]
            average[ch] = e35[lane]
            squares[ch] = sum[lane]
            maxLevel[ch] = hi[lane]
            minLevel[ch] = lo[lane]
            peak[ch] = Float(pk[lane])
        }
        // Lane 1 of a last odd channel repeats lane 0: storing it first, then lane 0, is harmless.
        store(1, r)
        store(0, l)
    }

    /// A dBFS level shifted by the calibration; digital silence stays at the floor.
    private func reported(_ dbfs: Double) -> Double {
        dbfs <= Decibels.floor ? Decibels.floor : max(Decibels.floor, min(Decibels.ceiling, dbfs + settings.offsetDb))
    }

    /// The time-weighted level and Leq per channel now; the reading counts for the
    /// percentiles once the detector has settled.
    public func reading() -> SoundLevelReading {
        var spl: [Double] = [], leq: [Double] = []
        for c in 0..<channels {
            let db = Decibels.fromPower(level[c])
            if count >= settle { histograms[c].add(db) }
            spl.append(reported(db))
            leq.append(reported(count > 0 ? Decibels.fromPower(squares[c] / Double(count)) : Decibels.floor))
        }
        return SoundLevelReading(splDb: spl, leqDb: leq)
    }

    /// The whole stream's figures, given the stream's `rate`.
    public func summary(rate: Int) -> SoundLevelSummary {
        var s = SoundLevelSummary(channels: channels)
        for c in 0..<channels {
            let leq = count > 0 ? Decibels.fromPower(squares[c] / Double(count)) : Decibels.floor
            s.leqDb[c] = reported(leq)
            s.selDb[c] = reported(Decibels.fromPower(squares[c] / Double(rate)))
            s.lmaxDb[c] = reported(Decibels.fromPower(maxLevel[c]))
            // Shorter than the settling time: the lowest is the level at the end.
            let lo = minLevel[c].isFinite ? minLevel[c] : level[c]
            s.lminDb[c] = reported(Decibels.fromPower(lo))
            s.lpeakDb[c] = reported(Decibels.fromAmplitude(Double(peak[c])))
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
