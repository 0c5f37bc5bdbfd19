/// A look-ahead true-peak limiter for `normalize --limit`: a static gain, then a gain
/// reduction that keeps the band-limited signal (its true peak) at or under a ceiling.
///
/// - Detection: per frame, the largest magnitude over the channels of the sample and of the
///   signal between it and the next, oversampled 4x (BS.1770-4 Annex 2's factor) by
///   `TruePeakMeter`'s search phases (a 12-tap interpolator at 1/8, 3/8, 5/8 and 7/8 of a
///   period); where that comes within 4 dB of the ceiling the peak is refined on the
///   band-limited signal itself (`BandLimitedInterpolator.localPeak`), as the meter does.
///   Frame n needs `detectionLag` samples after it.
/// - Gain: the reduction each frame needs, `min(1, ceiling / peak)`, through a sliding minimum
///   over the look-ahead (L frames), then a moving average over L: the gain ramps down over
///   the L frames before a peak (the attack, inside the look-ahead) and is at or under the
///   needed reduction at the peak itself; then an exponential release (`releaseSeconds`)
///   that never rises over that average.
/// - Latency: `detectionLag + L - 1` frames; the first output frame is the first input frame
///   (the delay is taken off the start and `flush` gives the end).
///
/// Channels are linked (one gain for all), so the stereo image stays. Owned by one thread.
public final class TruePeakLimiter {
    public let channels: Int
    /// The ceiling as a magnitude (full scale 1).
    public let ceiling: Float
    public let gain: Float
    /// L, frames.
    public let lookAheadFrames: Int
    /// Frames between an input frame and its output.
    public var latency: Int { Self.detectionLag + lookAheadFrames - 1 }
    static let detectionLag = 64
    /// Samples kept before the new block: the output delay and the interpolator's reach back.
    private let history: Int
    public static let blockCapacity = 16384
    private let stride: Int
    private let buffers: UnsafeMutablePointer<Float>
    /// Sliding minimum (a monotonic queue of (position, value) in a ring of L + 1).
    private var minPositions: [Int]
    private var minValues: [Float]
    private var minHead = 0, minCount = 0
    /// Moving average over L of the sliding minimum.
    private var boxRing: [Float]
    private var boxSum = 0.0
    private var boxIndex = 0
    private var released: Float = 1
    private let releaseCoefficient: Float
    /// Frames counted in (position of the next detected frame).
    private var detected = 0
    /// Output frames still to drop (the delay at the start).
    private var toSkip: Int
    /// The smallest gain applied, for the report.
    public private(set) var deepestReduction: Float = 1

    /// - Parameters:
    ///   - ceilingDb: dBTP the output's true peak is held at or under.
    ///   - gain: the static gain applied before the limiter (linear).
    ///   - lookAheadSeconds: the attack's length (5 ms by default).
    ///   - releaseSeconds: the release's time constant (50..500 ms; 150 ms by default).
    public init(rate: Int, channels: Int, ceilingDb: Double, gain: Float,
                lookAheadSeconds: Double = 0.005, releaseSeconds: Double = 0.15) {
        precondition((0.05...0.5).contains(releaseSeconds))
        self.channels = channels
        self.gain = gain
        ceiling = Float(PureMath.pow(10, ceilingDb / 20))
        lookAheadFrames = max(8, Int((lookAheadSeconds * Double(rate)).rounded()))
        history = Self.detectionLag + lookAheadFrames + 64
        stride = history + Self.blockCapacity
        buffers = .allocate(capacity: stride * channels)
        buffers.initialize(repeating: 0, count: stride * channels)
        minPositions = Array(repeating: 0, count: lookAheadFrames + 1)
        minValues = Array(repeating: 1, count: lookAheadFrames + 1)
        boxRing = Array(repeating: 1, count: lookAheadFrames)
        boxSum = Double(lookAheadFrames)
        releaseCoefficient = Float(1 - PureMath.exp(-1 / (releaseSeconds * Double(rate))))
        toSkip = Self.detectionLag + lookAheadFrames - 1
    }

    deinit { buffers.deallocate() }

    /// Takes `frames` (at most `blockCapacity`) interleaved frames and writes the frames that
    /// come out (interleaved, gain and reduction applied) to `output`, which has room for
    /// `frames`; returns how many.
    public func process(_ input: UnsafePointer<Float>, frames: Int, into output: UnsafeMutablePointer<Float>) -> Int {
        precondition(frames <= Self.blockCapacity)
        for c in 0..<channels {
            let buf = buffers + c * stride + history
            for i in 0..<frames { buf[i] = input[i * channels + c] * gain }
        }
        return run(frames, into: output)
    }

    /// The frames still held (the latency's worth, as if zeros followed); `output` needs room
    /// for `latency` frames. Call once, at the end.
    public func flush(into output: UnsafeMutablePointer<Float>) -> Int {
        var written = 0
        var left = latency
        while left > 0 {
            let n = min(left, Self.blockCapacity)
            for c in 0..<channels { (buffers + c * stride + history).update(repeating: 0, count: n) }
            written += run(n, into: output + written * channels)
            left -= n
        }
        return written
    }

    /// Detects and outputs for the `n` new samples at `history` in each buffer, then moves the
    /// newest `history` samples to the front.
    private func run(_ n: Int, into output: UnsafeMutablePointer<Float>) -> Int {
        var written = 0
        let lag = Self.detectionLag, l = lookAheadFrames
        for k in 0..<n {
            // Frame detected now: `lag` behind the newest; the frame output: L - 1 behind that.
            let d = history + k - lag
            var peak: Float = 0
            for c in 0..<channels { peak = max(peak, self.peak(buffers + c * stride, at: d)) }
            let needed = peak > ceiling ? ceiling / peak : 1
            let g = smooth(needed)
            let o = d - (l - 1)
            if toSkip > 0 {
                toSkip -= 1
                continue
            }
            for c in 0..<channels { output[written * channels + c] = buffers[c * stride + o] * g }
            deepestReduction = min(deepestReduction, g)
            written += 1
        }
        for c in 0..<channels {
            let buf = buffers + c * stride
            buf.update(from: buf + n, count: history)
        }
        return written
    }

    /// Sliding minimum over L, its moving average over L, the release.
    private func smooth(_ needed: Float) -> Float {
        let l = lookAheadFrames, ring = l + 1
        let position = detected
        detected += 1
        // Drop larger values from the back, the expired one from the front.
        while minCount > 0 && minValues[(minHead + minCount - 1) % ring] >= needed { minCount -= 1 }
        minPositions[(minHead + minCount) % ring] = position
        minValues[(minHead + minCount) % ring] = needed
        minCount += 1
        if minPositions[minHead] <= position - l {
            minHead = (minHead + 1) % ring
            minCount -= 1
        }
        let windowMin = minValues[minHead]
        boxSum += Double(windowMin) - Double(boxRing[boxIndex])
        boxRing[boxIndex] = windowMin
        boxIndex = (boxIndex + 1) % l
        // Rounding may leave the sum a hair over the smallest of its L terms' true mean.
        let average = min(Float(boxSum / Double(l)), 1)
        released = average < released ? average : released + (average - released) * releaseCoefficient
        return min(released, average)
    }

    /// The largest magnitude of the band-limited signal from sample `i` up to the next, at the
    /// sample and the four search points between, refined near the ceiling.
    private func peak(_ x: UnsafePointer<Float>, at i: Int) -> Float {
        var best = abs(x[i])
        var bestPhase = -1
        var bestValue: Float = 0
        let m = i + 6
        for p in 0..<4 {
            let h = TruePeakMeter.searchPhases[p]
            var v: Float = 0
            for k in 0..<TruePeakMeter.taps { v += h[k] * x[m - k] }
            if abs(v) > best {
                best = abs(v)
                bestPhase = p
                bestValue = v
            }
        }
        if best > ceiling * 0.631 && bestPhase >= 0 {
            let position = i * BandLimitedInterpolator.steps + (2 * bestPhase + 1) * BandLimitedInterpolator.steps / 8
            best = max(best, BandLimitedInterpolator.localPeak(x, near: position, negative: bestValue < 0))
        }
        return best
    }
}
