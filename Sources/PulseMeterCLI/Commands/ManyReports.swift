import MeterCore
import MeterIO

/// `analyze A B C --report DIR/`: a page per file in DIR (`DIR/NAME.html`, NAME the file's
/// name without its extension, `NAME-2.html` for a second file of that name) and
/// `DIR/index.html`, a row of figures per file that gave its end line, in the run's order: the
/// figures its page read from that line (encoded once, by the file's `NDJSONLines`).
final class ManyReports: @unchecked Sendable {
    let directory: FilePath
    private let header: ReportPage.Header
    private let force: Bool
    /// The page names taken so far (claimed by the workers).
    private let taken = Locked<Set<String>>([ReportOptions.indexName])
    /// The index's rows; `add` runs on the caller's thread only (ManyFiles' delivery).
    private var entries: [ReportIndex.Entry] = []

    init(directory: FilePath, _ a: ParsedArguments) {
        self.directory = directory
        header = ReportOptions.header(a)
        force = a.flag("force")
    }

    /// The page for `input`, a name no other file of the run has; an existing page without
    /// `--force` fails the file (73), as it would a one-file run.
    func claim(_ input: FilePath) throws -> FilePath {
        let base = String(ReportOptions.pageName(input.string).string.dropLast(".html".count))
        let name = taken.withLock { names in
            var n = 1, name = base + ".html"
            while names.contains(name) {
                n += 1
                name = base + "-\(n).html"
            }
            names.insert(name)
            return name
        }
        let page = FilePath(name).inDirectory(directory)
        try ReportOptions.refuseExisting(page, force: force)
        return page
    }

    /// `sink` and the page's sink beside it (nil without a page), whose `figures` become the
    /// file's row (`row`).
    func attach(to sink: any FrameSink, page: FilePath?, file: String, lines: NDJSONLines) -> (any FrameSink, ReportSink?) {
        guard let page else { return (sink, nil) }
        let report = ReportSink(header: header, file: file, lines: lines, write: ReportOptions.writer(page, force: force))
        return (FanOutSink([sink, report]), report)
    }

    /// The index row of `file`, once its page is written: nil when no end line came.
    static func row(_ file: FilePath, page: FilePath?, _ report: ReportSink?) -> ReportIndex.Entry? {
        guard let page, let figures = report?.figures else { return nil }
        return ReportIndex.Entry(file: file.string, page: page.lastComponent.string, figures: figures)
    }

    func add(_ path: FilePath, _ outcome: ManyFiles.Outcome) {
        guard case .lines = outcome.result, let row = outcome.indexRow else { return }
        entries.append(row)
    }

    func writeIndex() throws {
        let index = FilePath(ReportOptions.indexName).inDirectory(directory)
        try ReportOptions.writer(index, force: force)(Array(ReportIndex.html(entries, header: header).utf8))
    }
}
