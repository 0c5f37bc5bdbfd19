/// True peak per channel (ITU-R BS.1770-4 Annex 2): the largest magnitude of the signal
/// oversampled by a polyphase FIR interpolator, or of the samples themselves if higher.
///
/// Oversampling follows the rate: 4x below 96 kHz, 2x below 192 kHz, none from 192 kHz on
/// (the samples are then as dense as 4x of 48 kHz). The 4x interpolator is the Annex's own
/// 48-tap filter, four phases of 12 taps, each phase interpolating a point between samples
/// (1/8, 3/8, 5/8 and 7/8 of a sample period on). 2x takes two of those phases, half a
/// period apart (1/8 and 5/8): the same low-pass, at half the output points.
///
/// Work is in Float (the Annex's 12 dB attenuation against fixed-point overflow is not
/// needed), per channel over contiguous blocks: the last 11 samples of a channel stay in
/// front of its next block, and eight consecutive outputs of a phase are computed at once in
/// SIMD lanes. Each output is the same sum in the same order (taps 0 to 11) whether it falls
/// in the vector part or the scalar tail of a block, so the peak does not depend on how the
/// input was split into calls.
public final class TruePeakMeter {
    public let rate: Int
    public let channels: Int
    /// 4, 2 or 1.
    public let factor: Int
    /// Samples one interpolated value reaches back over, besides the current one.
    static let history = 11
    static let taps = 12
    /// The largest block `push` takes per call.
    public static let blockCapacity = 4096

    /// BS.1770-4 Annex 2, Table 1: phase p's coefficient k multiplies the sample k periods
    /// before the current one.
    static let annexPhases: [[Float]] = [
        [0.0017089843750, 0.0109863281250, -0.0196533203125, 0.0332031250000,
         -0.0594482421875, 0.1373291015625, 0.9721679687500, -0.1022949218750,
         0.0476074218750, -0.0266113281250, 0.0148925781250, -0.0083007812500],
        [-0.0291748046875, 0.0292968750000, -0.0517578125000, 0.0891113281250,
         -0.1665039062500, 0.4650878906250, 0.7797851562500, -0.2003173828125,
         0.1015625000000, -0.0582275390625, 0.0330810546875, -0.0189208984375],
        [-0.0189208984375, 0.0330810546875, -0.0582275390625, 0.1015625000000,
         -0.2003173828125, 0.7797851562500, 0.4650878906250, -0.1665039062500,
         0.0891113281250, -0.0517578125000, 0.0292968750000, -0.0291748046875],
        [-0.0083007812500, 0.0148925781250, -0.0266113281250, 0.0476074218750,
         -0.1022949218750, 0.9721679687500, 0.1373291015625, -0.0594482421875,
         0.0332031250000, -0.0196533203125, 0.0109863281250, 0.0017089843750],
    ]

    /// The phases in use, `taps` coefficients each, one after the other.
    private let coefficients: UnsafeMutablePointer<Float>
    private let phaseCount: Int
    /// Per channel: `history` samples, then room for a block.
    private let buffers: UnsafeMutablePointer<Float>
    private let bufferStride: Int
    private var peaks: [Float]

    public init(rate: Int, channels: Int) {
        self.rate = rate
        self.channels = channels
        factor = rate < 96000 ? 4 : rate < 192000 ? 2 : 1
        let phases: [[Float]] = factor == 4 ? Self.annexPhases : factor == 2 ? [Self.annexPhases[0], Self.annexPhases[2]] : []
        phaseCount = phases.count
        coefficients = .allocate(capacity: max(1, phases.count * Self.taps))
        for (p, phase) in phases.enumerated() {
            for k in 0..<Self.taps { coefficients[p * Self.taps + k] = phase[k] }
        }
        bufferStride = Self.history + Self.blockCapacity
        buffers = .allocate(capacity: bufferStride * max(1, channels))
        buffers.initialize(repeating: 0, count: bufferStride * max(1, channels))
        peaks = Array(repeating: 0, count: channels)
    }

    deinit {
        coefficients.deallocate()
        buffers.deallocate()
    }

    /// Adds `n` (at most `blockCapacity`) frames given per channel: channel c's samples at
    /// `planar + c * channelStride`.
    public func push(_ planar: UnsafePointer<Float>, channelStride: Int, count n: Int) {
        precondition(n <= Self.blockCapacity)
        guard n > 0 else { return }
        for c in 0..<channels {
            let src = planar + c * channelStride
            var peak = max(peaks[c], Self.samplePeak(src, n))
            if phaseCount > 0 {
                let buf = buffers + c * bufferStride
                (buf + Self.history).update(from: src, count: n)
                peak = max(peak, interpolatedPeak(buf, n))
                // The newest samples lead the next block.
                buf.update(from: buf + n, count: Self.history)
            }
            peaks[c] = peak
        }
    }

    /// Per channel, dBTP (floored at -160).
    public var truePeakDb: [Double] { peaks.map { Decibels.fromAmplitude(Double($0)) } }

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

    /// The largest interpolated magnitude for the `n` samples after `history` in `buf`.
    private func interpolatedPeak(_ buf: UnsafeMutablePointer<Float>, _ n: Int) -> Float {
        let raw = UnsafeRawPointer(buf + Self.history)
        let h = coefficients
        var hi = SIMD8<Float>(), lo = SIMD8<Float>()
        var i = 0
        if phaseCount == 4 {
            while i + 8 <= n {
                var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), a2 = SIMD8<Float>(), a3 = SIMD8<Float>()
                for k in 0..<Self.taps {
                    let x = raw.loadUnaligned(fromByteOffset: (i - k) * 4, as: SIMD8<Float>.self)
                    a0 += h[k] * x
                    a1 += h[Self.taps + k] * x
                    a2 += h[2 * Self.taps + k] * x
                    a3 += h[3 * Self.taps + k] * x
                }
                Self.note(a0, &hi, &lo); Self.note(a1, &hi, &lo); Self.note(a2, &hi, &lo); Self.note(a3, &hi, &lo)
                i += 8
            }
        } else {
            while i + 8 <= n {
                var a0 = SIMD8<Float>(), a1 = SIMD8<Float>()
                for k in 0..<Self.taps {
                    let x = raw.loadUnaligned(fromByteOffset: (i - k) * 4, as: SIMD8<Float>.self)
                    a0 += h[k] * x
                    a1 += h[Self.taps + k] * x
                }
                Self.note(a0, &hi, &lo); Self.note(a1, &hi, &lo)
                i += 8
            }
        }
        var peak: Float = 0
        for j in 0..<8 { peak = max(peak, max(hi[j], -lo[j])) }
        let x = buf + Self.history
        while i < n {
            for p in 0..<phaseCount {
                var a: Float = 0
                for k in 0..<Self.taps { a += h[p * Self.taps + k] * x[i - k] }
                peak = max(peak, abs(a))
            }
            i += 1
        }
        return peak
    }

    @inline(__always)
    private static func note(_ v: SIMD8<Float>, _ hi: inout SIMD8<Float>, _ lo: inout SIMD8<Float>) {
        hi.replace(with: v, where: v .> hi)
        lo.replace(with: v, where: v .< lo)
    }
}
