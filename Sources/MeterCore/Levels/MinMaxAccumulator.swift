/// Streams a sound into min/max pairs per pixel, the data of audiowaveform's `.dat`/JSON
/// formats and of wavesurfer.js `peaks`, appending each finished pixel to the caller's array
/// so memory stays flat however long the sound (a waveform run's frames carry them to the
/// writer, which encodes and writes them as they come).
///
/// Pixels are laid out either as the waveform's bars (pixel i covers frames
/// [floor(i*F/N), floor((i+1)*F/N)), so exactly N pixels, empty ones reading 0) or every
/// `samplesPerPixel` frames from the start (the last one partial; ceil(F/spp) pixels), as
/// audiowaveform's `--pixels-per-second`/`--samples-per-pixel` do. Values are of the mono mix
/// (the channels' sum divided by their count, as audiowaveform mixes) or, split, of each
/// channel; pixels carry one (min, max) pair per output channel, in channel order.
public struct MinMaxAccumulator {
    /// How frames are grouped into pixels.
    public enum Layout: Sendable, Equatable {
        /// N pixels over F frames, the bar boundaries.
        case bars(count: Int, frames: Int)
        /// One pixel every `samplesPerPixel` frames.
        case fixed(samplesPerPixel: Int)

        /// Samples per pixel as a reader's header states it: the fixed step, or F/N rounded
        /// (each bar pixel holds floor or ceil of F/N frames), at least 1.
        public var samplesPerPixel: Int {
            switch self {
            case .fixed(let spp): return spp
            case .bars(let n, let f): return max(1, Int((Double(f) / Double(n)).rounded()))
            }
        }

        /// Pixels a sound of `frames` frames gives.
        public func pixelCount(frames: Int) -> Int {
            switch self {
            case .bars(let n, _): return n
            case .fixed(let spp): return (frames + spp - 1) / spp
            }
        }
    }

    public let channels: Int
    public let outputChannels: Int
    public let layout: Layout
    public private(set) var framesSeen = 0
    public private(set) var pixelsEmitted = 0

    private var mins: [Float]
    private var maxs: [Float]
    private var inPixel = 0        // frames in the current pixel so far
    private var pixelEnd: Int      // frame index where the current pixel ends

    public init(channels: Int, split: Bool, layout: Layout) {
        precondition(channels >= 1)
        switch layout {
        case .bars(let n, let f): precondition(n >= 1 && f >= 0)
        case .fixed(let spp): precondition(spp >= 1)
        }
        self.channels = channels
        self.outputChannels = Self.outputChannels(channels: channels, split: split)
        self.layout = layout
        mins = Array(repeating: .infinity, count: outputChannels)
        maxs = Array(repeating: -.infinity, count: outputChannels)
        pixelEnd = 0
        pixelEnd = end(ofPixel: 0)
    }

    /// The (min, max) pairs a pixel holds: one per channel split, else one of the mono mix.
    public static func outputChannels(channels: Int, split: Bool) -> Int { split ? channels : 1 }

    private func end(ofPixel i: Int) -> Int {
        switch layout {
        case .bars(let n, let f): return WaveformAccumulator.boundary(i + 1, bars: n, frames: f)
        case .fixed(let spp): return (i + 1) * spp
        }
    }

    /// Adds `frames` interleaved frames; each pixel finished by them is appended to `pixels`
    /// as (min, max) pairs per output channel, interleaved. In the bar layout frames past F
    /// are ignored (`framesSeen` stops at F).
    public mutating func push(_ samples: UnsafePointer<Float>, frames: Int, into pixels: inout [Float]) {
        emitEmpty(into: &pixels)
        let c = channels
        let divisor = Float(c)
        var i = 0
        while i < frames {
            if case .bars(let n, let f) = layout, pixelsEmitted >= n || framesSeen >= f { return }
            let n = min(frames - i, pixelEnd - framesSeen)
            if outputChannels == 1 {
                var lo = mins[0], hi = maxs[0]
                for k in i..<(i + n) {
                    let p = samples + k * c
                    var m: Float = 0
                    for ch in 0..<c { m += p[ch] }
                    m /= divisor
                    lo = min(lo, m)
                    hi = max(hi, m)
                }
                mins[0] = lo
                maxs[0] = hi
            } else {
                for k in i..<(i + n) {
                    let p = samples + k * c
                    for ch in 0..<c {
                        mins[ch] = min(mins[ch], p[ch])
                        maxs[ch] = max(maxs[ch], p[ch])
                    }
                }
            }
            i += n
            framesSeen += n
            inPixel += n
            if framesSeen == pixelEnd { emitPixel(into: &pixels) }
            emitEmpty(into: &pixels)
        }
    }

    /// Appends what is left: the partial last pixel, and in the bar layout any empty pixels up to N.
    public mutating func finish(into pixels: inout [Float]) {
        if inPixel > 0 { emitPixel(into: &pixels) }
        if case .bars(let n, _) = layout {
            while pixelsEmitted < n { emitPixel(into: &pixels) }
        }
    }

    /// Bar pixels that hold no frame (F < N) are emitted as soon as they are reached.
    private mutating func emitEmpty(into pixels: inout [Float]) {
        guard case .bars(let n, _) = layout else { return }
        while pixelsEmitted < n && inPixel == 0 && pixelEnd == framesSeen { emitPixel(into: &pixels) }
    }

    private mutating func emitPixel(into pixels: inout [Float]) {
        for ch in 0..<outputChannels {
            pixels.append(inPixel > 0 ? mins[ch] : 0)
            pixels.append(inPixel > 0 ? maxs[ch] : 0)
            mins[ch] = .infinity
            maxs[ch] = -.infinity
        }
        inPixel = 0
        pixelsEmitted += 1
        pixelEnd = end(ofPixel: pixelsEmitted)
    }
}
