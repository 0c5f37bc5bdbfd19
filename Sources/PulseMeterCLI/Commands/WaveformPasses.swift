import MeterCore
import MeterIO

/// waveform's reading of one file, for its bars (json, svg, ansi, and play's picture) and its
/// min/max pixels (dat, audiowaveform-json, peaks) alike: each pass a session of the one engine
/// whose only measurement is the picture (`WaveformRequest`), and the second pass that a length
/// needed up front asks for when the header's is not what decodes. Memory stays flat however
/// long the file.
enum WaveformPasses {
    /// The bars of an audio file (through ffmpeg what libsndfile does not read).
    static func bars(path: FilePath, bars: Int, floorDb: Double, warn: (String) -> Void = CLI.warn,
                     cancellation: Cancellation = Cancellation()) throws -> Waveform {
        try self.bars(try AudioFile.open(path), bars: bars, floorDb: floorDb, warn: warn, cancellation: cancellation)
    }

    /// Meters the file once with the frame count its header gives; if the file holds a
    /// different number of frames (a truncated data chunk, an estimated MP3 or m4a length), a
    /// second pass with the true count, so that bar boundaries are exact. A stop
    /// (`cancellation`) cuts it short: the waveform so far, with `framesRead`.
    static func bars(_ reader: any AudioFileSource, bars: Int, floorDb: Double,
                     warn: (String) -> Void = CLI.warn, cancellation: Cancellation = Cancellation()) throws -> Waveform {
        var frames = reader.declaredFrames
        let file = reader as? SoundFileReader  // how its decoding ended is worded (InputEnding)
        for _ in 0..<2 {
            let summary = try pass(reader, .bars(count: bars, frames: frames, floorDb: floorDb), into: DiscardingSink(),
                                   cancellation: cancellation)
            var waveform = summary.waveform!  // a bars request's end line carries them
            if summary.complete == false {
                waveform.framesRead = summary.pos
                return waveform
            }
            if let file, case .decodeError = file.ending { try InputEnding.report(file, warn: warn) }  // no second pass past damage
            if summary.pos == frames {
                if let file { try InputEnding.report(file, warn: warn) }
                return waveform
            }
            frames = summary.pos
            try rewind(reader)
        }
        throw lengthsDiffer(reader)
    }

    /// How a pixel run ended.
    enum PixelsEnd {
        case whole
        /// A stop (`cancellation`) after `read` frames of `of` (the length counted or declared;
        /// nil: none known): the document ends in form (`WaveformDataWriter.finish`).
        case stopped(read: Int, of: Int?)
        /// A stop while the frames were being counted, before anything was written.
        case stoppedCounting(read: Int)
    }

    /// Writes the pixels of `reader` to `output` in one pass (after a pass that counts the
    /// frames when the length is needed up front and the header's is not exact). A stop
    /// (`cancellation`) cuts either pass short.
    static func pixels(_ reader: any AudioFileSource, _ options: PixelOptions, bars: Int,
                       to output: any ByteOutput, warn: (String) -> Void = CLI.warn,
                       cancellation: Cancellation = Cancellation()) throws -> PixelsEnd {
        let file = reader as? SoundFileReader
        var needsLength = options.spacing == .bars
        if case .dat = options.format { needsLength = true }
        var frames: Int? = nil
        if needsLength {
            if lengthIsExact(reader) {
                frames = reader.declaredFrames
            } else {
                let counted = try pass(reader, .length, into: DiscardingSink(), cancellation: cancellation)
                if counted.complete == false { return .stoppedCounting(read: counted.pos) }
                frames = counted.pos
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
        let outputChannels = MinMaxAccumulator.outputChannels(channels: reader.channels, split: options.split)
        let writer = try WaveformDataWriter(format: options.format, output: output, rate: reader.rate,
                                            samplesPerPixel: layout.samplesPerPixel, channels: outputChannels,
                                            length: frames.map { layout.pixelCount(frames: $0) })
        let sink = WaveformPixelSink(writer: writer, statedFrames: frames)
        let seen = try pass(reader, .pixels(split: options.split, layout: layout), into: sink, cancellation: cancellation)
        if seen.complete == false {
            return .stopped(read: seen.pos, of: frames ?? (reader.declaredFrames > 0 ? reader.declaredFrames : nil))
        }
        if let file { try InputEnding.report(file, warn: warn) }
        if let frames, seen.pos != frames { throw lengthsDiffer(reader) }
        return .whole
    }

    /// One pass: `reader` from where it is to its end (or the cancellation) through a session
    /// whose one measurement is `picture`, into `sink`; its end line. On the caller's thread
    /// alone: the picture costs less than a read-ahead's and an output thread's wake-ups (spread,
    /// the bars of a 10-minute file took 16% more CPU for 3% less wall time).
    private static func pass(_ reader: any AudioFileSource, _ picture: WaveformRequest, into sink: any FrameSink,
                             cancellation: Cancellation = Cancellation()) throws -> StreamSummary {
        var settings = MeterSettings(rate: reader.rate, channels: reader.channels,
                                     fps: picture.framesPerSecond(rate: reader.rate))
        settings.waveform = picture
        let description = SessionDescription(sources: [.init(reader, settings: try ValidSettings(settings))], threads: .inline)
        return try MeterSession(description, cancellation: cancellation).run(into: [sink])[0]
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
