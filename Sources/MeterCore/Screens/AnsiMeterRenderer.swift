/// Builds the live ANSI meter screen from frames; pure string building, no terminal I/O.
///
/// The screen is drawn on the alternate screen buffer from the home position, every line
/// cleared to its end, the rest of the screen cleared below, so a frame redraws in place
/// whatever the terminal did in between (resizes included). One bar per channel with
/// eighth-cell resolution, green/yellow/red zones, a peak-hold marker, the dB readout and a
/// clip lamp; a dB scale under the bars; a spectrum of the bands with a dB axis when they are
/// on; a status line.
///
/// Small terminals: channel rows come first, then the scale, then the loudness lines (with
/// `--loudness`), then the spectrum (which gives way when it does not fit); below
/// `minimumWidth` x `minimumHeight` one compact line.
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
    /// How fast a held peak marker falls once its hold is over, in dB per second of audio
    /// (a new, higher peak takes it up again at once; it never falls below the current peak).
    public var peakFallDbPerSecond: Double = 20
    /// Below this size the meter is one compact line.
    public static let minimumWidth = 20
    public static let minimumHeight = 3

    /// How long a clip lamp stays lit after a clipped sample, in seconds of audio.
    public var clipLampSeconds: Double = 2

    /// The scrolling level history under the scale (the recording meter); nil: none. It gives
    /// way first: drawn only when the rows after it (loudness, the spectrum's least) still fit.
    public var history: LevelHistory?

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

    /// The rows' channel labels, from the stream's channel names (L R C LFE Ls Rs, A0 ...).
    public static func labels(_ info: StreamInfo) -> [String] {
        ChannelNames.labels(info.channelNames)
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
        history?.append(frame)
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
    /// the recording's file and time, a take awaited).
    public mutating func render(_ frame: MeterFrame, info: StreamInfo, status: MeterStatus = MeterStatus()) -> String {
        let s = info.settings
        let channels = s.channels
        let held = updateHolds(frame, rate: s.rate)
        if width < Self.minimumWidth || height < Self.minimumHeight {
            return Self.esc + "H" + compactLine(frame, rate: s.rate, labels: Self.labels(info), status: status) + Self.esc + "K" + Self.esc + "J"
        }
        let w = width
        var lines: [String] = []
        let head = headLine(source: SafeText.terminal(info.source), settings: s,
                            seconds: Double(frame.pos) / Double(s.rate), status: status, width: w)
        lines.append(sgr("1") + head + sgr("0"))
        let names = Self.labels(info)
        let labelWidth = (names.map(\.count).max() ?? 1) + 1
        // "L " + bar + " -23.0 dB  pk  -20.0", or just " -23.0" on a narrow terminal.
        let narrow = w < 50
        let readoutWidth = (narrow ? 7 : 22) + 5  // and " CLIP", the clip lamp
        let cells = max(1, w - labelWidth - readoutWidth - 1)
        // Every row ends in a line break, so the last row stays free (a break there would
        // scroll). Channel rows first; the scale, the loudness lines, then the spectrum only
        // get what is left.
        let usable = height - 1
        // With --meter (other than dBFS) the bars and the scale are that meter's.
        let meter = s.meter == .dbfs ? nil : s.meter
        for c in 0..<min(channels, max(1, usable - 1)) {
            let label = names[c]
            let pad = String(repeating: " ", count: max(0, labelWidth - label.count))
            var line: String
            if let meter, let readings = frame.meterDb {
                line = label + pad + meterBar(readings[c], meter, cells: cells) + " " + Self.readout(readings[c])
                if !narrow { line += " " + Self.fit(meter.unit + String(repeating: " ", count: 16), 16) }
            } else {
                line = label + pad + bar(db: frame.rmsDb[c], peakDb: held[c], cells: cells) + " " + Self.readout(frame.rmsDb[c])
                if !narrow { line += " dB  pk " + Self.readout(frame.peakDb[c]) }
            }
            line += clipLamp(channel: c, at: frame.pos, rate: s.rate) ? " " + sgr("1;41") + "CLIP" + sgr("0") : "     "
            lines.append(line)
        }
        if lines.count < usable {
            let scale = meter.map { meterScaleLine($0, cells: cells) } ?? scaleLine(cells: cells)
            lines.append(sgr("2") + String(repeating: " ", count: labelWidth) + scale + sgr("0"))
        }
        if let correlation = frame.correlation, usable - lines.count >= 2 {
            lines.append(correlationLine(correlation, balanceDb: frame.balanceDb ?? 0, width: w))
        }
        if let history {
            let after = (frame.loudness != nil ? 2 : 0) + (frame.bandsDb != nil ? 3 : 0)
            if usable - lines.count - after >= 1 {
                lines.append(String(repeating: " ", count: labelWidth) + historyStrip(history.newest(cells), cells: cells))
            }
        }
        if let loudness = frame.loudness {
            // With room for one line only, the numbers (M, S, I, LRA, TP) rather than the bar.
            let both = loudnessLines(loudness, target: s.targetLufs, width: w)
            let room = usable - lines.count
            lines.append(contentsOf: room >= 2 ? both : Array(both.suffix(max(0, room))))
        }
        if let spl = frame.spl, let settings = s.spl, lines.count < usable {
            lines.append(soundLevelLine(spl, settings: settings, width: w))
        }
        if let bands = frame.bandsDb, usable - lines.count >= 3 {
            let rows = min(16, usable - lines.count - 1)
            let gutter = 4
            let axis = spectrumAxis(rows: rows)
            for (i, row) in spectrum(bands, rows: rows, width: max(1, w - gutter)).enumerated() {
                lines.append(sgr("2") + axis[i] + sgr("0") + row)
            }
            if let edges = info.bandsHz, edges.count == bands.count {
                lines.append(sgr("2") + " Hz " + frequencyAxis(edges, width: max(1, w - gutter)) + sgr("0"))
            }
        }
        var out = Self.esc + "H"
        for line in lines.prefix(max(1, usable)) {
            out += line + Self.esc + "K\r\n"
        }
        out += Self.esc + "J"
        return out
    }

    /// The head line: the source, its spec and time, then the status, fitted to `width`. What
    /// gives way, in order: the source name (shortened, then its spec, then the name itself),
    /// the stream's time, the recording's file name, the silence and waiting notes, the
    /// outage's words; REC (or PAUSED) and the recorded time stay at any width the full meter is
    /// drawn at.
    func headLine(source: String, settings s: MeterSettings, seconds: Double, status: MeterStatus, width: Int) -> String {
        var name = source
        var spec: String? = "\(s.rate) Hz  \(s.channels) ch"
        var clock: String? = Self.clock(seconds)
        var alert = status.alert
        var file = status.recordingFile
        let recorded = status.isRecording ? Self.clock(status.recordedSeconds) : nil
        var waiting = status.waiting
        var silence: String? = inSilence ? "silence" : nil
        func compose() -> String {
            let rec = recorded.map { (status.paused ? "PAUSED " : "REC ") + (file.map { $0 + " " } ?? "") + $0 }
            return [name, spec, clock, alert, rec, waiting, silence].compactMap { $0 }.filter { !$0.isEmpty }
                .joined(separator: "  ")
        }
        func over() -> Int { compose().count - width }
        /// `text` cut to at least `shortest` characters so that the line loses `over()`.
        func shorten(_ text: String?, to shortest: Int) -> String? {
            guard let text, over() > 0 else { return text }
            let keep = max(shortest, text.count - over() - glyphs.ellipsis.count)
            return keep >= text.count ? text : String(text.prefix(keep)) + glyphs.ellipsis
        }
        let steps: [() -> Void] = [
            { name = shorten(name, to: 12) ?? "" },
            { spec = nil },
            { name = shorten(name, to: 4) ?? "" },
            { name = "" },
            { clock = nil },
            { file = shorten(file, to: 4) },
            { file = nil },
            { silence = nil },
            { waiting = nil },
            { alert = shorten(alert, to: 1) },
        ]
        for step in steps where over() > 0 { step() }
        return Self.fit(compose(), width)
    }

    /// The history strip: one column per level (oldest first, right-aligned in `cells` so the
    /// newest is at the right), a vertical eighth block as high as the bars' mapping of the
    /// level, coloured by its zone.
    public func historyStrip(_ levels: [Double], cells: Int) -> String {
        var out = String(repeating: " ", count: max(0, cells - levels.count))
        var current = ""
        for db in levels.suffix(cells) {
            let eighths = Int((Decibels.level(db, floor: floorDb) * 8).rounded())
            let glyph = glyphs.vertical[eighths]
            let zone = zoneColor(db)
            if zone != current && glyph != " " {
                out += zone
                current = zone
            }
            out += glyph
        }
        return out + sgr("0")
    }

    /// Bottom of the loudness bar's scale in LUFS (its top is 0).
    public static let loudnessFloor = -60.0
    /// True peak above this (dBTP) shows in the warning colour (EBU R128's limit for broadcast).
    public static let truePeakLimit = -1.0

    /// The loudness lines: a short-term bar (-60..0 LUFS) with the target marked, then M, S,
    /// I, LRA and true peak as numbers. S over the target and true peak over -1 dBTP show in
    /// the warning colour (marked `!` without colour); LRA during a programme's first 60 s,
    /// before it settles, is marked `?` (and dimmed).
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
        let bar0 = "S  " + bar + Self.readout(l.shortTerm) + (over && !color ? warn : " ") + "LUFS"
        // Readouts as (visible text, coloured text), kept while they fit the width.
        var parts: [(String, String)] = []
        func part(_ label: String, _ value: Double, _ unit: String, hot: Bool = false, unsettled: Bool = false) {
            let v = Self.readout(value, width: 0)
            if unsettled {
                // Still settling: marked `?`, and dimmed in colour.
                parts.append((label + v + "?" + unit, label + sgr("2") + v + "?" + sgr("0") + unit))
                return
            }
            parts.append((label + v + (hot ? warn : "") + unit,
                          label + (hot ? sgr("31") : "") + v + (hot ? sgr("0") + warn : "") + unit))
        }
        part("M ", l.momentary, "")
        part("S ", l.shortTerm, "", hot: over)
        part("I ", l.integrated, " LUFS")
        if let range = l.range { part("LRA ", range, " LU", unsettled: !l.rangeSettled) }
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

    /// The sound level line: the time-weighted level per channel (e.g. LAF) and Leq since the
    /// start, in the meter's unit (`dBFS(A)` without calibration, never passed off as SPL).
    public func soundLevelLine(_ r: SoundLevelReading, settings: SoundLevelSettings, width w: Int) -> String {
        let name = "L" + settings.weighting.rawValue
        var text = name + settings.timeWeighting.rawValue
        for v in r.splDb { text += " " + Self.readout(v, width: 0) }
        text += "  " + name + "eq"
        for v in r.leqDb { text += " " + Self.readout(v, width: 0) }
        text += " " + settings.unit
        return Self.fit(text, w)
    }

    /// A whole stream's sound levels for one channel, for the closing summaries.
    public static func soundLevelSummary(_ s: SoundLevelSummary, channel c: Int, settings: SoundLevelSettings) -> String {
        let w = settings.weighting.rawValue, t = settings.timeWeighting.rawValue
        func r(_ v: Double) -> String { readout(v, width: 0) }
        let ln = s.ln[c]
        return "L\(w)eq \(r(s.leqDb[c]))  L\(w)\(t)max \(r(s.lmaxDb[c]))  L\(w)\(t)min \(r(s.lminDb[c]))"
            + "  LCpeak \(r(s.lpeakDb[c]))  L\(w)E \(r(s.selDb[c]))"
            + "  L10 \(r(ln.l10))  L50 \(r(ln.l50))  L90 \(r(ln.l90)) \(settings.unit)"
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

    /// Updates the held peaks: a peak holds `peakHoldSeconds`, then falls `peakFallDbPerSecond`;
    /// returns the markers to show.
    private mutating func updateHolds(_ frame: MeterFrame, rate: Int) -> [Double] {
        let channels = frame.peakDb.count
        if peakHold.count != channels {
            peakHold = Array(repeating: Decibels.floor, count: channels)
            peakHoldPos = Array(repeating: 0, count: channels)
        }
        let holdFrames = Int(peakHoldSeconds * Double(rate))
        var held = peakHold
        for c in 0..<channels {
            let falling = max(0, frame.pos - peakHoldPos[c] - holdFrames)
            let shown = peakHold[c] - peakFallDbPerSecond * Double(falling) / Double(rate)
            if frame.peakDb[c] >= shown {
                peakHold[c] = frame.peakDb[c]
                peakHoldPos[c] = frame.pos
                held[c] = frame.peakDb[c]
            } else {
                held[c] = shown
            }
        }
        return held
    }

    /// The dB values the scale under the bars labels: the floor, then -40 -20 -10 -6 -3 0.
    private var scaleTicks: [Double] {
        [floorDb] + [-40.0, -20, -10, -6, -3, 0].filter { $0 > floorDb + 1 }
    }

    /// The correlation bar: -1 at the left, 0 in the middle, +1 at the right, the reading
    /// marked; red left of 0 (out of phase), green right of it; then the number and the balance.
    public func correlationLine(_ r: Double, balanceDb: Double, width w: Int) -> String {
        var text = "corr -1 "
        let readout = " +1 " + Self.correlationText(r) + "  bal " + (balanceDb >= 0 ? "+" : "") + Self.readout(balanceDb, width: 0) + " dB"
        let cells = max(3, w - text.count - readout.count)
        let mid = cells / 2
        let mark = min(cells - 1, max(0, Int(((r + 1) / 2 * Double(cells - 1)).rounded())))
        for i in 0..<cells {
            if i == mark {
                text += sgr(r < 0 ? "1;31" : "1;32") + (glyphs.peakMarker == "|" ? "|" : "┃") + sgr("0")
            } else {
                text += i == mid ? "+" : (glyphs.peakMarker == "|" ? "-" : "─")
            }
        }
        return text + readout
    }

    /// The correlation as +0.93 / -1.00.
    static func correlationText(_ r: Double) -> String {
        let hundredths = Int((r * 100).rounded())
        let a = abs(hundredths)
        return (hundredths < 0 ? "-" : "+") + "\(a / 100)." + (a % 100 < 10 ? "0" : "") + "\(a % 100)"
    }

    /// A bar for a reading of `meter` in its unit, over its scale's range.
    public func meterBar(_ value: Double, _ meter: MeterKind, cells: Int) -> String {
        let s = meter.scale
        return bar(db: floorDb + (value - s.low) / (s.high - s.low) * -floorDb, peakDb: nil, cells: cells)
    }

    /// The scale line of `meter`, in its unit.
    public func meterScaleLine(_ meter: MeterKind, cells: Int) -> String {
        let s = meter.scale
        return scaleLine(cells: cells, ticks: s.ticks.map { floorDb + ($0 - s.low) / (s.high - s.low) * -floorDb },
                         labels: s.ticks, unit: meter.unit)
    }

    /// A line of dB labels under a bar of `cells` cells, each under its level's cell (the floor
    /// at the left end, 0 at the right end); a label that would touch its left neighbour is
    /// left out, except 0, which takes the place of the neighbour instead.
    public func scaleLine(cells: Int) -> String {
        scaleLine(cells: cells, ticks: scaleTicks, labels: scaleTicks, unit: "dB")
    }

    /// The scale line with `labels` placed at `ticks` (positions in dB on the bar), then `unit`.
    func scaleLine(cells: Int, ticks: [Double], labels: [Double], unit: String) -> String {
        var placed: [(start: Int, text: [Character])] = []
        for (i, db) in ticks.enumerated() {
            let text = Array(Self.tickText(labels[i]))
            let last = i == ticks.count - 1
            var start = Int(((db - floorDb) / -floorDb * Double(cells)).rounded()) - text.count / 2
            if i == 0 { start = 0 }
            if last { start = cells - text.count }
            start = max(0, min(start, cells - text.count))
            while let prev = placed.last, start <= prev.start + prev.text.count {
                guard last else { break }
                placed.removeLast()
            }
            if let prev = placed.last, start <= prev.start + prev.text.count { continue }
            placed.append((start, text))
        }
        var line = [Character](repeating: " ", count: max(0, cells))
        for p in placed where p.start + p.text.count <= line.count {
            for (k, ch) in p.text.enumerated() { line[p.start + k] = ch }
        }
        var s = String(line)
        while s.hasSuffix(" ") { s.removeLast() }
        return s + " " + unit
    }

    private static func tickText(_ db: Double) -> String { String(Int(db.rounded())) }

    /// The spectrum's dB axis: a 4-column label per row, at the rows holding round values.
    func spectrumAxis(rows: Int) -> [String] {
        let floor = spectrumFloorDb
        let step = [10.0, 20, 30, 45, 90].first { $0 >= -floor / Double(rows) } ?? -floor
        var axis = [String](repeating: "    ", count: rows)
        var v = 0.0
        while v >= floor - 1e-9 {
            // Row 0 is the top: it covers [floor * 1/rows, 0].
            let i = min(rows - 1, Int((v / floor * Double(rows)).rounded(.down)))
            let t = Self.tickText(v)
            if axis[i] == "    " { axis[i] = String(repeating: " ", count: max(0, 3 - t.count)) + t + " " }
            v -= step
        }
        return axis
    }

    /// The octaves the frequency axis labels: the frequency and its label (ISO nominal).
    static let octaves: [(hz: Double, label: String)] = (-6...8).map { k in
        let f = k >= 0 ? 1000 * Double(1 << k) : 1000 / Double(1 << -k)
        let nominal = [-6: "16", -5: "31", -4: "63", -3: "125", -2: "250", -1: "500"]
        return (f, nominal[k] ?? "\(Int(f.rounded()) / 1000)k")
    }

    /// The line under the spectrum (drawn by `spectrum` over `width` columns): each octave
    /// that lies in the bands labelled under its column, as many as fit with a space between
    /// neighbours (the unit, Hz, stands in the axis gutter before it).
    public func frequencyAxis(_ edges: [(Double, Double)], width: Int) -> String {
        let count = edges.count
        guard count > 0 else { return "" }
        let colsPerBand = max(1, width / count)
        let shown = min(count, width)
        let used = shown == count ? count * colsPerBand : shown
        var line = [Character](repeating: " ", count: used)
        var free = 0  // first column a label may take
        for (hz, label) in Self.octaves {
            // The top edge belongs to the last band here (16k under a 16 kHz top edge).
            guard let b = edges.firstIndex(where: { hz >= $0.0 && hz < $0.1 })
                    ?? (hz == edges[count - 1].1 ? count - 1 : nil) else { continue }
            let (lo, hi) = edges[b]
            let within = hi > lo ? PureMath.log(hz / lo) / PureMath.log(hi / lo) : 0
            // Where the octave falls: its band's columns, log-interpolated inside the band.
            let column = shown == count
                ? (Double(b) + within) * Double(colsPerBand)
                : (Double(b) + within) * Double(shown) / Double(count)
            let text = Array(label)
            // Centred on its column, kept inside the spectrum's columns at either end.
            let start = max(0, min(used - text.count, Int(column.rounded(.down)) - (text.count - 1) / 2))
            guard start >= free else { continue }
            for (k, ch) in text.enumerated() { line[start + k] = ch }
            free = start + text.count + 1
        }
        var out = String(line)
        while out.hasSuffix(" ") { out.removeLast() }
        return out
    }

    /// The whole meter on one line: first the marks of the status (the recording mark, ● or
    /// `*`, while recording; ○ or `o` while a take is awaited; `?` during an outage), then per
    /// channel its label, "!" while its clip lamp is lit, a short bar and the level; as the
    /// width shrinks the bars go first, then the spaces in the readouts, and only then the
    /// labels (the loudest level alone).
    func compactLine(_ frame: MeterFrame, rate: Int, labels names: [String], status: MeterStatus) -> String {
        let w = max(1, width)
        let channels = frame.rmsDb.count
        var marks = status.isRecording ? glyphs.recording : (status.waiting != nil ? glyphs.armed : "")
        if status.alert != nil { marks += "?" }
        let out = marks.isEmpty ? "" : marks + " "
        let room = w - out.count
        let clipping = (0..<channels).map { clipLamp(channel: $0, at: frame.pos, rate: rate) }
        let labels = (0..<channels).map { names[$0] + (clipping[$0] ? "!" : "") }
        let widest = labels.map(\.count).max() ?? 1
        let seg = room / max(1, channels)
        if seg >= widest + 8 {
            var line = out
            for c in 0..<channels {
                let cells = seg - labels[c].count - 7
                line += labels[c]
                if cells > 0 { line += bar(db: frame.rmsDb[c], peakDb: nil, cells: cells) }
                line += Self.readout(frame.rmsDb[c]) + " "
            }
            return line
        }
        for readoutWidth in [6, 0] {
            let text = (0..<channels).map { labels[$0] + Self.readout(frame.rmsDb[$0], width: readoutWidth) }.joined(separator: " ")
            if text.count <= room { return out + text }
        }
        let loudest = frame.rmsDb.max() ?? Decibels.floor
        let text = (clipping.contains(true) ? "!" : "") + Self.readout(loudest, width: 0) + " dB"
        return out + String(text.prefix(max(0, room)))
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
