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
    /// Per channel the C weighting (for the peak, and the way to A), and with A the section
    /// from C to A.
    private let cWeighting: [BiquadCascade]
    private let cToA: [BiquadCascade]?
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
    private let scratch: UnsafeMutablePointer<Float>
    private let peakScratch: UnsafeMutablePointer<Float>
    private let scratchCapacity = 4096

    public init(settings: SoundLevelSettings, rate: Int, channels: Int) {
        self.settings = settings
        self.channels = channels
        let c = FrequencyWeighting.c.sections(rate: rate)
        cWeighting = (0..<channels).map { _ in BiquadCascade(c) }
        cToA = settings.weighting == .a ? (0..<channels).map { _ in BiquadCascade([FrequencyWeighting.cToA(rate: rate)]) } : nil
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
        scratch = .allocate(capacity: scratchCapacity)
        peakScratch = .allocate(capacity: scratchCapacity)
    }

    deinit {
        scratch.deallocate()
        peakScratch.deallocate()
    }

    /// Adds `n` frames given per channel: channel c's samples at `planar + c * channelStride`.
    public func push(_ planar: UnsafePointer<Float>, channelStride: Int, count n: Int) {
        var done = 0
        while done < n {
            let m = min(n - done, scratchCapacity)
            for c in 0..<channels {
                let input = planar + c * channelStride + done
                cWeighting[c].process(input, count: m, into: peakScratch)
                let p = UnsafePointer(peakScratch)
                let w: UnsafePointer<Float>
                switch settings.weighting {
                case .z: w = input
                case .c: w = p
                case .a:
                    cToA![c].process(p, count: m, into: scratch)
                    w = UnsafePointer(scratch)
                }
                var pk = peak[c]
                for i in 0..<m { pk = max(pk, abs(p[i])) }
                peak[c] = pk
                run(c, w, m)
            }
            done += m
            count += m
        }
    }

    /// The time weighting over `m` weighted samples of channel `c`, with the running sums.
    private func run(_ c: Int, _ w: UnsafePointer<Float>, _ m: Int) {
        var y = level[c], e35 = average[c], sum = squares[c], hi = maxLevel[c], lo = minLevel[c]
        let k = rise, d = decay
        // Samples from `from` on come after the settling time.
        let from = max(0, min(m, settle - count))
        for i in 0..<m {
            let x = Double(w[i])
            let e = x * x
            sum += e
            if impulse {
                e35 += k * (e - e35)
                y = max(e35, y * d)
            } else {
                y += k * (e - y)
            }
            hi = max(hi, y)
            if i >= from { lo = min(lo, y) }
        }
        level[c] = y
        average[c] = e35
        squares[c] = sum
        maxLevel[c] = hi
        minLevel[c] = lo
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
