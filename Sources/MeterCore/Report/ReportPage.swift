/// The report of one run as a self-contained HTML page: inline CSS and SVG, no script, no
/// outside request (its Content-Security-Policy allows none). The header, the PASS/FAIL line
/// of the verdict, the figures of the `end` line (`EndLineFigures`), the timelines and the
/// spectrum (docs/reports.md).
public struct ReportPage {
    /// What the run was: the command line, the program's version, when it ran.
    public struct Header: Sendable {
        public var command: String
        public var version: String
        public var date: String
        public init(command: String, version: String, date: String) {
            self.command = command
            self.version = version
            self.date = date
        }
    }

    /// Which curve is which in a `CurveHistory`: RMS then peak per channel; with loudness M
    /// and S; with the sound level meter the weighted level then Leq per channel.
    public struct Series: Sendable {
        public let channels: Int
        public let loudness: Bool
        public let spl: Bool
        public var count: Int { 2 * channels + (loudness ? 2 : 0) + (spl ? 2 * channels : 0) }
        var momentary: Int { 2 * channels }
        var level: Int { 2 * channels + (loudness ? 2 : 0) }

        public init(channels: Int, loudness: Bool, spl: Bool) {
            self.channels = channels
            self.loudness = loudness
            self.spl = spl
        }

        /// A frame's values in series order (absent readings at the floor).
        func fill(_ v: inout [Double], from f: MeterFrame) {
            for c in 0..<channels {
                v[c] = c < f.rmsDb.count ? f.rmsDb[c] : Decibels.floor
                v[channels + c] = c < f.peakDb.count ? f.peakDb[c] : Decibels.floor
            }
            if loudness {
                v[momentary] = f.loudness?.momentary ?? Decibels.floor
                v[momentary + 1] = f.loudness?.shortTerm ?? Decibels.floor
            }
            if spl {
                for c in 0..<channels {
                    v[level + c] = f.spl.map { c < $0.splDb.count ? $0.splDb[c] : Decibels.floor } ?? Decibels.floor
                    v[level + channels + c] = f.spl.map { c < $0.leqDb.count ? $0.leqDb[c] : Decibels.floor } ?? Decibels.floor
                }
            }
        }
    }

    static let palette = ["#1a5fb4", "#c01c28", "#26a269", "#e66100", "#613583", "#986a44", "#1c71d8", "#a51d2d"]

    let header: Header
    let info: StreamInfo
    let summary: StreamSummary
    /// The end line's figures, read from the line as the run wrote it.
    let figures: EndLineFigures
    let layout: Series
    let history: CurveHistory
    let marks: [(kind: String, pos: Int)]

    public func html() -> String {
        let name = info.source
        var out = Self.head(title: "pulsemeter report: \(name)")
        out += "<h1>pulsemeter report: \(Markup.escape(name))</h1>\n"
        out += headerTable() + verdictLine()
        out += "<h2>Figures</h2>\n" + Self.figuresTable(figures)
        out += "<h2>Timelines</h2>\n" + timelines()
        out += spectrum()
        return out + "</body>\n</html>\n"
    }

    /// The document's start: the policy that forbids every outside request, the style.
    static func head(title: String, script: Bool = false) -> String {
        let policy = "default-src 'none'; style-src 'unsafe-inline'" + (script ? "; script-src 'unsafe-inline'" : "")
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            + "<meta http-equiv=\"Content-Security-Policy\" content=\"\(policy)\">\n"
            + "<title>\(Markup.escape(title))</title>\n<style>\n" + style + "</style>\n</head>\n<body>\n"
    }

    static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff;max-width:960px}
        h1{font-size:20px}h2{font-size:16px;margin-top:24px}
        table{border-collapse:collapse}td,th{padding:2px 10px;border-bottom:1px solid #ddd;text-align:left}
        td{font-variant-numeric:tabular-nums}.figures span{display:inline-block;min-width:4.5em;text-align:right}
        .verdict{font-weight:bold;font-size:16px}.pass{color:#26a269}.fail{color:#c01c28}
        svg{display:block;margin:8px 0}svg text{font:11px sans-serif;fill:#444}
        .grid{stroke:#e4e4e4}.curve{fill:none;stroke-width:1.2}.envelope{opacity:.25;stroke:none}
        .band{fill:#f6d32d;opacity:.3}.level{stroke-dasharray:6 4;stroke-width:1.5}
        .event{stroke-width:1;opacity:.8}.clip{stroke:#c01c28}.silence_start,.silence_end{stroke:#777}
        .gap,.source_lost{stroke:#e66100}.bar{fill:#1a5fb4}[class^="file_"],[class*=" file_"]{stroke:#613583}
        [class*="alarm_"]{stroke:#a51d2d}

        """

    private func headerTable() -> String {
        let s = info.settings
        let names = info.channelNames.joined(separator: " ")
        let rows: [(String, String)] = [
            ("input", summary.file ?? info.source),
            ("duration", ReportChart.clock(summary.duration) + (summary.complete == false ? " (cut short)" : "")),
            ("rate", "\(s.rate) Hz"), ("channels", "\(s.channels) (\(names))"),
            ("date", header.date), ("options", header.command), ("version", "pulsemeter \(header.version)"),
        ]
        var out = "<table class=\"header\">\n"
        for (k, v) in rows { out += "<tr data-key=\"\(k)\"><th>\(k)</th><td>\(Markup.escape(v))</td></tr>\n" }
        return out + "</table>\n"
    }

    /// PASS or FAIL and why, as the terminal summary words it (`AnsiMeterRenderer.deliverySummary`).
    private func verdictLine() -> String {
        guard let l = summary.loudness, let v = l.verdict else { return "" }
        let first = AnsiMeterRenderer.deliverySummary(l, color: false).split(separator: "\n").first ?? ""
        let text = first.hasPrefix("verdict") ? first.dropFirst("verdict".count).drop { $0 == " " } : first
        return "<p class=\"verdict \(v.pass ? "pass" : "fail")\">\(Markup.escape(String(text)))</p>\n"
    }

    /// One row per figure, its values (a `span` each) in the line's own digits.
    static func figuresTable(_ figures: EndLineFigures) -> String {
        var out = "<table class=\"figures\">\n"
        for row in figures.rows {
            out += "<tr data-key=\"\(Markup.escape(row.key))\"><th>\(Markup.escape(row.key))</th>"
            out += "<td>" + row.values.map { "<span>\(Markup.escape($0))</span>" }.joined(separator: " ") + "</td></tr>\n"
        }
        return out + "</table>\n"
    }

    private var seconds: Double { summary.duration }
    private var times: [Double] { history.positions.map { Double($0) / Double(max(1, summary.rate)) } }

    private func curve(_ name: String, _ series: Int, color: Int, envelope: Bool = true) -> ReportChart.Curve {
        ReportChart.Curve(name: name, color: Self.palette[color % Self.palette.count], lows: history.lows(series),
                          highs: history.highs(series), envelope: envelope)
    }

    private var chartMarks: [ReportChart.Mark] {
        marks.map { ReportChart.Mark(kind: $0.kind, seconds: Double($0.pos) / Double(max(1, summary.rate))) }
    }

    private func chart(_ curves: [ReportChart.Curve], lines: [Double], span: Double) -> ReportChart {
        let highs = curves.flatMap(\.highs).filter { $0 > Decibels.floor }
        let lows = curves.flatMap(\.lows)
        let r = ReportChart.range(lowest: (lows + lines).min() ?? -60, highest: (highs + lines).max() ?? 0, span: span)
        return ReportChart(dbTop: r.top, dbBottom: r.bottom, seconds: seconds)
    }

    private func timelines() -> String {
        let c = layout.channels
        let names = info.channelNames
        var levels: [ReportChart.Curve] = []
        for k in 0..<c { levels.append(curve("peak \(names[k])", c + k, color: 2 * k + 1)) }
        for k in 0..<c { levels.append(curve("RMS \(names[k])", k, color: 2 * k)) }
        var out = chart(levels, lines: [], span: 100)
            .timeline(title: "RMS and peak level per channel", unit: "dBFS", curves: levels, times: times, lines: [], band: nil, marks: chartMarks)
        if layout.loudness, let l = summary.loudness { out += loudness(l) }
        if layout.spl, let spl = info.settings.spl {
            var curves: [ReportChart.Curve] = []
            for k in 0..<c { curves.append(curve("\(spl.unit) \(names[k])", layout.level + k, color: 2 * k)) }
            for k in 0..<c { curves.append(curve("Leq \(names[k])", layout.level + c + k, color: 2 * k + 1, envelope: false)) }
            out += chart(curves, lines: [], span: 100).timeline(title: "Sound level and Leq", unit: spl.unit, curves: curves, times: times,
                                                                lines: [], band: nil, marks: chartMarks)
        }
        return out
    }

    private func loudness(_ l: LoudnessSummary) -> String {
        var momentary = curve("momentary", layout.momentary, color: 0)
        momentary.color = "#99c1f1"
        let curves = [momentary, curve("short-term", layout.momentary + 1, color: 0)]
        var lines: [(name: String, db: Double, color: String)] = []
        if l.integrated > Decibels.floor { lines.append(("integrated", l.integrated, "#26a269")) }
        if let t = l.target { lines.append(("target", t, "#c01c28")) }
        let band = l.rangeLow.flatMap { low in l.rangeHigh.map { (low: low, high: $0) } }
        return chart(curves, lines: lines.map(\.db), span: 60)
            .timeline(title: "Loudness: momentary and short-term, integrated, target, LRA band", unit: "LUFS", curves: curves,
                      times: times, lines: lines, band: band, marks: chartMarks)
    }

    /// The mean spectrum (`--bands`) or the octave band levels (`--octaves`).
    private func spectrum() -> String {
        guard let levels = summary.bandsDb, !levels.isEmpty else { return "" }
        let labels: [String]
        if let octaves = info.octaveBands {
            labels = octaves.map { Self.hertz($0.mid) }
        } else if let edges = info.bandsHz {
            labels = edges.map { Self.hertz(($0.0 * $0.1).squareRoot()) }
        } else {
            return ""
        }
        guard labels.count == levels.count else { return "" }
        let shown = levels.filter { $0 > Decibels.floor }
        let r = ReportChart.range(lowest: shown.min() ?? -100, highest: shown.max() ?? 0, span: 100)
        let title = info.octaveBands != nil ? "Octave band levels" : "Mean spectrum"
        return "<h2>\(title)</h2>\n" + ReportChart(dbTop: r.top, dbBottom: r.bottom, seconds: seconds)
            .bars(title: title, unit: "dBFS", labels: labels, levels: levels)
    }

    /// A frequency to 3 significant digits: "31.6", "126", "1.26k", "12.6k".
    static func hertz(_ f: Double) -> String {
        let (v, suffix) = f >= 1000 ? (f / 1000, "k") : (f, "")
        let scale = v >= 100 ? 1.0 : v >= 10 ? 10.0 : 100.0
        return Markup.length((v * scale).rounded() / scale) + suffix
    }
}
