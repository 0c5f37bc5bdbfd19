/// The live meter's loudness and sound level rows, and the summaries' loudness and sound
/// level lines.
extension AnsiMeterRenderer {
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

    /// The closing summaries' verdict and ceiling lines, each ending in a newline: PASS, or
    /// a FAIL (red with `color`) naming each failing rule with its value and limit; and when
    /// the suggested gain would put the true peak over the ceiling, how far it may go.
    public static func deliverySummary(_ l: LoudnessSummary, color: Bool) -> String {
        var out = ""
        if let v = l.verdict {
            let name = l.rules?.preset.map { " (\($0))" } ?? ""
            if v.pass {
                out += "verdict   " + (color ? "\u{1B}[32mPASS\u{1B}[0m" : "PASS") + name + "\n"
            } else {
                let why = v.failed.map { r in
                    let limit = r.min.map { r.value < $0 ? "under \(readout($0, width: 0))" : nil } ?? nil
                    return "\(r.label) \(readout(r.value, width: 0)) " + (limit ?? "over \(readout(r.max, width: 0))")
                }.joined(separator: ", ")
                out += "verdict   " + (color ? "\u{1B}[1;31mFAIL\u{1B}[0m" : "FAIL") + name + ": " + why + "\n"
            }
        }
        if l.gainCrossesCeiling, let g = l.gainDb {
            let sign = { (v: Double) in (v >= 0 ? "+" : "") + readout(v, width: 0) }
            out += "ceiling   gain \(sign(g)) dB would put the true peak at \(sign(l.maxTruePeakDb + g)) dBTP, over the "
                + "\(readout(l.ceilingDb, width: 0)) dBTP ceiling: at most \(sign(l.headroomDb)) dB (headroom_db)\n"
        }
        return out
    }
}
