import MeterCore
import MeterIO

/// `pulsemeter analyze FILE|- [OPTIONS]`: a file (or raw PCM on stdin) through the one meter
/// pipeline, as fast as it decodes.
enum AnalyzeCommand {
    static let specs = MeterOptions.specs + ManyFiles.specs + ReportOptions.analyzeSpecs
        + [OptionSpec("--raw"), OptionSpec("--frames", value: false)]

    static func run(_ a: ParsedArguments) throws -> Int32 {
        if ManyFiles.requested(a) { return try runMany(a) }
        _ = try a.requirePositionals(["FILE|-"])
        try ManyFiles.checkDirectories(a)
        let input = a.positionalPaths[0]
        let page = try ReportOptions.page(a, input: input.string)
        let cancellation = try Signals.stopCancellation()  // the end line so far ("complete":false), exit 130
        let source: any SampleBlockSource
        if input.isDash {
            let raw = try RawInput.layout(a)
            source = RawPCMReader(fd: 0, format: raw.format, rate: raw.rate, channels: raw.channels, cancellation: cancellation)
        } else {
            try RawInput.rejectLayout(a, file: input.description)
            source = try AudioFile.open(input, cancellation: cancellation)
        }
        let settings = try MeterOptions.settings(a, rate: source.rate, channels: source.channels)
        let limit = try MeterOptions.durationFrames(a, rate: settings.rate)
        let output = try OutputChoice.open(a)
        let format = try MeterOptions.format(a, outputIsTerminal: output.isTerminal, csv: true)
        try PeriodOptions.checkFormat(a, format)
        // Only a stop signal cancels here: the end line waits for every hook accepted.
        let sinks = try RunSinks.build(a, format: format, output: output, terminal: { _ in
            (AnsiSummarySink(output: output, width: Terminal.size(fd: output.fd)?.columns ?? 80,
                             color: output.isTerminal && Terminal.colorAllowed, unicode: Terminal.localeIsUTF8), restore: {})
        }, stop: cancellation, spl: settings.settings.spl != nil, page: page, live: nil)
        defer { sinks.close() }  // the hooks, when the end line was not written (its reader went away)
        // On a terminal, one progress line on stderr, replaced by what follows (the summary, an
        // error); not when NDJSON goes to that terminal (it would split its lines), and nothing
        // off a terminal.
        let progress = ProgressLine(enabled: Terminal.isTerminal(2) && !(format != .ansi && output.isTerminal))
        defer { progress.clear() }
        let label = input.isDash ? "stdin" : input.lastComponent.description
        let description = SessionDescription(sources: [.init(source, settings: settings, limit: limit)],
                                             progress: progress.isActive ? (progress, label) : nil)
        let summary: StreamSummary
        do {
            summary = try MeterSession(description, cancellation: cancellation).run(into: [sinks.sink])[0]
        } catch is OutputClosed {
            return 0
        }
        if summary.complete == false {
            return Interruption.report(read: summary.pos, of: description.sources[0].length, rate: settings.rate,
                                       name: label, what: format == .ndjson ? "end line" : "summary", marked: format == .ndjson)
        }
        // A damaged or truncated file: said once its end line is out, when all of it was read.
        if let file = source as? SoundFileReader, summary.pos == file.framesRead {
            try InputEnding.report(file)
        }
        if let raw = source as? RawPCMReader {
            RawInput.warnTrailing(raw.trailingBytes, format: raw.format, channels: raw.channels)
        }
        // A verdict that fails: exit 1, as cmp and grep say "differs" and "not found".
        return summary.loudness?.verdict?.pass == false ? 1 : 0
    }
}

extension AnalyzeCommand {
    /// `analyze FILE FILE...`, `--files-from`: each file's end line (with `--frames` all its
    /// lines), carrying `file`, from the same session a single-file run uses. A file damaged
    /// part way gives its error line (65) instead, whose message says how far it was read.
    /// On a terminal (or with `-f ansi`) a table for a person instead: a row of each file's
    /// loudness (measured for it), its verdict, and errors on stderr (`LoudnessTable`).
    static func runMany(_ a: ParsedArguments) throws -> Int32 {
        let frames = a.flag("frames")
        // --frames asks for NDJSON lines: on a terminal too, unless -f says otherwise.
        let format = frames && !a.has("format") ? .ndjson : try MeterOptions.format(a, outputIsTerminal: OutputChoice.isTerminal(a), csv: true)
        if format == .csv {
            throw PulsemeterError(.usage, "--format csv is not allowed with many files: they give one NDJSON line each (or a table on a terminal); drop --format")
        }
        if frames && format == .ansi {
            throw PulsemeterError(.usage, "--frames adds each file's frame lines to its NDJSON, but --format ansi prints a table of the files; drop one")
        }
        for key in ["interval", "lden"] where a.has(key) {
            throw PulsemeterError(.usage, "--\(key) gives the period lines of one input, not of many; run analyze once per file")
        }
        var settings = try MeterOptions.read(a)
        if format == .ansi { settings.loudness = true }  // the table's figures
        _ = try MeterOptions.validated(settings, a)  // option values checked once, before any file
        let table = format == .ansi ? LoudnessTable(settings) : nil
        let forTable = table != nil
        if a.has("exec") {
            throw PulsemeterError(.usage, "--exec runs with one input file (or stdin), not with many; run analyze once per file")
        }
        let reports = try ReportOptions.directory(a).map { ManyReports(directory: $0, a) }
        let cancellation = try Signals.stopCancellation()  // the files so far, those cut short marked, exit 130
        let status = try ManyFiles.run(a, cancellation: cancellation, table: table, delivered: reports?.add) { path in
            var figures: StreamSummary?
            var page: FilePath?
            var report: ReportSink?
            var outcome = ManyFiles.outcome(command: "analyze") { warn in
                page = try reports?.claim(path)
                let source = try AudioFile.open(path)
                var read = try MeterOptions.read(a, rate: source.rate, channels: source.channels)
                if forTable { read.loudness = true }
                let settings = try MeterOptions.validated(read, a)
                let limit = try MeterOptions.durationFrames(a, rate: settings.rate)
                let lines = NDJSONLines()  // each line encoded once for the file's lines and its page
                let sink = FileLinesSink(file: path.string, frames: frames, lines: lines)
                let description = SessionDescription(sources: [.init(source, settings: settings, limit: limit)],
                                                     threads: .inline)
                let (reported, reportSink) = reports?.attach(to: sink, page: page, file: path.string, lines: lines) ?? (sink, nil)
                report = reportSink
                let summary = try MeterSession(description, cancellation: cancellation).run(into: [reported])[0]
                let complete = summary.complete ?? true
                if complete, let file = source as? SoundFileReader, summary.pos == file.framesRead { try InputEnding.report(file, warn: warn) }
                figures = summary
                return (sink.bytes, complete)
            }
            if case .lines = outcome.result { outcome.summary = figures }
            outcome.indexRow = ManyReports.row(path, page: page, report)
            return outcome
        }
        try reports?.writeIndex()
        return status
    }
}
