import MeterCore
import MeterIO

/// waveform's reading of one file, for its bars (json, svg, ansi, and play's picture) and its
/// min/max pixels (dat, audiowaveform-json, peaks) alike: whole passes through the one read
/// loop (`forEachFloatBlock`) into an accumulator, and the second pass that a length needed up
/// front asks for when the header's is not what decodes. Memory stays flat however long the file.
enum WaveformPasses {
    /// The bars of an audio file (through ffmpeg what libsndfile does not read).
    static func bars(path: FilePath, bars: Int, floorDb: Double, warn: (String) -> Void = CLI.warn,
                     shouldStop: () -> Bool = { false }) throws -> Waveform {
        try self.bars(try AudioFile.open(path), bars: bars, floorDb: floorDb, warn: warn, shouldStop: shouldStop)
    }

    /// Streams the file once with the frame count its header gives; if the file holds a
    /// different number of frames (a truncated data chunk, an estimated MP3 or m4a length), runs
    /// a second pass with the true count so bar boundaries are exact. `shouldStop` (polled
    /// between blocks) cuts it short: the waveform so far, with `framesRead`.
    static func bars(_ reader: any AudioFileSource, bars: Int, floorDb: Double,
                     warn: (String) -> Void = CLI.warn, shouldStop: () -> Bool = { false }) throws -> Waveform {
        var frames = reader.declaredFrames
        let file = reader as? SoundFileReader  // how its decoding ended is worded (InputEnding)
        for _ in 0..<2 {
            var acc = WaveformAccumulator(totalFrames: frames, bars: bars, channels: reader.channels)
            let seen = try reader.forEachFloatBlock(shouldStop: shouldStop) { acc.push($0, frames: $1) }
            if shouldStop() {
                var partial = acc.result(rate: reader.rate, floorDb: floorDb)
                partial.framesRead = seen
                return partial
            }
            if let file, case .decodeError = file.ending { try InputEnding.report(file, warn: warn) }  // no second pass past damage
            if seen == frames {
                if let file { try InputEnding.report(file, warn: warn) }
                return acc.result(rate: reader.rate, floorDb: floorDb)
            }
            frames = seen
            try rewind(reader)
        }
        throw lengthsDiffer(reader)
    }

    /// Writes the pixels of `reader` to `output` in one pass (plus a counting pass when the
    /// length is needed up front and the header's is not exact).
    static func pixels(_ reader: any AudioFileSource, _ options: PixelOptions, bars: Int,
                       to output: any ByteOutput, warn: (String) -> Void = CLI.warn) throws {
        let file = reader as? SoundFileReader
        var needsLength = options.spacing == .bars
        if case .dat = options.format { needsLength = true }
        var frames: Int? = nil
        if needsLength {
            if lengthIsExact(reader) {
                frames = reader.declaredFrames
            } else {
                frames = try reader.forEachFloatBlock { _, _ in }
                if let file, case .decodeError = file.ending { try InputEnding.report(file, warn: warn) }
                try rewind(reader)
            }
        }
        let layout: MinMaxAccumulator.Layout
        switch options.spacing {
        case .bars: layout = .bars(count: bars, frames: frames ?? 0)
        case .samplesPerPixel(let spp): layout = .fixed(samplesPerPixel: spp)
        case .pixelsPerSecond(let pps):
            guard pps <= reader.rate else {
                throw PulsemeterError(.usage, "--pixels-per-second \(pps) is not allowed for \(reader.name): at \(reader.rate) Hz use at most \(reader.rate)")
            }
            layout = .fixed(samplesPerPixel: reader.rate / pps)
        }
        var acc = MinMaxAccumulator(channels: reader.channels, split: options.split, layout: layout)
        let writer = try WaveformDataWriter(format: options.format, output: output, rate: reader.rate,
                                            samplesPerPixel: acc.samplesPerPixel, channels: acc.outputChannels,
                                            length: frames.map { acc.pixelCount(frames: $0) })
        let seen = try reader.forEachFloatBlock { try acc.push($0, frames: $1, emit: writer.pixel) }
        if let file { try InputEnding.report(file, warn: warn) }
        if let frames, seen != frames { throw lengthsDiffer(reader) }
        try acc.finish(emit: writer.pixel)
        try writer.finish(frames: seen)
    }

    /// True when `reader`'s declared length is what it decodes: a header-based PCM container
    /// or FLAC whose header states it, or spooled raw PCM. Otherwise (MP3, Ogg, ffmpeg's
    /// estimates) the frames are counted in a first pass.
    static func lengthIsExact(_ reader: any AudioFileSource) -> Bool {
        if reader is RawPCMSpool { return true }
        if let file = reader as? SoundFileReader { return file.promisedFrames == file.declaredFrames }
        return false
    }

    /// Back to the first frame for the second pass.
    private static func rewind(_ reader: any AudioFileSource) throws(PulsemeterError) {
        guard reader.seek(toFrame: 0) else {
            throw PulsemeterError(.notDecodable, "cannot seek in \(reader.name) for a second pass")
        }
    }

    private static func lengthsDiffer(_ reader: any AudioFileSource) -> PulsemeterError {
        PulsemeterError(.notDecodable, "\(reader.name) decodes to a different length on each pass; cannot summarize it")
    }
}
