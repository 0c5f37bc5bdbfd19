/// EBU R128 loudness of one stream: at every meter frame momentary (the 400 ms ending at the
/// frame's `pos`), short-term (the 3 s ending there) and integrated so far; loudness range and
/// true peak so far; and the maxima of momentary and short-term.
///
/// Each counted channel is K-weighted once (`KWeighting`), and its squares kept in two
/// `RollingSquareSum`s, the same exact rolling sums the RMS levels use: a reading costs a few
/// hundred block sums, whatever the window. Everything else comes from those two sums at
/// every 100 ms step: the gating blocks of the integrated loudness (the momentary energies
/// from 400 ms on, as in BS.1770-4, into `IntegratedGate`) and the short-term values of the
/// loudness range (from 3 s on, ten a second as Tech 3342 asks since 2016, into
/// `LoudnessRange`). True peak (`TruePeakMeter`) oversamples every channel's own samples.
/// Windows are libebur128's, 4 and 30 times round(rate / 10) samples, with zeros before the
/// start (a stream's first 400 ms read lower, as they do in libebur128 and ffmpeg).
public final class LoudnessMeter {
    public let rate: Int
    public let channels: Int
    /// round(rate / 10) samples: the gating step.
    public let step: Int

    private var filters: [KWeighting]
    /// Channels that count (weight > 0) and their weights.
    private let counted: [Int]
    private let weights: [Double]
    /// The windows read at the 100 ms gating steps, and those read at the meter's frames: the
    /// same sums when the two grids share a large common step (48 kHz at 30 fps: 1,600
    /// samples), else sums of their own on each grid (8 kHz at 30 fps: hops of 267 samples
    /// against steps of 800 have no common step but the sample, and one set of sums read at
    /// every sample cost 50 times the K-weighting). A window's sum does not depend on its grid.
    private let momentary: [RollingSquareSum]
    private let shortTerm: [RollingSquareSum]
    private let frameMomentary: [RollingSquareSum]
    private let frameShortTerm: [RollingSquareSum]
    private let scratch: UnsafeMutablePointer<Float>
    private let scratchCapacity = TruePeakMeter.blockCapacity
    private var count = 0
    private var gate = IntegratedGate()
    private var loudnessRange = LoudnessRange()
    /// The range as of the last short-term value (nil: not computed since).
    private var rangeCache: Double?
    private let truePeak: TruePeakMeter
    /// The true peak of the last 3 s (live runs' `psr_db`); nil when not asked for.
    private let recentPeak: RecentTruePeak?
    /// The true peak of the samples since the last frame (periods' `true_peak_db`); nil when
    /// not asked for. Its own meter: the whole stream's keeps its peak.
    private let framePeak: TruePeakMeter?
    private var maxMomentaryEnergy = 0.0
    private var maxShortTermEnergy = 0.0

    /// `hop`: the meter's hop (nil: no frames, the summary only); readings come at its
    /// multiples, gating blocks at the 100 ms steps.
    /// `recentPeak`: also keep the true peak of the last 3 s (`recentTruePeakDb`).
    /// `framePeaks`: also the true peak of each frame's samples (`takeFrameTruePeakDb`).
    /// `dualMono`: a mono stream's channel counts twice (+3.01 LU), as the same audio on both
    /// channels of a stereo stream reads (BS.1770).
    public init(rate: Int, channels: Int, hop: Int? = nil, recentPeak: Bool = false, framePeaks: Bool = false,
                dualMono: Bool = false) {
        self.rate = rate
        self.channels = channels
        step = max(1, (rate + 5) / 10)
        let roles = LoudnessChannel.roles(channels: channels)
        counted = (0..<channels).filter { roles[$0].weight > 0 }
        weights = counted.map { channels == 1 && dualMono ? 2 * roles[$0].weight : roles[$0].weight }
        filters = counted.map { _ in KWeighting(rate: rate) }
        let gating = step, frameHop = max(1, hop ?? step), n = counted.count
        let grid = Self.gcd(gating, frameHop)
        let shared = grid * 4 >= min(gating, frameHop)
        func sums(_ window: Int, _ hop: Int) -> [RollingSquareSum] {
            (0..<n).map { _ in RollingSquareSum(window: window, hop: hop) }
        }
        momentary = sums(4 * gating, shared ? grid : gating)
        shortTerm = sums(30 * gating, shared ? grid : gating)
        frameMomentary = shared ? momentary : sums(4 * gating, frameHop)
        frameShortTerm = shared ? shortTerm : sums(30 * gating, frameHop)
        scratch = .allocate(capacity: scratchCapacity)
        truePeak = TruePeakMeter(rate: rate, channels: channels)
        self.recentPeak = recentPeak ? RecentTruePeak(rate: rate, channels: channels) : nil
        framePeak = framePeaks ? TruePeakMeter(rate: rate, channels: channels) : nil
    }

    deinit { scratch.deallocate() }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    /// Adds `n` frames given per channel: channel c's samples at `planar + c * channelStride`.
    public func push(_ planar: UnsafePointer<Float>, channelStride: Int, count n: Int) {
        var done = 0
        while done < n {
            let seg = min(n - done, step - count % step, scratchCapacity)
            for (i, c) in counted.enumerated() {
                filters[i].process(planar + c * channelStride + done, stride: 1, count: seg, into: scratch)
                _ = momentary[i].push(scratch, count: seg)
                _ = shortTerm[i].push(scratch, count: seg)
                if frameMomentary[i] !== momentary[i] {
                    _ = frameMomentary[i].push(scratch, count: seg)
                    _ = frameShortTerm[i].push(scratch, count: seg)
                }
            }
            truePeak.push(planar + done, channelStride: channelStride, count: seg)
            recentPeak?.push(planar + done, channelStride: channelStride, count: seg)
            framePeak?.push(planar + done, channelStride: channelStride, count: seg)
            done += seg
            count += seg
            if count % step == 0 { gatingStep() }
        }
    }

    /// A 100 ms step: one gating block (from 400 ms on), one short-term value for the range
    /// (from 3 s on), and the maxima.
    private func gatingStep() {
        let m = momentaryEnergy(), s = shortTermEnergy()
        if count >= 4 * step { gate.add(energy: m) }
        if count >= 30 * step {
            loudnessRange.add(energy: s)
            rangeCache = nil
        }
        noteMaxima(momentary: m, shortTerm: s)
        recentPeak?.step()
    }

    private func noteMaxima(momentary m: Double, shortTerm s: Double) {
        maxMomentaryEnergy = max(maxMomentaryEnergy, m)
        maxShortTermEnergy = max(maxShortTermEnergy, s)
    }

    private func windowEnergy(_ sums: [RollingSquareSum]) -> Double {
        var e = 0.0
        for i in 0..<sums.count { e += weights[i] * sums[i].windowSum() }
        return sums.isEmpty ? 0 : e / Double(sums[0].window)
    }

    private func momentaryEnergy() -> Double { windowEnergy(momentary) }
    private func shortTermEnergy() -> Double { windowEnergy(shortTerm) }

    /// Announces where the stream will end (off the frame grid: a file's last, partial hop),
    /// so that the last reading's windows are exact like every other's.
    public func expectRead(at position: Int) {
        for sums in [frameMomentary, frameShortTerm] { for s in sums { s.expectRead(at: position) } }
    }

    /// Momentary, short-term and integrated-so-far loudness now (LUFS, floored at -160); the
    /// maxima include this reading.
    public func reading() -> LoudnessReading {
        let m = windowEnergy(frameMomentary), s = windowEnergy(frameShortTerm)
        noteMaxima(momentary: m, shortTerm: s)
        return LoudnessReading(momentary: Self.lufs(energy: m), shortTerm: Self.lufs(energy: s),
                               integrated: Self.lufs(energy: gate.integratedEnergy()))
    }

    /// Loudness range so far (LU).
    public func range() -> Double {
        if let rangeCache { return rangeCache }
        let r = loudnessRange.range()
        rangeCache = r
        return r
    }

    /// True peak so far, per channel (dBTP).
    public var truePeakDb: [Double] { truePeak.truePeakDb }

    /// The largest true peak over the channels in the last 3 s (dBTP); nil unless asked for.
    public var recentTruePeakDb: Double? { recentPeak?.peakDb }

    /// Per channel, the true peak (dBTP) of the samples since the last call, which starts the
    /// next; nil unless asked for (`framePeaks`). Over a stream's frames their maxima are the
    /// whole stream's true peak.
    public func takeFrameTruePeakDb() -> [Double]? {
        framePeak?.takePeaks().map { Decibels.fromAmplitude(Double($0)) }
    }

    /// Whether the loudness range has seen the 60 s of programme Tech 3341 lets a meter settle
    /// in; before that it is a first estimate.
    public var rangeSettled: Bool { count >= 60 * rate }

    /// The whole-stream figures, as far as the stream has come.
    /// `rules`: what the stream is judged by (the summary's `verdict`, `headroomDb`).
    public func summary(target: Double?, rules: DeliveryRules? = nil) -> LoudnessSummary {
        var s = LoudnessSummary(
            integrated: Self.lufs(energy: gate.integratedEnergy()), range: range(),
            maxMomentary: Self.lufs(energy: maxMomentaryEnergy), maxShortTerm: Self.lufs(energy: maxShortTermEnergy),
            truePeakDb: truePeakDb, target: target, gatingBlocks: gate)
        s.rules = rules
        if let b = loudnessRange.bounds() { (s.rangeLow, s.rangeHigh) = b }
        return s
    }

    /// LUFS of a mean weighted energy: 10 log10(e) - 0.691, floored at -160.
    public static func lufs(energy: Double) -> Double {
        guard energy > 0, energy.isFinite else { return energy == .infinity ? Decibels.ceiling : Decibels.floor }
        return max(Decibels.floor, min(Decibels.ceiling, 10 * PureMath.log10(energy) - 0.691))
    }

    /// The mean weighted energy that reads `lufs`.
    public static func energy(lufs: Double) -> Double { PureMath.pow(10, (lufs + 0.691) / 10) }

    /// The energy ratio of `lu` loudness units.
    public static func energy(lu: Double) -> Double { PureMath.pow(10, lu / 10) }
}

/// One frame's loudness (NDJSON `lufs_m`, `lufs_s`, `lufs_i`); live frames add the loudness
/// range so far (`lra`) and, for the display only, the true peak so far and whether the range
/// has settled.
public struct LoudnessReading: Sendable, Equatable {
    public var momentary: Double
    public var shortTerm: Double
    public var integrated: Double
    public var range: Double?
    public var truePeakDb: [Double]?
    /// False during a programme's first 60 s, when the range is still a first estimate.
    public var rangeSettled: Bool
    /// Live frames: the true peak of the last 3 s (dBTP), for `psr_db`.
    public var recentTruePeakDb: Double?
    /// With periods: per channel, the true peak of this frame's own samples (dBTP), for the
    /// period's `true_peak_db`; not a field of the frame line.
    public var frameTruePeakDb: [Double]?

    public init(momentary: Double, shortTerm: Double, integrated: Double,
                range: Double? = nil, truePeakDb: [Double]? = nil, rangeSettled: Bool = true) {
        self.momentary = momentary
        self.shortTerm = shortTerm
        self.integrated = integrated
        self.range = range
        self.truePeakDb = truePeakDb
        self.rangeSettled = rangeSettled
    }
}

/// The whole stream's loudness (the `end` line).
public struct LoudnessSummary: Sendable, Equatable {
    public var integrated: Double
    public var range: Double
    public var maxMomentary: Double
    public var maxShortTerm: Double
    /// The 10th and the 95th percentile of the gated short-term loudness (LUFS), whose
    /// spread is `range` (a report's LRA band); nil when nothing passed the gates.
    public var rangeLow: Double?
    public var rangeHigh: Double?
    public var truePeakDb: [Double]
    /// `--target`, when given.
    public var target: Double?
    /// The stream's gating blocks (from a `LoudnessMeter`), for the loudness of several
    /// streams together (`IntegratedGate.merge`: an album); not part of any line.
    public var gatingBlocks: IntegratedGate?
    /// What the stream is judged by (`--preset`, `--tolerance`, `--max-true-peak`); nil: no
    /// verdict.
    public var rules: DeliveryRules?
    /// The gain that brings the stream to the target: target - integrated.
    public var gainDb: Double? { target.map { $0 - integrated } }
    /// The largest true peak over the channels (dBTP).
    public var maxTruePeakDb: Double { truePeakDb.max() ?? Decibels.floor }
    /// The peak-to-loudness ratio: the true peak less the integrated loudness (LU; 0 while
    /// nothing is gated in, as `lra` reads then).
    public var plrDb: Double { PeakToLoudness.ratio(peak: maxTruePeakDb, loudness: integrated) }
    /// The true peak's ceiling: the rules', else `DeliveryPreset.defaultMaxTruePeak` (dBTP).
    public var ceilingDb: Double { rules?.maxTruePeak ?? DeliveryPreset.defaultMaxTruePeak }
    /// The gain possible before the true peak reaches the ceiling (dB; negative when it is
    /// over already).
    public var headroomDb: Double { ceilingDb - maxTruePeakDb }
    /// Whether the suggested gain (`gainDb`) would put the true peak over the ceiling.
    public var gainCrossesCeiling: Bool { gainDb.map { $0 > headroomDb } ?? false }
    /// The stream judged by `rules`; nil without rules.
    public var verdict: Verdict? { rules?.judge(self) }

    public init(integrated: Double, range: Double, maxMomentary: Double, maxShortTerm: Double,
                truePeakDb: [Double], target: Double? = nil, gatingBlocks: IntegratedGate? = nil) {
        self.gatingBlocks = gatingBlocks
        self.integrated = integrated
        self.range = range
        self.maxMomentary = maxMomentary
        self.maxShortTerm = maxShortTerm
        self.truePeakDb = truePeakDb
        self.target = target
    }
}

/// Peak-to-loudness ratios (`plr_db`, `psr_db`; AES TD1004's PLR, PSR).
public enum PeakToLoudness {
    /// A true peak less a loudness (LU): 0 while the loudness reads the floor (nothing gated
    /// in yet, no audio), as `lra` reads 0 then.
    public static func ratio(peak: Double, loudness: Double) -> Double {
        loudness <= Decibels.floor ? 0 : peak - loudness
    }
}
