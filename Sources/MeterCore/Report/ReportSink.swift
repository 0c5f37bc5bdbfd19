/// `--report PATH`: gathers a run's curves (`CurveHistory`, bounded) and events as the frames
/// pass, and at the end hands the page (`ReportPage`) to `write`, which puts it on disk. A live
/// run's end comes on a stop signal too, so its report is written then. With several sources
/// the first is drawn (the CLI allows one).
public final class ReportSink: FrameSink {
    /// At most this many event markers; more are thinned (`ReportMarks`).
    public static let maxMarks = 2000

    private let header: ReportPage.Header
    private let file: String?
    private let write: ([UInt8]) throws -> Void
    private let lines: NDJSONLines
    private var info: StreamInfo?
    private var layout = ReportPage.Series(channels: 0, loudness: false, spl: false)
    private var history = CurveHistory(series: 0)
    private var marks = ReportMarks(limit: maxMarks)
    private var values: [Double] = []
    /// The figures of the end line the page shows (a many-file report's index row), once the
    /// end line has come.
    public private(set) var figures: EndLineFigures?

    /// `file`: the end line's `file` (a many-file run's), so the figures are that line's.
    /// `lines`: the run's, so the figures are read from the end line its output wrote.
    public init(header: ReportPage.Header, file: String? = nil, lines: NDJSONLines = NDJSONLines(),
                write: @escaping ([UInt8]) throws -> Void) {
        self.header = header
        self.lines = lines
        self.file = file
        self.write = write
    }

    private func mine(_ stream: Int?) -> Bool { (stream ?? 0) == 0 }

    public func start(_ info: StreamInfo) throws {
        guard mine(info.stream) else { return }
        self.info = info
        let s = info.settings
        layout = ReportPage.Series(channels: s.channels, loudness: s.loudness, spl: s.spl != nil)
        history = CurveHistory(series: layout.count)
        values = Array(repeating: Decibels.floor, count: layout.count)
    }

    public func frame(_ frame: MeterFrame) throws {
        guard mine(frame.stream), info != nil else { return }
        layout.fill(&values, from: frame)
        history.append(values, pos: frame.pos)
        for e in frame.events { mark(e.name, pos: e.pos) }
    }

    public func gap(_ gap: StreamGap) throws {
        if mine(gap.stream) { mark("gap", pos: gap.pos) }
    }

    public func device(_ change: DeviceChange) throws {}

    public func file(_ event: RecordingFileEvent) throws {
        if mine(event.stream) { mark("file_\(event.kind.rawValue)", pos: event.pos) }
    }

    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {
        if mine(stream) { mark(event.name, pos: event.pos) }
    }

    public func idle(outage: Bool, stream: Int?) throws {}
    public func flush() throws {}

    public func end(_ summary: StreamSummary) throws {
        guard mine(summary.stream), let info else { return }
        for e in summary.events { mark(e.name, pos: e.pos) }
        var s = summary
        s.file = file ?? summary.file
        let figures = EndLineFigures(line: lines.end(s))
        self.figures = figures
        let page = ReportPage(header: header, info: info, summary: s, figures: figures,
                              layout: layout, history: history, marks: marks.marks)
        try write(Array(page.html().utf8))
    }

    private func mark(_ kind: String, pos: Int) {
        marks.add(kind, pos: pos, granule: history.width * max(1, info?.settings.hop ?? 1))
    }
}

/// The event markers of a report, bounded: past `limit`, markers of a kind closer than a
/// granule (a chart bucket's span, doubling as needed) to the one kept before are dropped.
struct ReportMarks {
    let limit: Int
    private(set) var marks: [(kind: String, pos: Int)] = []
    private var granule = 1

    init(limit: Int) { self.limit = limit }

    mutating func add(_ kind: String, pos: Int, granule g: Int) {
        granule = max(granule, g)
        marks.append((kind, pos))
        while marks.count > limit { thin() }
    }

    private mutating func thin() {
        var last: [String: Int] = [:]
        marks = marks.filter { m in
            if let p = last[m.kind], m.pos - p < granule { return false }
            last[m.kind] = m.pos
            return true
        }
        granule *= 2
    }
}
