/// True peak per channel: the largest magnitude of the band-limited signal between (and at) its
/// samples, within 0.1 dB up to 0.45 of the rate.
///
/// BS.1770-4 Annex 2 oversamples 4x with a 48-tap filter and takes the largest point; that
/// is the standard's minimum, not the peak: between its points and through its filter a
/// sine's peak reads up to 2.6 dB low at 0.45 of the rate, and its ripple reads others up to
/// 0.2 dB high. Here a 4x oversampler of the same size (`searchPhases`: points 1/8, 3/8, 5/8
/// and 7/8 of a period on) only searches: its values run through a local-maximum test, and
/// a local maximum within `reach` of the peak so far (4 dB at 4x; 6 dB at 2x, whose points
/// are half a period apart: more than the search's worst shortfall at 0.45 of the rate) is
/// refined on the band-limited signal itself (`BandLimitedInterpolator.localPeak`). The
/// peak is the largest refined value or sample, never a search value. A group of eight
/// search outputs none of which is within reach (almost all of them, once the peak is found,
/// but along a steady tone's crests) costs a few compares.
///
/// Oversampling follows the rate: 4x below 96 kHz, 2x (phases 0 and 2) from there.
///
/// Work is in Float, per channel over contiguous blocks. The search runs `lag` samples
/// behind the newest sample, so that a refinement finds the samples after its position; the
/// last `lag` + 6 samples of a stream count by their own values. Before the first sample the
/// signal is zero. Each search output is the same sum in the same order whether it falls in
/// the vector part or the scalar tail of a block, so the peak does not depend on how the input
/// was split into calls.
public final class TruePeakMeter {
    public let rate: Int
    public let channels: Int
    /// 4 or 2.
    public let factor: Int
    static let taps = 12
    /// Samples kept in front of a block: what the search filter (11 back) and a refinement
    /// (a period either way of the one 6 back, then 47 back and 48 on) reach, behind the lag.
    static let history = 112
    /// How far the search trails the newest sample: a refinement's reach forward.
    static let lag = 44
    /// The largest block `push` takes per call.
    public static let blockCapacity = 4096

    /// The search's interpolator: phase p (0...3) gives the point (2p + 1) / 8 of a period
    /// after sample m - 6 from samples m - 11 ... m (coefficient k on sample m - k), a 12-tap
    /// Kaiser-windowed sinc (beta 4) scaled to unity gain at DC. Its phases agree to 1.7 f^2
    /// (f in cycles per sample) below a tenth of the rate, so a steady tone's values rise and
    /// fall once a lobe (BS.1770-4 Annex 2's own 48-tap filter differs from phase to phase by
    /// 0.24 dB at DC and 19 f^2 above it: a local maximum every sample period or two along a
    /// low tone's crest, each refined); at 0.45 of the rate phases 1 and 2 read 2.9 dB low.
    static let searchPhases: [[Float]] = (0..<4).map { p in
        let beta = 4.0, half = Double(taps) / 2
        let h = (0..<taps).map { k -> Double in
            let u = half - Double(k) - Double(2 * p + 1) / 8
            let r = u / half
            let sinc = PureMath.sin(Double.pi * u) / (Double.pi * u)
            return sinc * PureMath.besselI0(beta * max(0, 1 - r * r).squareRoot()) / PureMath.besselI0(beta)
        }
        let gain = h.reduce(0, +)
        return h.map { Float($0 / gain) }
    }

    /// The phases in use, `taps` coefficients each, one after the other.
    private let coefficients: UnsafeMutablePointer<Float>
    private let phaseCount: Int
    /// Per phase: where its output lies in its period, in the interpolator's steps.
    private let offsets: [Int]
    /// A search local maximum under `reach` x the peak so far cannot hide a new peak.
    private let reach: Float
    /// Per channel: `history` samples, then room for a block.
    private let buffers: UnsafeMutablePointer<Float>
    /// Room to shift a vector by one lane (`hasCandidate`).
    private let shift: UnsafeMutablePointer<Float>
    private let bufferStride: Int

    /// One channel's peak so far and the search value last seen (its magnitude, whether the
    /// values were rising to it, its sign and position in the channel's buffer, in steps).
    private struct Track {
        var peak: Float = 0
        var last: Float = 0
        var rose = false
        var negative = false
        var position = 0
    }
    private var tracks: [Track]

    public init(rate: Int, channels: Int) {
        self.rate = rate
        self.channels = channels
        factor = rate < 96000 ? 4 : 2
        let used = factor == 4 ? [0, 1, 2, 3] : [0, 2]
        phaseCount = used.count
        coefficients = .allocate(capacity: used.count * Self.taps)
        for (p, phase) in used.enumerated() {
            for k in 0..<Self.taps { coefficients[p * Self.taps + k] = Self.searchPhases[phase][k] }
        }
        offsets = used.map { (2 * $0 + 1) * BandLimitedInterpolator.steps / 8 }
        reach = factor == 4 ? 0.631 : 0.501
        shift = .allocate(capacity: 32)
        shift.initialize(repeating: 0, count: 32)
        bufferStride = Self.history + Self.blockCapacity
        buffers = .allocate(capacity: bufferStride * max(1, channels))
        buffers.initialize(repeating: 0, count: bufferStride * max(1, channels))
        tracks = Array(repeating: Track(), count: channels)
    }

    deinit {
        coefficients.deallocate()
        buffers.deallocate()
        shift.deallocate()
    }

    /// Adds `n` (at most `blockCapacity`) frames given per channel: channel c's samples at
    /// `planar + c * channelStride`.
    public func push(_ planar: UnsafePointer<Float>, channelStride: Int, count n: Int) {
        precondition(n <= Self.blockCapacity)
        guard n > 0 else { return }
        for c in 0..<channels {
            let src = planar + c * channelStride
            let buf = buffers + c * bufferStride
            var track = tracks[c]
            track.peak = max(track.peak, Self.samplePeak(src, n))
            (buf + Self.history).update(from: src, count: n)
            search(buf, n, &track)
            // The newest samples lead the next block; positions move with them.
            buf.update(from: buf + n, count: Self.history)
            track.position -= n * BandLimitedInterpolator.steps
            tracks[c] = track
        }
    }

    /// Per channel, dBTP (floored at -160).
    public var truePeakDb: [Double] { tracks.map { Decibels.fromAmplitude(Double($0.peak)) } }

    /// The largest peak over the channels (linear) since the start or the last `takePeak`.
    var currentPeak: Float { tracks.reduce(0) { max($0, $1.peak) } }

    /// `currentPeak`, and the peaks start again from 0 (a refinement's reach then follows the
    /// new peak: `RecentTruePeak`'s steps).
    func takePeak() -> Float {
        takePeaks().max() ?? 0
    }

    /// Each channel's peak (linear) since the start or the last take, and the peaks start
    /// again from 0 (a frame's own true peak: `LoudnessMeter`'s frame peaks).
    func takePeaks() -> [Float] {
        let p = tracks.map(\.peak)
        for c in tracks.indices { tracks[c].peak = 0 }
        return p
    }

    /// The largest magnitude among `n` samples.
    private static func samplePeak(_ p: UnsafePointer<Float>, _ n: Int) -> Float {
        var hi = SIMD8<Float>(), lo = SIMD8<Float>()
        let raw = UnsafeRawPointer(p)
        var k = 0
        while k + 8 <= n {
            let v = raw.loadUnaligned(fromByteOffset: k * 4, as: SIMD8<Float>.self)
            hi.replace(with: v, where: v .> hi)
            lo.replace(with: v, where: v .< lo)
            k += 8
        }
        var peak: Float = 0
        for j in 0..<8 { peak = max(peak, max(hi[j], -lo[j])) }
        while k < n {
            peak = max(peak, abs(p[k]))
            k += 1
        }
        return peak
    }

    /// The search outputs of `n` samples, `lag` behind the newest in `buf`: every one of a
    /// group of eight through `see` where the group holds a candidate (`hasCandidate`), the
    /// others passed over at once but for the last value.
    private func search(_ buf: UnsafeMutablePointer<Float>, _ n: Int, _ track: inout Track) {
        let first = Self.history - Self.lag
        let raw = UnsafeRawPointer(buf + first)
        let h = coefficients, t = Self.taps
        var i = 0
        while i + 8 <= n {
            var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), a2 = SIMD8<Float>(), a3 = SIMD8<Float>()
            if phaseCount == 4 {
                for k in 0..<t {
                    let x = raw.loadUnaligned(fromByteOffset: (i - k) * 4, as: SIMD8<Float>.self)
                    a0 += h[k] * x
                    a1 += h[t + k] * x
                    a2 += h[2 * t + k] * x
                    a3 += h[3 * t + k] * x
                }
            } else {
                for k in 0..<t {
                    let x = raw.loadUnaligned(fromByteOffset: (i - k) * 4, as: SIMD8<Float>.self)
                    a0 += h[k] * x
                    a1 += h[t + k] * x
                }
            }
            let m = first + i
            // Most groups: no value within reach, nor a rise to one carried in.
            var hi = a0, lo = a0
            hi.replace(with: a1, where: a1 .> hi)
            lo.replace(with: a1, where: a1 .< lo)
            hi.replace(with: a2, where: a2 .> hi)
            lo.replace(with: a2, where: a2 .< lo)
            hi.replace(with: a3, where: a3 .> hi)
            lo.replace(with: a3, where: a3 .< lo)
            let bar = track.peak * reach
            let reachable = SIMD8(repeating: bar)
            let within = (hi .> reachable) .| (lo .< -reachable)
            if (any(within) || (track.rose && track.last > bar)) && hasCandidate(a0, a1, a2, a3, track) {
                for j in 0..<8 {
                    see(a0[j], at: m + j, phase: 0, buf, &track)
                    see(a1[j], at: m + j, phase: 1, buf, &track)
                    if phaseCount == 4 {
                        see(a2[j], at: m + j, phase: 2, buf, &track)
                        see(a3[j], at: m + j, phase: 3, buf, &track)
                    }
                }
            } else {
                // No local maximum within reach: only the last value carries on.
                let (last, before) = phaseCount == 4 ? (a3[7], a2[7]) : (a1[7], a0[7])
                track.rose = abs(last) >= abs(before)
                track.last = abs(last)
                track.negative = last < 0
                track.position = (m + 7 - 6) * BandLimitedInterpolator.steps + offsets[phaseCount - 1]
            }
            i += 8
        }
        let x = buf + first
        while i < n {
            for p in 0..<phaseCount {
                var v: Float = 0
                for k in 0..<t { v += h[p * t + k] * x[i - k] }
                see(v, at: first + i, phase: p, buf, &track)
            }
            i += 1
        }
    }

    /// Whether `see`, given a group's search values (phase p of eight outputs in a row: `a0`,
    /// `a1`, then at 4x `a2`, `a3`), would refine one: a local maximum of their magnitudes
    /// within reach of the peak, the value carried from the group before included. The value
    /// before an output's first phase is the last phase of the output before; the group's
    /// very last value waits for the next group.
    @inline(__always)
    private func hasCandidate(_ a0: SIMD8<Float>, _ a1: SIMD8<Float>, _ a2: SIMD8<Float>, _ a3: SIMD8<Float>,
                              _ track: Track) -> Bool {
        let bar = track.peak * reach
        if track.rose && track.last > bar && abs(a0[0]) < track.last { return true }
        @inline(__always) func magnitude(_ v: SIMD8<Float>) -> SIMD8<Float> { v.replacing(with: -v, where: v .< 0) }
        let m0 = magnitude(a0), m1 = magnitude(a1)
        let last = phaseCount == 4 ? magnitude(a3) : m1
        // The last phase one output earlier, and the first one output later, through `shift`.
        shift[0] = track.last
        UnsafeMutableRawPointer(shift + 1).storeBytes(of: last, as: SIMD8<Float>.self)
        let before = UnsafeRawPointer(shift).loadUnaligned(as: SIMD8<Float>.self)
        UnsafeMutableRawPointer(shift + 16).storeBytes(of: m0, as: SIMD8<Float>.self)
        shift[24] = .infinity
        let after = UnsafeRawPointer(shift + 17).loadUnaligned(as: SIMD8<Float>.self)
        let reachable = SIMD8<Float>(repeating: bar)
        @inline(__always) func peaks(_ m: SIMD8<Float>, _ previous: SIMD8<Float>, _ next: SIMD8<Float>) -> SIMDMask<SIMD8<Int32>> {
            (m .>= previous) .& (next .< m) .& (m .> reachable)
        }
        var found: SIMDMask<SIMD8<Int32>>
        if phaseCount == 4 {
            let m2 = magnitude(a2)
            found = peaks(m0, before, m1) .| peaks(m1, m0, m2) .| peaks(m2, m1, last) .| peaks(last, m2, after)
        } else {
            found = peaks(m0, before, m1) .| peaks(m1, m0, after)
        }
        return any(found)
    }

    /// The next search value, phase `p` of the output at `m` in `buf`: the one before it, if
    /// a local maximum within reach of the peak, is refined.
    @inline(__always)
    private func see(_ v: Float, at m: Int, phase p: Int, _ buf: UnsafeMutablePointer<Float>, _ track: inout Track) {
        let magnitude = abs(v)
        if track.rose && magnitude < track.last && track.last > track.peak * reach {
            let refined = BandLimitedInterpolator.localPeak(buf, near: track.position, negative: track.negative)
            track.peak = max(track.peak, refined)
        }
        track.rose = magnitude >= track.last
        track.last = magnitude
        track.negative = v < 0
        // Output m's phases interpolate the period from sample m - 6 (the filter's centre).
        track.position = (m - 6) * BandLimitedInterpolator.steps + offsets[p]
    }
}
