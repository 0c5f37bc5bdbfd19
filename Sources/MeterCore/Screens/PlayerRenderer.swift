/// Builds the `play` screen: the file's waveform across the terminal with the played part in
/// another colour (another glyph under NO_COLOR), elapsed / total time, the level being heard
/// and the keys. Pure string building.
public struct PlayerRenderer {
    public var width: Int
    public var color: Bool
    public var unicode: Bool
    /// The waveform levels at a fixed resolution; resampled to the width when drawn.
    public let levels: [Double]
    public let title: String

    public init(levels: [Double], title: String, width: Int, color: Bool, unicode: Bool) {
        self.levels = levels
        self.title = SafeText.terminal(title)
        self.width = width
        self.color = color
        self.unicode = unicode
    }

    /// `levels` resampled to `count` bars, each the loudest of the source bars it covers.
    public static func resample(_ levels: [Double], to count: Int) -> [Double] {
        guard count > 0, !levels.isEmpty else { return [] }
        return (0..<count).map { j in
            let a = j * levels.count / count
            let b = max(a + 1, (j + 1) * levels.count / count)
            return levels[a..<min(b, levels.count)].max() ?? 0
        }
    }

    /// - Parameters:
    ///   - loudness: with `play --loudness`, the loudness being heard (its lines under the status).
    public func render(playedFrames: Int, totalFrames: Int, rate: Int, levelDb: Double?, paused: Bool,
                       loudness: LoudnessReading? = nil, target: Double? = nil) -> String {
        let w = max(20, width)
        let fraction = totalFrames > 0 ? Double(playedFrames) / Double(totalFrames) : 1
        let esc = "\u{1B}["
        var lines: [String] = []
        let state = paused ? (unicode ? "⏸" : "||") : (unicode ? "▶" : ">")
        lines.append("\(state) \(title)")
        let bars = Self.resample(levels, to: w - 2)
        lines.append(" " + WaveformRenderer.line(levels: bars, unicode: unicode, color: color, played: fraction))
        let elapsed = AnsiMeterRenderer.clock(Double(playedFrames) / Double(max(1, rate)))
        let total = AnsiMeterRenderer.clock(Double(totalFrames) / Double(max(1, rate)))
        var status = " \(elapsed) / \(total)"
        if paused { status += "  paused" }
        if let levelDb {
            let meter = AnsiMeterRenderer(width: w, height: 1, color: color, unicode: unicode)
            let cells = max(4, min(30, w - status.count - 12))
            status += "  " + meter.bar(db: levelDb, peakDb: nil, cells: cells) + AnsiMeterRenderer.readout(levelDb) + " dB"
        }
        lines.append(status)
        if let loudness {
            let meter = AnsiMeterRenderer(width: w, height: 1, color: color, unicode: unicode)
            lines.append(contentsOf: meter.loudnessLines(loudness, target: target, width: w).map { " " + $0 })
        }
        let keys = unicode ? " space pause · ←/→ 5 s · q quit" : " space pause, left/right 5 s, q quit"
        lines.append(color ? esc + "2m" + keys + esc + "0m" : keys)
        var out = esc + "H"
        for l in lines { out += l + esc + "K\r\n" }
        return out + esc + "J"
    }
}
