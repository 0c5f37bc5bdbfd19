import MeterCore
import MeterIO

/// `--report PATH` (analyze, monitor, record; `--force` to replace one): the run's HTML
/// report (`ReportSink` beside the run's other sinks), written whole when the run ends
/// (`WholeFile`). Several files (`analyze A B --report DIR/`): a page per file in DIR and
/// `DIR/index.html` (docs/reports.md).
enum ReportOptions {
    static let specs = [OptionSpec("--report")]
    /// analyze has no recording to replace: `--force` is the report's.
    static let analyzeSpecs = specs + [OptionSpec("--force", value: false)]
    static let indexName = "index.html"

    /// The page of a one-input run; nil without `--report`. `DIR/` (or a directory) takes
    /// `DIR/NAME.html` of `input`.
    static func page(_ a: ParsedArguments, input: String) throws -> FilePath? {
        guard let path = a.path("report") else {
            try forceNeedsReport(a)
            return nil
        }
        let page = isDirectory(path) ? pageName(input).inDirectory(path) : path
        if isDirectory(path) { try make(path) }
        try refuseExisting(page, force: a.flag("force"))
        return page
    }

    /// The directory of a many-file report, made if missing; nil without `--report`.
    static func directory(_ a: ParsedArguments) throws -> FilePath? {
        guard let path = a.path("report") else {
            try forceNeedsReport(a)
            return nil
        }
        guard isDirectory(path) else {
            throw PulsemeterError(.usage, "--report \(path) names one page, but many files give a page each: give a directory, --report DIR/")
        }
        try make(path)
        try refuseExisting(FilePath(indexName).inDirectory(path), force: a.flag("force"))
        return path
    }

    /// analyze's `--force` is the report's: alone it replaces nothing.
    private static func forceNeedsReport(_ a: ParsedArguments) throws(PulsemeterError) {
        if a.flag("force") && a.command == "analyze" {
            throw PulsemeterError(.usage, "--force replaces an existing report; add --report PATH")
        }
    }

    /// `sink` with the report's sink beside it, writing `page` at the end. `lines`: the run's.
    static func attach(_ a: ParsedArguments, to sink: any FrameSink, page: FilePath?, lines: NDJSONLines) -> any FrameSink {
        guard let page else { return sink }
        return FanOutSink([sink, ReportSink(header: header(a), lines: lines, write: writer(page, force: a.flag("force")))])
    }

    /// Writes a page or the index whole; failures worded as every output's.
    static func writer(_ page: FilePath, force: Bool) -> ([UInt8]) throws -> Void {
        { bytes in
            do throws(OutputError) { try WholeFile.write(bytes, to: page, replace: force) } catch { throw ErrorWording.output(error) }
        }
    }

    /// The command line, the version, the time now (local, RFC 3339).
    static func header(_ a: ParsedArguments) -> ReportPage.Header {
        let now = unixSeconds()
        let date = CivilTime.rfc3339(now.rounded(.down), offset: SystemTimeZone().offset(at: now))
        let command = (["pulsemeter", a.command] + a.arguments).map(quoted).joined(separator: " ")
        return ReportPage.Header(command: command, version: CLI.version, date: date)
    }

    /// A file's page name: its name without the extension, `.html` ("take 1.wav": "take 1.html").
    static func pageName(_ input: String) -> FilePath {
        let last = input.split(separator: "/").last.map(String.init) ?? input
        let stem = last.lastIndex(of: ".").map { $0 == last.startIndex ? last : String(last[..<$0]) } ?? last
        return FilePath((stem.isEmpty || input == "-" ? "stdin" : stem) + ".html")
    }

    /// `DIR/` or an existing directory.
    static func isDirectory(_ path: FilePath) -> Bool { path.bytes.last == UInt8(ascii: "/") || path.isDirectory }

    private static func make(_ dir: FilePath) throws {
        do { try dir.makeDirectory() } catch { throw ErrorWording.output(error) }
    }

    /// An existing report is left as it is without `--force` (exit 73), as recordings are.
    static func refuseExisting(_ page: FilePath, force: Bool) throws {
        if let kind = NewFile.unreplaceable(page) { throw ErrorWording.output(.cannotReplace(page, kind: kind)) }
        if !force, page.exists { throw PulsemeterError(.cannotCreate, "\(page) exists; use --force to replace it") }
    }

    private static func quoted(_ s: String) -> String {
        s.isEmpty || s.contains(where: { " '\"$\\".contains($0) }) ? "'" + s.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'" : s
    }
}
