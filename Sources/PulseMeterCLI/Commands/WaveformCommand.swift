import MeterCore
import MeterIO

/// `pulsemeter waveform FILE|- --bars N [--format json|svg|ansi|dat|audiowaveform-json|peaks]
/// [--floor DB]`: a voice-message waveform (or min/max pixels for waveform players), streamed so memory stays flat however long the file (raw PCM on stdin is held in
/// a temporary file first, to know its length).
enum WaveformCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("-n", "--bars"), OptionSpec("-f", "--format"), OptionSpec("--floor"),
        OptionSpec("-o", "--output"), OptionSpec("--width"), OptionSpec("--height"),
        OptionSpec("--color"), OptionSpec("--gap"), OptionSpec("--radius"),
        OptionSpec("--played"), OptionSpec("--played-color"),
        OptionSpec("--normalize", value: false), OptionSpec("--bits"),
        OptionSpec("--pixels-per-second"), OptionSpec("--samples-per-pixel"),
        OptionSpec("--split-channels", value: false),
        OptionSpec("-h", "--help", value: false),
    ] + RawInput.specs + ManyFiles.specs

    /// `--bars N`, or the default.
    static func bars(_ a: ParsedArguments) throws(PulsemeterError) -> Int {
        try a.count("bars", .bars, unit: "bars") ?? CountLimit.bars.defaultValue!
    }

    static func run(_ a: ParsedArguments) throws -> Int32 {
        let many = ManyFiles.requested(a)
        if !many {
            _ = try a.requirePositionals(["FILE|-"])
            try ManyFiles.checkDirectories(a)
        }
        let bars = try self.bars(a)
        let format = try a.choice("format", ["json", "svg", "ansi"] + PixelOptions.formats) ?? "json"
        if many && format != "json" {
            throw PulsemeterError(.usage, "--format \(format) is not allowed with many files: they give one JSON line each; drop --format")
        }
        let pixels = try PixelOptions.parse(a, format: format)
        let normalize = a.flag("normalize")
        if normalize && pixels != nil {
            throw PulsemeterError(.usage, "--normalize is not allowed with --format \(format): it scales levels, which json, svg and ansi draw; drop --normalize")
        }
        let floorDb = try MeterOptions.levelFloor(a)
        let style = try svgStyle(a)

        // A stop signal (Ctrl-C, SIGTERM, SIGHUP): the waveform of what was read, marked
        // "complete":false, and exit 130.
        let cancellation = try Signals.stopCancellation()
        if many {
            // One JSON object per file, each carrying "file", from the same passes.
            return try ManyFiles.run(a, cancellation: cancellation) { path in
                ManyFiles.outcome(command: "waveform") { warn in
                    var w = try WaveformPasses.bars(path: path, bars: bars, floorDb: floorDb, warn: warn,
                                                    cancellation: cancellation)
                    w.normalized = normalize
                    return (Array(WaveformRenderer.json(w, file: path.string).utf8), w.complete)
                }
            }
        }
        let path = a.positionalPaths[0]
        let reader = try open(path, a, cancellation: cancellation)
        if let pixels { return try writePixels(reader, pixels, bars: bars, path: path, a, cancellation: cancellation) }
        // A file stops between blocks; stdin has already ended at the signal (all that came).
        var waveform = try WaveformPasses.bars(reader, bars: bars, floorDb: floorDb,
                                               cancellation: path.isDash ? Cancellation() : cancellation)
        if path.isDash && cancellation.isCancelled { waveform.framesRead = waveform.frames }
        waveform.normalized = normalize
        try write(waveform, format: format, style: style, to: try OutputChoice.open(a))
        if let read = waveform.framesRead {
            let name = path.isDash ? "stdin" : path.lastComponent.description
            return Interruption.report(read: read, of: path.isDash ? nil : waveform.frames, rate: waveform.rate,
                                       name: name, what: "waveform", marked: format == "json")
        }
        return 0
    }

    /// The SVG options (`--width`, `--height`, `--gap`, `--radius`, `--played`, the colours).
    static func svgStyle(_ a: ParsedArguments) throws -> WaveformRenderer.SVGStyle {
        var style = WaveformRenderer.SVGStyle()
        style.width = try a.double("width", what: "use a width in px above 0", valid: { $0 > 0 && $0 <= 100_000 }) ?? style.width
        style.height = try a.double("height", what: "use a height in px above 0", valid: { $0 > 0 && $0 <= 100_000 }) ?? style.height
        style.gap = try a.double("gap", what: "use a gap in px of 0 or more", valid: { $0 >= 0 })
        style.radius = try a.double("radius", what: "use a radius in px of 0 or more", valid: { $0 >= 0 })
        style.played = try a.double("played", what: "use a fraction from 0 to 1", valid: { $0 >= 0 && $0 <= 1 })
        if let c = a.string("color") { style.color = try cssColor(c, option: "color") }
        if let c = a.string("played-color") { style.playedColor = try cssColor(c, option: "played-color") }
        return style
    }

    /// The one input: a file, or raw PCM on stdin held in a temporary file (a stop signal ends
    /// stdin there: the waveform of what came, not all of the stream).
    static func open(_ path: FilePath, _ a: ParsedArguments, cancellation: Cancellation) throws -> any AudioFileSource {
        guard path.isDash else {
            try RawInput.rejectLayout(a, file: path.description)
            return try AudioFile.open(path, cancellation: cancellation)
        }
        let raw = try RawInput.layout(a)
        let spool = try RawPCMSpool(fd: 0, format: raw.format, rate: raw.rate, channels: raw.channels,
                                    cancellation: cancellation)
        RawInput.warnTrailing(spool.trailingBytes, format: raw.format, channels: raw.channels)
        return spool
    }

    /// Writes min/max pixels (`--format dat|audiowaveform-json|peaks`); exit 130 when a stop
    /// ended stdin or cut the file short.
    static func writePixels(_ reader: any AudioFileSource, _ pixels: PixelOptions, bars: Int, path: FilePath,
                            _ a: ParsedArguments, cancellation: Cancellation) throws -> Int32 {
        let output = try OutputChoice.open(a)
        if case .dat = pixels.format, output.isTerminal {
            throw PulsemeterError(.usage, "--format dat writes binary data: give -o FILE.dat or redirect stdout")
        }
        // A file stops between blocks; stdin has already ended at the signal (all that came).
        var end = WaveformPasses.PixelsEnd.whole
        do {
            end = try WaveformPasses.pixels(reader, pixels, bars: bars, to: output,
                                            cancellation: path.isDash ? Cancellation() : cancellation)
        } catch is OutputClosed {}
        // stdin ended by the signal: the document is of what came, all of it.
        if path.isDash && cancellation.isCancelled { end = .stopped(read: reader.declaredFrames, of: nil) }
        let name = path.isDash ? "stdin" : path.lastComponent.description
        switch end {
        case .whole: return 0
        case .stopped(let read, let total):
            return Interruption.report(read: read, of: total, rate: reader.rate,
                                       name: name, what: "waveform", marked: false)
        case .stoppedCounting(let read):
            return Interruption.reportCounting(read: read, rate: reader.rate, name: name)
        }
    }

    /// Writes the bars as JSON, SVG or one ANSI line.
    static func write(_ waveform: Waveform, format: String, style: WaveformRenderer.SVGStyle, to output: FileDescriptorOutput) throws {
        let text: String
        switch format {
        case "svg": text = WaveformRenderer.svg(waveform, style: style)
        case "ansi":
            text = WaveformRenderer.ansi(waveform, unicode: Terminal.localeIsUTF8,
                                         color: output.isTerminal && Terminal.colorAllowed, played: style.played)
        default: text = WaveformRenderer.json(waveform)
        }
        do {
            try output.write(Array(text.utf8))
        } catch is OutputClosed {}
    }

    /// Accepts a CSS colour value without characters that could break out of the attribute.
    static func cssColor(_ s: String, option: String) throws(PulsemeterError) -> String {
        let ok = !s.isEmpty && s.count <= 64 && s.allSatisfy { $0.isLetter || $0.isNumber || "#(),.% ".contains($0) }
        guard ok else {
            throw PulsemeterError(.usage, "--\(option) \(s) is not allowed: use a CSS colour such as #4a90e2, rgb(74,144,226) or steelblue")
        }
        return s
    }
}
