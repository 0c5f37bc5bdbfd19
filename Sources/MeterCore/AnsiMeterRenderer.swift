/// Builds the live ANSI meter screen from frames; pure string building, no terminal I/O.
///
/// The screen is drawn on the alternate screen buffer from the home position, every line
/// cleared to its end, the rest of the screen cleared below, so a frame redraws in place
/// whatever the terminal did in between (resizes included). One bar per channel with
/// eighth-cell resolution, green/yellow/red zones, a peak-hold marker and the dB readout;
/// a spectrum of the bands when they are on; a status line.
public struct AnsiMeterRenderer {
    public var width: Int
    public var height: Int
    public var color: Bool
    public var glyphs: BarGlyphs
    /// Bottom of the level scale in dBFS.
    public var floorDb: Double = -60
    /// Bottom of the spectrum scale in dBFS.
    public var spectrumFloorDb: Double = -90
    /// How long a peak marker holds before it falls, in seconds of audio.
    public var peakHoldSeconds: Double = 1.5

    /// How long a clip lamp stays lit after a clipped sample, in seconds of audio.
    public var clipLampSeconds: Double = 2

    private var peakHold: [Double] = []
    private var peakHoldPos: [Int] = []
    /// Per channel, the position of the last hop with a clipped sample (-1: none yet).
    private var lastClipPos: [Int] = []
    /// Between a `silence_start` and its `silence_end` (with `--events`).
    public private(set) var inSilence = false

    public init(width: Int, height: Int, color: Bool, unicode: Bool) {
        self.width = width
        self.height = height
        self.color = color
        self.glyphs = unicode ? .unicode : .ascii
    }

    /// Escape sequences that enter the meter screen (alternate buffer, hidden cursor).
    public static let enter = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J"
    /// Escape sequences that leave it (cursor shown, main buffer back, attributes reset).
    public static let leave = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    private static let esc = "\u{1B}["
    private func sgr(_ code: String) -> String { color ? Self.esc + code + "m" : "" }

    /// The colour of a level: green below -18 dBFS, yellow to -6, red above.
    private func zoneColor(_ db: Double) -> String {
        db >= -6 ? sgr("31") : (db >= -18 ? sgr("33") : sgr("32"))
    }

    /// Channel labels: L/R for stereo, numbers otherwise.
    public static func label(channel: Int, of channels: Int) -> String {
        if channels == 2 { return channel == 0 ? "L" : "R" }
        if channels == 1 { return "M" }
        return String(channel + 1)
    }

    /// A right-aligned dB readout with one decimal, e.g. " -23.0".
    public static func readout(_ db: Double, width: Int = 6) -> String {
        let tenths = Int((db * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let a = abs(tenths)
        let s = "\(sign)\(a / 10).\(a % 10)"
        return String(repeating: " ", count: max(0, width - s.count)) + s
    }

    /// One horizontal bar of `cells` cells for `db`, coloured per zone, with a peak marker.
    public func bar(db: Double, peakDb: Double?, cells: Int) -> String {
        guard cells > 0 else { return "" }
        let range = -floorDb
        let (full, eighths) = BarGlyphs.split((db - floorDb) / range, cells: cells)
        var markerCell = -1
        if let peakDb, peakDb > floorDb {
            markerCell = min(cells - 1, Int(((peakDb - floorDb) / range * Double(cells)).rounded(.down)))
        }
        var out = ""
        var current = ""
        for i in 0..<cells {
            let cellDb = floorDb + (Double(i) + 0.5) / Double(cells) * range
            let zone = zoneColor(cellDb)
            let glyph: String
            if i == markerCell && i >= full {
                glyph = glyphs.peakMarker
            } else if i < full {
                glyph = glyphs.horizontal[8]
            } else if i == full && eighths > 0 {
                glyph = glyphs.horizontal[eighths]
            } else {
                glyph = " "
            }
            if zone != current && glyph != " " {
                out += zone
                current = zone
            }
            out += glyph
        }
        return out + sgr("0")
    }

    /// Takes in what a frame says beyond its levels (clips, silence), whether or not it is
    /// drawn: the sink skips drawing frames that come faster than the screen needs.
    public mutating func observe(_ frame: MeterFrame) {
        if lastClipPos.count != frame.clipSamples.count {
            lastClipPos = Array(repeating: -1, count: frame.clipSamples.count)
        }
        for (c, n) in frame.clipSamples.enumerated() where n > 0 { lastClipPos[c] = frame.pos }
        for e in frame.events {
            switch e.kind {
            case .silenceStart: inSilence = true
            case .silenceEnd: inSilence = false
            case .clip: break
            }
        }
    }

    /// True while channel `c`'s clip lamp is lit at `pos`.
    public func clipLamp(channel c: Int, at pos: Int, rate: Int) -> Bool {
        c < lastClipPos.count && lastClipPos[c] >= 0
            && Double(pos - lastClipPos[c]) <= clipLampSeconds * Double(rate)
    }

    /// Renders one frame as a full screen update; `status` goes on the head line (an outage,
    /// the recording's file and take).
    public mutating func render(_ frame: MeterFrame, info: StreamInfo, status: String? = nil) -> String {
        let s = info.settings
        let channels = s.channels
        if peakHold.count != channels {
            peakHold = Array(repeating: Decibels.floor, count: channels)
            peakHoldPos = Array(repeating: 0, count: channels)
        }
        let holdFrames = Int(peakHoldSeconds * Double(s.rate))
        for c in 0..<channels {
            if frame.peakDb[c] >= peakHold[c] || frame.pos - peakHoldPos[c] > holdFrames {
                peakHold[c] = frame.peakDb[c]
                peakHoldPos[c] = frame.pos
            }
        }
        let w = max(20, width)
        var lines: [String] = []
        let seconds = Double(frame.pos) / Double(s.rate)
        var head = "\(SafeText.terminal(info.source))  \(s.rate) Hz  \(channels) ch  \(Self.clock(seconds))"
        if let status { head += "  " + status }
        if inSilence { head += "  silence" }
        lines.append(sgr("1") + Self.fit(head, w) + sgr("0"))
        let labelWidth = channels > 9 ? 3 : 2
        // "L " + bar + " -23.0 dB  pk  -20.0", or just " -23.0" on a narrow terminal.
        let narrow = w < 50
        let readoutWidth = (narrow ? 7 : 22) + 5  // and " CLIP", the clip lamp
        let cells = max(1, w - labelWidth - readoutWidth - 1)
        let maxBarLines = max(1, height - 2 - (frame.bandsDb != nil ? 6 : 0) - (frame.loudness != nil ? 2 : 0))
        for c in 0..<min(channels, maxBarLines) {
            let label = Self.label(channel: c, of: channels)
            let pad = String(repeating: " ", count: max(0, labelWidth - label.count))
            var line = label + pad + bar(db: frame.rmsDb[c], peakDb: peakHold[c], cells: cells) + " " + Self.readout(frame.rmsDb[c])
            if !narrow { line += " dB  pk " + Self.readout(frame.peakDb[c]) }
            line += clipLamp(channel: c, at: frame.pos, rate: s.rate) ? " " + sgr("1;41") + "CLIP" + sgr("0") : "     "
            lines.append(line)
        }
        if let loudness = frame.loudness {
            lines.append(contentsOf: loudnessLines(loudness, target: s.targetLufs, width: w))
        }
        if let bands = frame.bandsDb {
            let rows = max(2, min(16, height - lines.count - 2))
            lines.append(contentsOf: spectrum(bands, rows: rows, width: w))
            if let edges = info.bandsHz, let first = edges.first, let last = edges.last {
                let lo = Self.hz(first.0), hi = Self.hz(last.1)
                let gap = max(1, min(w, bands.count * max(1, w / max(1, bands.count))) - lo.count - hi.count)
                lines.append(sgr("2") + lo + String(repeating: " ", count: gap) + hi + sgr("0"))
            }
        }
        var out = Self.esc + "H"
        for line in lines.prefix(max(1, height)) {
            out += line + Self.esc + "K\r\n"
        }
        out += Self.esc + "J"
        return out
    }

    /// Bottom of the loudness bar's scale in LUFS (its top is 0).
    public static let loudnessFloor = -60.0
    /// True peak above this (dBTP) shows in the warning colour (EBU R128's limit for broadcast).
    public static let truePeakLimit = -1.0

    /// The loudness lines: a short-term bar (-60..0 LUFS) with the target marked, then M, S,
    /// I, LRA and true peak as numbers. S over the target and true peak over -1 dBTP show in
    /// the warning colour (marked `!` without colour).
    public func loudnessLines(_ l: LoudnessReading, target: Double?, width w: Int) -> [String] {
        let over = target.map { l.shortTerm > $0 } ?? false
        let cells = max(4, w - 15)
        let range = -Self.loudnessFloor
        let (full, eighths) = BarGlyphs.split((l.shortTerm - Self.loudnessFloor) / range, cells: cells)
        var targetCell = -1
        if let target { targetCell = min(cells - 1, max(0, Int(((target - Self.loudnessFloor) / range * Double(cells)).rounded(.down)))) }
        var bar = sgr(over ? "31" : "32")
        for i in 0..<cells {
            if i == targetCell {
                bar += sgr("1;36") + (glyphs.peakMarker == "|" ? "|" : "┃") + sgr("0") + sgr(over ? "31" : "32")
            } else if i < full {
                bar += glyphs.horizontal[8]
            } else if i == full && eighths > 0 {
                bar += glyphs.horizontal[eighths]
            } else {
                bar += " "
            }
        }
        bar += sgr("0")
        let warn = color ? "" : "!"
        let bar0 = "S  " + bar + Self.readout(l.shortTerm) + (over ? warn : " ") + "LUFS"
        // Readouts as (visible text, coloured text), kept while they fit the width.
        var parts: [(String, String)] = []
        func part(_ label: String, _ value: Double, _ unit: String, hot: Bool = false) {
            let v = Self.readout(value, width: 0)
            parts.append((label + v + (hot ? warn : "") + unit,
                          label + (hot ? sgr("31") : "") + v + (hot ? sgr("0") + warn : "") + unit))
        }
        part("M ", l.momentary, "")
        part("S ", l.shortTerm, "", hot: over)
        part("I ", l.integrated, " LUFS")
        if let range = l.range { part("LRA ", range, " LU") }
        if let tp = l.truePeakDb?.max() { part("TP ", tp, " dBTP", hot: tp > Self.truePeakLimit) }
        if let target { part("target ", target, "") }
        var text = "", visible = 0
        for (plain, coloured) in parts {
            let add = (visible > 0 ? 2 : 0) + plain.count
            if visible + add > w { break }
            text += (visible > 0 ? "  " : "") + coloured
            visible += add
        }
        return [bar0, text]
    }

    /// A whole stream's loudness in one line, for the closing summaries.
    public static func loudnessSummary(_ l: LoudnessSummary) -> String {
        var s = "I \(readout(l.integrated, width: 0)) LUFS  LRA \(readout(l.range, width: 0)) LU"
        s += "  max M \(readout(l.maxMomentary, width: 0))  max S \(readout(l.maxShortTerm, width: 0))"
        s += "  TP " + l.truePeakDb.map { readout($0, width: 0) }.joined(separator: " ") + " dBTP"
        if let t = l.target, let g = l.gainDb {
            s += "  target \(readout(t, width: 0)): gain \(g >= 0 ? "+" : "")\(readout(g, width: 0)) dB"
        }
        return s
    }

    /// Vertical bars of the band levels, `rows` high, filling `width` columns.
    public func spectrum(_ bands: [Double], rows: Int, width: Int) -> [String] {
        guard !bands.isEmpty, rows > 0 else { return [] }
        let colsPerBand = max(1, width / bands.count)
        let shown = min(bands.count, width)
        var lines: [String] = []
        for r in stride(from: rows - 1, through: 0, by: -1) {
            var line = ""
            var current = ""
            for b in 0..<shown {
                let band = shown == bands.count ? b : b * bands.count / shown
                let f = (bands[band] - spectrumFloorDb) / -spectrumFloorDb
                let (full, eighths) = BarGlyphs.split(f, cells: rows)
                let glyph = r < full ? glyphs.vertical[8] : (r == full ? glyphs.vertical[eighths] : " ")
                let rowDb = spectrumFloorDb * (1 - (Double(r) + 0.5) / Double(rows))
                let zone = zoneColor(rowDb)
                if glyph != " " && zone != current {
                    line += zone
                    current = zone
                }
                line += String(repeating: glyph, count: colsPerBand)
            }
            lines.append(line + sgr("0"))
        }
        return lines
    }

    static func hz(_ f: Double) -> String {
        f >= 1000 ? "\(Int((f / 100).rounded()) / 10).\(Int((f / 100).rounded()) % 10)k" : "\(Int(f.rounded()))"
    }

    /// m:ss (h:mm:ss past an hour).
    public static func clock(_ seconds: Double) -> String {
        let t = max(0, Int(seconds.isFinite ? seconds : 0))
        let s = t % 60, m = (t / 60) % 60, h = t / 3600
        let ss = s < 10 ? "0\(s)" : "\(s)"
        if h > 0 { return "\(h):\(m < 10 ? "0" : "")\(m):\(ss)" }
        return "\(m):\(ss)"
    }

    static func fit(_ s: String, _ width: Int) -> String {
        s.count <= width ? s : String(s.prefix(width))
    }
}
