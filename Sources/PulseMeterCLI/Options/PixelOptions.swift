import MeterCore
import MeterIO

/// waveform's min/max pixel formats (`--format dat|audiowaveform-json|peaks`): their options
/// (`--bits`, `--pixels-per-second`, `--samples-per-pixel`, `--split-channels`) and the one
/// streaming pass that writes them, so memory stays flat however long the file.
struct PixelOptions: Equatable {
    static let formats = ["dat", "audiowaveform-json", "peaks"]

    enum Spacing: Equatable {
        case bars
        case pixelsPerSecond(Int)
        case samplesPerPixel(Int)
    }

    var format: WaveformDataWriter.Format
    var spacing: Spacing
    var split: Bool

    /// nil for the bar formats (json, svg, ansi), which take none of these options.
    static func parse(_ a: ParsedArguments, format: String) throws(PulsemeterError) -> PixelOptions? {
        let pixelOnly = ["bits", "pixels-per-second", "samples-per-pixel", "split-channels"]
        guard formats.contains(format) else {
            if let given = pixelOnly.first(where: { a.has($0) }) {
                throw PulsemeterError(.usage, "--\(given) is not allowed with --format \(format): it applies to --format dat, audiowaveform-json and peaks")
            }
            return nil
        }
        let allowed = WaveformDataWriter.Format.allowedBits
        let bits = try a.int("bits", oneOf: allowed, what: "use \(allowed.map(String.init).joined(separator: " or "))")
            ?? WaveformDataWriter.Format.defaultBits
        if format == "peaks", a.has("bits") {
            throw PulsemeterError(.usage, "--bits is not allowed with --format peaks: peaks are floats; use --format dat or audiowaveform-json")
        }
        let pps = try a.count("pixels-per-second", .pixelsPerSecond, unit: "pixels per second")
        let spp = try a.count("samples-per-pixel", .samplesPerPixel, unit: "frames per pixel")
        if pps != nil && spp != nil {
            throw PulsemeterError(.usage, "--pixels-per-second and --samples-per-pixel are not allowed together: give one")
        }
        if (pps != nil || spp != nil) && a.has("bars") {
            throw PulsemeterError(.usage, "--bars is not allowed with --\(pps != nil ? "pixels-per-second" : "samples-per-pixel"): give one way to space the pixels")
        }
        let f: WaveformDataWriter.Format = switch format {
        case "dat": .dat(bits: bits)
        case "audiowaveform-json": .audiowaveformJSON(bits: bits)
        default: .peaks
        }
        let spacing: Spacing = pps.map { .pixelsPerSecond($0) } ?? spp.map { .samplesPerPixel($0) } ?? .bars
        return PixelOptions(format: f, spacing: spacing, split: a.flag("split-channels"))
    }

    /// True when `reader`'s declared length is what it decodes: a header-based PCM container
    /// or FLAC whose header states it, or spooled raw PCM. Otherwise (MP3, Ogg, ffmpeg's
    /// estimates) the frames are counted in a first pass.
    static func lengthIsExact(_ reader: any AudioFileSource) -> Bool {
        if reader is RawPCMSpool { return true }
        if let file = reader as? SoundFileReader { return file.promisedFrames == file.declaredFrames }
        return false
    }

    /// Writes the pixels of `reader` to `output` in one pass (plus a counting pass when the
    /// length is needed up front and the header's is not exact).
    static func write(_ reader: any AudioFileSource, _ options: PixelOptions, bars: Int,
                      to output: any ByteOutput, warn: (String) -> Void = CLI.warn) throws {
        let block = 16384
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block * reader.channels)
        defer { buffer.deallocate() }
        let file = reader as? SoundFileReader

        var needsLength = options.spacing == .bars
        if case .dat = options.format { needsLength = true }
        var frames: Int? = nil
        if needsLength {
            if lengthIsExact(reader) {
                frames = reader.declaredFrames
            } else {
                var n = 0
                while true {
                    let got = try reader.read(into: buffer, maxFrames: block)
                    if got == 0 { break }
                    n += got
                }
                if let file, case .decodeError = file.ending { try InputEnding.report(file, warn: warn) }
                guard reader.seek(toFrame: 0) else {
                    throw PulsemeterError(.notDecodable, "cannot seek in \(reader.name) for a second pass")
                }
                frames = n
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
        var seen = 0
        while true {
            let n = try reader.read(into: buffer, maxFrames: block)
            if n == 0 { break }
            try acc.push(buffer, frames: n, emit: writer.pixel)
            seen += n
        }
        if let file { try InputEnding.report(file, warn: warn) }
        if let frames, seen != frames {
            throw PulsemeterError(.notDecodable, "\(reader.name) decodes to a different length on each pass; cannot summarize it")
        }
        try acc.finish(emit: writer.pixel)
        try writer.finish(frames: seen)
    }
}
