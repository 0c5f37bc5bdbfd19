/// Renders a `Waveform` as JSON (README.md "waveform"), one line of block characters, or an SVG a chat
/// client can show as is. Pure string building.
public enum WaveformRenderer {
    /// `{"version":1,"rate":..,"channels":..,"frames":F,"duration":..,"bars":N,"floor_db":..,
    /// "rms_db":[..],"peak_db":[..],"levels":[..]}` and a newline; with `file` (many-file runs)
    /// also `"file"`; `"complete":false` when the reading was cut short.
    public static func json(_ w: Waveform, file: String? = nil) -> String {
        let b = JSONLineBuilder()
        b.byte(UInt8(ascii: "{"))
        b.field("version", 1)
        b.field("rate", w.rate)
        b.field("channels", w.channels)
        b.field("frames", w.frames)
        b.field("duration", w.duration, decimals: 5)
        b.field("bars", w.bars)
        b.field("floor_db", w.floorDb, decimals: 2)
        b.field("rms_db", w.rmsDb, decimals: 2)
        b.field("peak_db", w.peakDb, decimals: 2)
        b.field("levels", w.levels, decimals: 4)
        if w.normalized { b.field("normalized", true) }
        if let file { b.field("file", file) }
        if !w.complete { b.field("complete", false) }
        b.raw("}\n")
        return String(decoding: b.bytes, as: UTF8.self)
    }

    /// One line of N block characters whose heights follow `levels` (a dot for silence).
    /// With `played` (0...1) the bars before that fraction are drawn by `playedStyle`.
    public static func ansi(_ w: Waveform, unicode: Bool = true, color: Bool = false,
                            played: Double? = nil) -> String {
        line(levels: w.levels, unicode: unicode, color: color, played: played) + "\n"
    }

    /// The bar glyphs for `levels`, without a newline. Played bars are bright cyan in colour,
    /// or drawn with a different glyph set without colour (so NO_COLOR still shows progress).
    public static func line(levels: [Double], unicode: Bool, color: Bool, played: Double? = nil) -> String {
        let glyphs = unicode ? BarGlyphs.unicode.vertical : BarGlyphs.ascii.vertical
        // Without colour the played bars change glyph set: braille dots (which also rise with
        // the level) in Unicode, '#' in ASCII.
        let playedGlyphsNoColor = unicode ? ["⣀", "⣀", "⣀", "⣤", "⣤", "⣶", "⣶", "⣿", "⣿"] : ["#", "#", "#", "#", "#", "#", "#", "#", "#"]
        let playedBars = played.map { Int((min(1, max(0, $0)) * Double(levels.count)).rounded(.down)) } ?? 0
        var out = ""
        var inPlayed = false
        for (i, level) in levels.enumerated() {
            let eighths = max(1, Int((level * 8).rounded()))
            let isPlayed = i < playedBars
            if color && isPlayed != inPlayed {
                out += isPlayed ? "\u{1B}[96m" : "\u{1B}[0m\u{1B}[2m"
                inPlayed = isPlayed
            } else if color && i == 0 {
                out += "\u{1B}[2m"
            }
            if !color && isPlayed {
                out += playedGlyphsNoColor[eighths]
            } else {
                out += eighths == 1 && level < 1.0 / 16 ? (unicode ? "▁" : ".") : glyphs[eighths]
            }
        }
        if color && !levels.isEmpty { out += "\u{1B}[0m" }
        return out
    }

    /// SVG options: size in px, colours as CSS colour values, gap and corner radius in px.
    public struct SVGStyle: Sendable {
        public var width: Double = 300
        public var height: Double = 48
        public var color: String = "#4a90e2"
        public var gap: Double? = nil
        public var radius: Double? = nil
        public var played: Double? = nil
        public var playedColor: String = "#1a5fb4"
        public init() {}
    }

    /// A self-contained SVG: N rounded bars, heights proportional to `levels` with a minimum so
    /// silence shows a dot, vertically centred. No scripts and no external references.
    public static func svg(_ w: Waveform, style: SVGStyle) -> String {
        let n = max(1, w.bars)
        let slot = style.width / Double(n)
        let gap = min(style.gap ?? slot * 0.3, slot * 0.9)
        let barWidth = max(0.1, slot - gap)
        let radius = min(style.radius ?? barWidth / 2, barWidth / 2)
        let minHeight = min(style.height, barWidth)
        let playedBars = style.played.map { Int((min(1, max(0, $0)) * Double(n)).rounded(.down)) } ?? 0
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Markup.length(style.width))\" height=\"\(Markup.length(style.height))\" "
        out += "viewBox=\"0 0 \(Markup.length(style.width)) \(Markup.length(style.height))\">\n"
        for (i, level) in w.levels.enumerated() {
            let h = max(minHeight, level * style.height)
            let x = Double(i) * slot + gap / 2
            let y = (style.height - h) / 2
            let fill = i < playedBars ? style.playedColor : style.color
            out += "<rect x=\"\(Markup.length(x))\" y=\"\(Markup.length(y))\" width=\"\(Markup.length(barWidth))\" height=\"\(Markup.length(h))\" "
            out += "rx=\"\(Markup.length(radius))\" ry=\"\(Markup.length(radius))\" fill=\"\(Markup.escape(fill))\"/>\n"
        }
        out += "</svg>\n"
        return out
    }
}
