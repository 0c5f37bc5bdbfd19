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
    /// Bottom of the level scale in dBFS (the scale's top is full scale).
    public var floorDb: Double = -60
    /// Bottom of the spectrum scale in dBFS.
    public var spectrumFloorDb: Double = -90
    /// The calibration (`MeterSettings.levelOffsetDb`): levels given to the bars, the history
    /// and the spectrum are in the calibrated unit, shifted by it; they are drawn against the
    /// scales above moved with it (so are the scales' labels), and the colour zones stay at
    /// their distance below full scale (headroom is a digital fact). `rows` takes it from
    /// the stream's settings.
    public var offsetDb: Double = 0
    /// The unit the level scale names: `MeterSettings.levelUnit` (dB, or dB SPL).
    public var levelUnit = "dB"
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
    public static let enter = "\u{1B}[?1049h\u{1B}[?25l" + clear
    /// Cursor home and the whole screen erased: before the first frame, and before the first
    /// frame at a new size. A frame written at the old width while the terminal shrank wraps,
    /// and a terminal keeps those rows marked as wrapped (tmux joins them in copy mode and
    /// `capture-pane -J`) until they are erased whole; a frame's own line erases do not.
    public static let clear = "\u{1B}[H\u{1B}[2J"
    /// Escape sequences that leave it (cursor shown, main buffer back, attributes reset).
    public static let leave = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    static let esc = "\u{1B}["
    func sgr(_ code: String) -> String { color ? Self.esc + code + "m" : "" }

    /// The colour of a level: green below -18 dBFS, yellow to -6, red above.
    func zoneColor(_ db: Double) -> String {
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

    /// One horizontal bar of `cells` cells for `db` (in the calibrated unit, see `offsetDb`),
    /// coloured per zone, with a peak marker.
    public func bar(db level: Double, peakDb peakLevel: Double?, cells: Int) -> String {
        guard cells > 0 else { return "" }
        let db = level - offsetDb, peakDb = peakLevel.map { $0 - offsetDb }
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
            case .clip, .sourceLost, .alarm: break
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
        let lines = rows(frame, info: info, status: status)
        if width < Self.minimumWidth || height < Self.minimumHeight {
            return Self.esc + "H" + lines[0] + Self.esc + "K" + Self.esc + "J"
        }
        var out = Self.esc + "H"
        for line in lines { out += line + Self.esc + "K\r\n" }
        out += Self.esc + "J"
        return out
    }

    /// The rows `render` draws, without line ends: at most `height - 1` (the last row stays
    /// free), or the one compact line below `minimumWidth` x `minimumHeight`.
    public mutating func rows(_ frame: MeterFrame, info: StreamInfo, status: MeterStatus = MeterStatus()) -> [String] {
        let s = info.settings
        let channels = s.channels
        offsetDb = s.levelOffsetDb
        levelUnit = s.levelUnit
        let held = updateHolds(frame, rate: s.rate)
        if width < Self.minimumWidth || height < Self.minimumHeight {
            return [compactLine(frame, rate: s.rate, labels: Self.labels(info), status: status)]
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
        return Array(lines.prefix(max(1, usable)))
    }

    /// The history strip: one column per level (in the calibrated unit; oldest first,
    /// right-aligned in `cells` so the newest is at the right), a vertical eighth block as high
    /// as the bars' mapping of the level, coloured by its zone.
    public func historyStrip(_ levels: [Double], cells: Int) -> String {
        var out = String(repeating: " ", count: max(0, cells - levels.count))
        var current = ""
        for level in levels.suffix(cells) {
            let db = level - offsetDb
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
