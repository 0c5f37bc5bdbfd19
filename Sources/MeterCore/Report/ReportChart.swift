/// The report's charts as inline SVG: a timeline (curves over the run's time on a dB axis,
/// with lines, a shaded band and event markers) and a bar chart (band levels over frequency).
/// Each `<svg>` carries its mapping in `data-` attributes (the plot's edges in pixels, the
/// time and dB ranges), so a reader (a test) can turn a point back into seconds and dB.
public struct ReportChart {
    public struct Curve {
        public var name: String
        public var color: String
        public var lows: [Double]
        public var highs: [Double]
        /// Draw the min/max envelope under the line of maxima.
        public var envelope: Bool
        public init(name: String, color: String, lows: [Double], highs: [Double], envelope: Bool = true) {
            self.name = name
            self.color = color
            self.lows = lows
            self.highs = highs
            self.envelope = envelope
        }
    }

    public struct Mark {
        public var kind: String
        public var seconds: Double
        public init(kind: String, seconds: Double) {
            self.kind = kind
            self.seconds = seconds
        }
    }

    static let width = 900.0, height = 260.0
    static let left = 56.0, right = 890.0, top = 12.0, bottom = 228.0

    let dbTop: Double, dbBottom: Double, seconds: Double

    /// A chart of `seconds` of time (at least a frame's worth) over `dbBottom...dbTop`.
    init(dbTop: Double, dbBottom: Double, seconds: Double) {
        self.dbTop = dbTop
        self.dbBottom = min(dbBottom, dbTop - 10)
        self.seconds = max(seconds, 1e-3)
    }

    /// A dB range for values `lowest...highest`: whole tens, at most `span` dB tall.
    static func range(lowest: Double, highest: Double, span: Double) -> (top: Double, bottom: Double) {
        let top = (max(highest, lowest) / 10).rounded(.up) * 10
        let bottom = max(top - span, (lowest / 10).rounded(.down) * 10)
        return (top, min(bottom, top - 10))
    }

    func x(_ t: Double) -> Double { Self.left + min(max(t / seconds, 0), 1) * (Self.right - Self.left) }

    func y(_ db: Double) -> Double {
        let v = min(max(db, dbBottom), dbTop)
        return Self.top + (dbTop - v) / (dbTop - dbBottom) * (Self.bottom - Self.top)
    }

    /// The timeline: `times` (seconds) is each bucket's time.
    func timeline(title: String, unit: String, curves: [Curve], times: [Double], lines: [(name: String, db: Double, color: String)],
                  band: (low: Double, high: Double)?, marks: [Mark]) -> String {
        var out = open(title: title, kind: "timeline")
        out += "<text x=\"4\" y=\"\(Markup.length(Self.top + 4))\" class=\"unit\">\(Markup.escape(unit))</text>\n"
        out += dbGrid() + timeGrid()
        if let band {
            let y1 = y(band.high), y2 = y(band.low)
            out += "<rect class=\"band\" x=\"\(Markup.length(Self.left))\" y=\"\(Markup.length(y1))\" width=\"\(Markup.length(Self.right - Self.left))\" "
                + "height=\"\(Markup.length(y2 - y1))\" data-low=\"\(Markup.length(band.low))\" data-high=\"\(Markup.length(band.high))\"><title>LRA band</title></rect>\n"
        }
        for c in curves { out += path(c, times: times) }
        for l in lines {
            out += "<line class=\"level\" data-name=\"\(Markup.escape(l.name))\" data-db=\"\(Markup.length(l.db))\" x1=\"\(Markup.length(Self.left))\" "
                + "x2=\"\(Markup.length(Self.right))\" y1=\"\(Markup.length(y(l.db)))\" y2=\"\(Markup.length(y(l.db)))\" stroke=\"\(l.color)\">"
                + "<title>\(Markup.escape(l.name))</title></line>\n"
        }
        for m in marks {
            out += "<line class=\"event \(m.kind)\" data-event=\"\(m.kind)\" data-t=\"\(Markup.length(m.seconds))\" x1=\"\(Markup.length(x(m.seconds)))\" "
                + "x2=\"\(Markup.length(x(m.seconds)))\" y1=\"\(Markup.length(Self.top))\" y2=\"\(Markup.length(Self.bottom))\">"
                + "<title>\(m.kind) at \(Markup.length(m.seconds)) s</title></line>\n"
        }
        return out + legend(curves.map { ($0.name, $0.color) } + lines.map { ($0.name, $0.color) }) + "</svg>\n"
    }

    /// Bars over labelled bands: `labels` under the bars (thinned to fit), heights from `levels`.
    func bars(title: String, unit: String, labels: [String], levels: [Double]) -> String {
        var out = open(title: title, kind: "bars")
        out += "<text x=\"4\" y=\"\(Markup.length(Self.top + 4))\" class=\"unit\">\(Markup.escape(unit))</text>\n"
        out += dbGrid()
        let n = max(1, levels.count)
        let slot = (Self.right - Self.left) / Double(n)
        let every = max(1, Int((Double(n) * 44 / (Self.right - Self.left)).rounded(.up)))
        for (i, db) in levels.enumerated() {
            let x0 = Self.left + Double(i) * slot
            let yTop = y(db)
            out += "<rect class=\"bar\" data-db=\"\(Markup.length(db))\" x=\"\(Markup.length(x0 + slot * 0.1))\" y=\"\(Markup.length(yTop))\" "
                + "width=\"\(Markup.length(slot * 0.8))\" height=\"\(Markup.length(Self.bottom - yTop))\"><title>\(Markup.escape(labels[i])) Hz: "
                + "\(Markup.length(db)) dB</title></rect>\n"
            if i % every == 0 {
                out += "<text class=\"tick\" x=\"\(Markup.length(x0 + slot / 2))\" y=\"\(Markup.length(Self.bottom + 14))\" text-anchor=\"middle\">"
                    + "\(Markup.escape(labels[i]))</text>\n"
            }
        }
        out += "<text class=\"tick\" x=\"\(Markup.length(Self.right))\" y=\"\(Markup.length(Self.bottom + 28))\" text-anchor=\"end\">Hz</text>\n"
        return out + "</svg>\n"
    }

    private func open(title: String, kind: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"\(kind)\" viewBox=\"0 0 \(Markup.length(Self.width)) \(Markup.length(Self.height))\" "
            + "width=\"\(Markup.length(Self.width))\" height=\"\(Markup.length(Self.height))\" role=\"img\" "
            + "data-left=\"\(Markup.length(Self.left))\" data-right=\"\(Markup.length(Self.right))\" data-top=\"\(Markup.length(Self.top))\" "
            + "data-bottom=\"\(Markup.length(Self.bottom))\" data-seconds=\"\(Markup.length(seconds))\" data-db-top=\"\(Markup.length(dbTop))\" "
            + "data-db-bottom=\"\(Markup.length(dbBottom))\"><title>\(Markup.escape(title))</title>\n"
    }

    /// The line through each bucket's maximum (one point per bucket) over the envelope of
    /// minima and maxima.
    private func path(_ c: Curve, times: [Double]) -> String {
        guard !times.isEmpty else { return "" }
        var line = "", lower = ""
        for (i, t) in times.enumerated() {
            line += (i == 0 ? "M" : " L") + Markup.length(x(t)) + "," + Markup.length(y(c.highs[i]))
        }
        var out = ""
        if c.envelope && c.lows != c.highs {
            for i in times.indices.reversed() { lower += " L" + Markup.length(x(times[i])) + "," + Markup.length(y(c.lows[i])) }
            out += "<path class=\"envelope\" d=\"\(line)\(lower) Z\" fill=\"\(c.color)\"/>\n"
        }
        return out + "<path class=\"curve\" data-series=\"\(Markup.escape(c.name))\" d=\"\(line)\" stroke=\"\(c.color)\"/>\n"
    }

    private func dbGrid() -> String {
        var out = ""
        let step = (dbTop - dbBottom) > 60 ? 20.0 : 10.0
        var db = dbTop
        while db >= dbBottom {
            out += "<line class=\"grid\" x1=\"\(Markup.length(Self.left))\" x2=\"\(Markup.length(Self.right))\" y1=\"\(Markup.length(y(db)))\" y2=\"\(Markup.length(y(db)))\"/>"
                + "<text class=\"tick\" x=\"\(Markup.length(Self.left - 4))\" y=\"\(Markup.length(y(db) + 4))\" text-anchor=\"end\">\(Markup.length(db))</text>\n"
            db -= step
        }
        return out
    }

    private func timeGrid() -> String {
        let step = Self.niceStep(seconds / 8)
        var out = "", t = 0.0
        while t <= seconds + 1e-9 {
            out += "<line class=\"grid\" x1=\"\(Markup.length(x(t)))\" x2=\"\(Markup.length(x(t)))\" y1=\"\(Markup.length(Self.top))\" y2=\"\(Markup.length(Self.bottom))\"/>"
                + "<text class=\"tick\" x=\"\(Markup.length(x(t)))\" y=\"\(Markup.length(Self.bottom + 14))\" text-anchor=\"middle\">\(Self.clock(t))</text>\n"
            t += step
        }
        return out
    }

    private func legend(_ items: [(String, String)]) -> String {
        var out = "", x = Self.left
        for (name, color) in items {
            out += "<rect x=\"\(Markup.length(x))\" y=\"\(Markup.length(Self.height - 14))\" width=\"10\" height=\"10\" fill=\"\(color)\"/>"
                + "<text class=\"tick\" x=\"\(Markup.length(x + 14))\" y=\"\(Markup.length(Self.height - 5))\">\(Markup.escape(name))</text>\n"
            x += 20 + Double(name.count) * 7
        }
        return out
    }

    /// 1, 2 or 5 times a power of ten (seconds), or minutes and hours in round steps.
    static func niceStep(_ raw: Double) -> Double {
        let candidates: [Double] = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]
        return candidates.first { $0 >= raw } ?? (raw / 86400).rounded(.up) * 86400
    }

    /// A time axis label: "12.5 s", "4:05", "1:02:03".
    static func clock(_ t: Double) -> String {
        if t < 60 { return Markup.length((t * 10).rounded() / 10) + " s" }
        let s = Int(t.rounded())
        let two = { (v: Int) in v < 10 ? "0\(v)" : "\(v)" }
        return s >= 3600 ? "\(s / 3600):\(two(s / 60 % 60)):\(two(s % 60))" : "\(s / 60):\(two(s % 60))"
    }
}
