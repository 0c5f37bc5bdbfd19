/// EBU R128 loudness of one stream at every meter frame: momentary (the 400 ms ending at the
/// frame's `pos`), short-term (the 3 s ending there) and integrated so far; the maxima of
/// momentary and short-term; and, through a `LoudnessReference` (libebur128), the whole
/// stream's integrated loudness, loudness range and true peak.
///
/// Asking libebur128 for momentary and short-term at every frame sums its whole window each
/// time (3 s x channels samples per frame: more than all the rest of `analyze`, DESIGN.md), so
/// here each channel is K-weighted once (`KWeighting`) and its squares kept in two
/// `RollingSquareSum`s, the same exact rolling sums the RMS levels use: a frame costs a few
/// hundred block sums, whatever the window. Windows are libebur128's, 4 and 30 times
/// round(rate / 10) samples, with zeros before the start (a stream's first 400 ms read lower,
/// as they do in libebur128). Gating blocks are the momentary energies at every 100 ms step
/// from 400 ms on, as in BS.1770-4; they feed `IntegratedGate` for the per-frame `lufs_i`.
public final class LoudnessMeter {
    public let rate: Int
    public let channels: Int
    /// round(rate / 10) samples: the gating step.
    public let step: Int
    public let reference: (any LoudnessReference)?

    private var filters: [KWeighting]
    /// Channels that count (weight > 0) and their weights.
    private let counted: [Int]
    private let weights: [Double]
    private let momentary: [RollingSquareSum]
    private let shortTerm: [RollingSquareSum]
    private let scratch: UnsafeMutablePointer<Float>
    private let scratchCapacity = 4096
    private var count = 0
    private var gate = IntegratedGate()
    private var maxMomentaryEnergy = 0.0
    private var maxShortTermEnergy = 0.0

    /// `hop`: the meter's hop; readings come at its multiples and the 100 ms gating steps, so
    /// the rolling sums read exactly on the grid of both (their greatest common divisor).
    public init(rate: Int, channels: Int, hop: Int = 1, reference: (any LoudnessReference)?) {
        self.rate = rate
        self.channels = channels
        self.reference = reference
        step = max(1, (rate + 5) / 10)
        let roles = LoudnessChannel.roles(channels: channels)
        counted = (0..<channels).filter { roles[$0].weight > 0 }
        weights = counted.map { roles[$0].weight }
        filters = counted.map { _ in KWeighting(rate: rate) }
        let grid = Self.gcd(max(1, (rate + 5) / 10), max(1, hop))
        momentary = counted.map { _ in RollingSquareSum(window: 4 * max(1, (rate + 5) / 10), hop: grid) }
        shortTerm = counted.map { _ in RollingSquareSum(window: 30 * max(1, (rate + 5) / 10), hop: grid) }
        scratch = .allocate(capacity: scratchCapacity)
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
                _ = momentary[i].push(scratch, stride: 1, count: seg)
                _ = shortTerm[i].push(scratch, stride: 1, count: seg)
            }
            done += seg
            count += seg
            if count % step == 0 { gatingStep() }
        }
    }

    /// A 100 ms step: one gating block (from 400 ms on), and the maxima.
    private func gatingStep() {
        let m = momentaryEnergy()
        if count >= 4 * step { gate.add(energy: m) }
        noteMaxima(momentary: m, shortTerm: shortTermEnergy())
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

    /// Momentary, short-term and integrated-so-far loudness now (LUFS, floored at -160); the
    /// maxima include this reading.
    public func reading() -> LoudnessReading {
        let m = momentaryEnergy(), s = shortTermEnergy()
        noteMaxima(momentary: m, shortTerm: s)
        return LoudnessReading(momentary: Self.lufs(energy: m), shortTerm: Self.lufs(energy: s),
                               integrated: Self.lufs(energy: gate.integratedEnergy()))
    }

    /// The whole-stream figures: waits for the reference's work.
    public func summary(target: Double?) -> LoudnessSummary {
        let ref = reference?.finish()
        let integrated = ref?.integrated ?? Self.lufs(energy: gate.integratedEnergy())
        return LoudnessSummary(
            integrated: integrated, range: ref?.range ?? 0,
            maxMomentary: Self.lufs(energy: maxMomentaryEnergy), maxShortTerm: Self.lufs(energy: maxShortTermEnergy),
            truePeakDb: ref?.truePeakDb ?? Array(repeating: Decibels.floor, count: channels), target: target)
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

/// One frame's loudness (NDJSON `lufs_m`, `lufs_s`, `lufs_i`), with, for the live display,
/// the reference's loudness range and true peak so far (not part of the NDJSON frame).
public struct LoudnessReading: Sendable, Equatable {
    public var momentary: Double
    public var shortTerm: Double
    public var integrated: Double
    public var range: Double?
    public var truePeakDb: [Double]?

    public init(momentary: Double, shortTerm: Double, integrated: Double,
                range: Double? = nil, truePeakDb: [Double]? = nil) {
        self.momentary = momentary
        self.shortTerm = shortTerm
        self.integrated = integrated
        self.range = range
        self.truePeakDb = truePeakDb
    }
}

/// The whole stream's loudness (the `end` line).
public struct LoudnessSummary: Sendable, Equatable {
    public var integrated: Double
    public var range: Double
    public var maxMomentary: Double
    public var maxShortTerm: Double
    public var truePeakDb: [Double]
    /// `--target`, when given.
    public var target: Double?
    /// The gain that brings the stream to the target: target - integrated.
    public var gainDb: Double? { target.map { $0 - integrated } }

    public init(integrated: Double, range: Double, maxMomentary: Double, maxShortTerm: Double,
                truePeakDb: [Double], target: Double? = nil) {
        self.integrated = integrated
        self.range = range
        self.maxMomentary = maxMomentary
        self.maxShortTerm = maxShortTerm
        self.truePeakDb = truePeakDb
        self.target = target
    }
}
