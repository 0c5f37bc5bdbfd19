/// `index.html` of a many-file report: one table, a row per file with its `end` line's
/// figures (`EndLineFigures`, the line's own digits; several values of a figure, one per
/// channel, in one cell) and a link to the file's page. A few lines of inline script sort it
/// by a column when its heading is clicked; without script it reads in the run's order.
public enum ReportIndex {
    public struct Entry: Sendable {
        public var file: String
        /// The file's page, relative to the index.
        public var page: String
        public var figures: EndLineFigures
        public init(file: String, page: String, figures: EndLineFigures) {
            self.file = file
            self.page = page
            self.figures = figures
        }
    }

    public static func html(_ entries: [Entry], header: ReportPage.Header) -> String {
        var keys: [String] = []
        for e in entries { for r in e.figures.rows where r.key != "file" && !keys.contains(r.key) { keys.append(r.key) } }
        var out = ReportPage.head(title: "pulsemeter report: \(entries.count) files", script: true)
        out += "<h1>pulsemeter report: \(entries.count) files</h1>\n"
        out += "<p>\(Markup.escape(header.date)) · pulsemeter \(Markup.escape(header.version)) · <code>\(Markup.escape(header.command))</code></p>\n"
        out += "<table class=\"index figures\" id=\"files\">\n<thead><tr><th data-key=\"file\">file</th>"
        for k in keys { out += "<th data-key=\"\(Markup.escape(k))\">\(Markup.escape(k))</th>" }
        out += "</tr></thead>\n<tbody>\n"
        for e in entries {
            out += "<tr><td class=\"name\"><a href=\"\(Markup.escape(href(e.page)))\">\(Markup.escape(e.file))</a></td>"
            for k in keys { out += "<td>\(Markup.escape((e.figures[k] ?? []).joined(separator: " ")))</td>" }
            out += "</tr>\n"
        }
        return out + "</tbody>\n</table>\n<script>\n" + sorter + "</script>\n</body>\n</html>\n"
    }

    /// A page name as a relative URL: bytes other than letters, digits and `-._~` percent-encoded.
    static func href(_ name: String) -> String {
        var out = ""
        for b in name.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(Unicode.Scalar(b)))
            default:
                let hex = String(b, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    /// Click a heading: rows sorted by that column (numbers as numbers), again: reversed.
    static let sorter = """
        document.querySelectorAll('#files th').forEach((th, i) => { th.style.cursor = 'pointer'; th.onclick = () => {
          const body = document.querySelector('#files tbody'), up = th.dataset.up !== '1'; th.dataset.up = up ? '1' : '0';
          const v = r => { const t = r.cells[i].textContent, n = parseFloat(t); return isNaN(n) ? t : n; };
          [...body.rows].sort((a, b) => { const x = v(a), y = v(b); return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1); })
            .forEach(r => body.appendChild(r)); }; });

        """
}
