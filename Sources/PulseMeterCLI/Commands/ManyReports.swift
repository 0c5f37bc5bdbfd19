import MeterCore
import MeterIO

/// `analyze A B C --report DIR/`: a page per file in DIR (`DIR/NAME.html`, NAME the file's
/// name without its extension, `NAME-2.html` for a second file of that name) and
/// `DIR/index.html`, a row of figures per file that gave its end line, in the run's order.
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

    func attach(to sink: any FrameSink, page: FilePath?, file: String, lines: NDJSONLines) -> any FrameSink {
        guard let page else { return sink }
        return FanOutSink([sink, ReportSink(header: header, file: file, lines: lines, write: ReportOptions.writer(page, force: force))])
    }

    func add(_ path: FilePath, _ outcome: ManyFiles.Outcome) {
        guard case .lines = outcome.result, var summary = outcome.summary, let page = outcome.page else { return }
        summary.file = path.string
        entries.append(ReportIndex.Entry(file: path.string, page: page, figures: EndLineFigures(summary)))
    }

    func writeIndex() throws {
        let index = FilePath(ReportOptions.indexName).inDirectory(directory)
        try ReportOptions.writer(index, force: force)(Array(ReportIndex.html(entries, header: header).utf8))
    }
}
