/// Summarizes a stream of F frames into N bars (a voice-message waveform), streaming.
///
/// Bar i covers frames [floor(i*F/N), floor((i+1)*F/N)): every frame lands in exactly one bar,
/// for any N >= 1 and F >= 0. Each bar keeps the RMS and peak of the mono mix (mean of the
/// channels). Memory is O(N), whatever F is.
public struct WaveformAccumulator {
    public let totalFrames: Int
    public let bars: Int
    public let channels: Int
    public private(set) var framesSeen = 0

    private var sumSquares: [Double]
    private var peaks: [Float]
    private var bar = 0
    private var barEnd: Int

    public init(totalFrames: Int, bars: Int, channels: Int) {
        precondition(bars >= 1 && totalFrames >= 0 && channels >= 1)
        self.totalFrames = totalFrames
        self.bars = bars
        self.channels = channels
        sumSquares = Array(repeating: 0, count: bars)
        peaks = Array(repeating: 0, count: bars)
        barEnd = Self.boundary(1, bars: bars, frames: totalFrames)
        skipEmptyBars()
    }

    /// First frame of bar i: floor(i*F/N), computed without overflow for any realistic F.
    public static func boundary(_ i: Int, bars: Int, frames: Int) -> Int {
        let (hi, lo) = i.multipliedFullWidth(by: frames)
        return Int(truncatingIfNeeded: (bars.dividingFullWidth((hi, lo))).quotient)
    }

    private mutating func skipEmptyBars() {
        while bar < bars - 1 && framesSeen >= barEnd {
            bar += 1
            barEnd = Self.boundary(bar + 1, bars: bars, frames: totalFrames)
        }
    }

    /// Adds `frames` interleaved frames. Frames past F (a file longer than its header said)
    /// are ignored here; the caller checks `framesSeen` against F and redoes with the true F.
    public mutating func push(_ samples: UnsafePointer<Float>, frames: Int) {
        let inv = 1 / Float(channels)
        var i = 0
        while i < frames && framesSeen < totalFrames {
            let n = min(frames - i, barEnd - framesSeen)
            // Summed on from the bar's sum so far: the same sum however the frames come in blocks.
            var acc = sumSquares[bar]
            var pk = peaks[bar]
            for f in i..<(i + n) {
                let p = samples + f * channels
                var m: Float = 0
                for c in 0..<channels { m += p[c] }
                m *= inv
                acc += Double(m) * Double(m)
                pk = max(pk, abs(m))
            }
            sumSquares[bar] = acc
            peaks[bar] = pk
            i += n
            framesSeen += n
            skipEmptyBars()
        }
        if i < frames { overflow += frames - i }
    }

    /// Frames offered beyond `totalFrames`.
    public private(set) var overflow = 0

    /// The finished summary.
    public func result(rate: Int, floorDb: Double) -> Waveform {
        var rms = [Double](repeating: Decibels.floor, count: bars)
        var pk = [Double](repeating: Decibels.floor, count: bars)
        for i in 0..<bars {
            let n = Self.boundary(i + 1, bars: bars, frames: totalFrames) - Self.boundary(i, bars: bars, frames: totalFrames)
            if n > 0 {
                rms[i] = Decibels.fromPower(sumSquares[i] / Double(n))
                pk[i] = Decibels.fromAmplitude(Double(peaks[i]))
            }
        }
        return Waveform(rate: rate, channels: channels, frames: totalFrames, floorDb: floorDb, rmsDb: rms, peakDb: pk)
    }
}

/// A finished waveform summary, as README.md "waveform" describes its JSON.
public struct Waveform: Sendable, Equatable {
    public var rate: Int
    public var channels: Int
    public var frames: Int
    public var floorDb: Double
    public var rmsDb: [Double]
    public var peakDb: [Double]
    /// How far the reading got when a stop signal cut it short (the bars past that point read
    /// -160); nil when the input was read to its end.
    public var framesRead: Int?
    public var complete: Bool { framesRead == nil }
    /// Levels scaled so that the loudest bar reads 1.0 (as chat apps draw a voice message);
    /// `rmsDb` and `peakDb` stay as they are.
    public var normalized = false

    public var bars: Int { rmsDb.count }
    public var duration: Double { rate > 0 ? Double(frames) / Double(rate) : 0 }

    /// levels[i] = clamp((rms_db[i] - floor) / -floor, 0, 1); normalized, each divided by the
    /// largest (all zero stays zero).
    public var levels: [Double] {
        let plain = rmsDb.map { Decibels.level($0, floor: floorDb) }
        guard normalized, let top = plain.max(), top > 0 else { return plain }
        return plain.map { $0 / top }
    }
}
