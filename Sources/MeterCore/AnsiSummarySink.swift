/// `analyze -f ansi`: a readable report of a whole file, written once at the end.
///
/// Per channel: RMS and peak with a bar; with bands, a spectrum chart of the file where each
/// band's level is the mean of its power over all frames.
public final class AnsiSummarySink: FrameSink {
    private let output: any ByteOutput
    private let color: Bool
    private let unicode: Bool
    private let width: Int
    private var info: StreamInfo?
    private var bandPower: [Double] = []
    private var frames = 0

    public init(output: any ByteOutput, width: Int, color: Bool, unicode: Bool) {
        self.output = output
        self.width = width
        self.color = color
        self.unicode = unicode
    }

    public func start(_ info: StreamInfo) throws {
        self.info = info
        bandPower = Array(repeating: 0, count: info.bandsHz?.count ?? 0)
    }

    public func frame(_ frame: MeterFrame) throws {
        guard let bands = frame.bandsDb else { return }
        for (i, db) in bands.enumerated() where db > Decibels.floor {
            bandPower[i] += PureMath.exp(db / 10 * PureMath.ln10)
        }
        frames += 1
    }

    public func end(_ summary: StreamSummary) throws {
        guard let info else { return }
        try output.write(Array(render(summary, info: info).utf8))
    }

    func render(_ summary: StreamSummary, info: StreamInfo) -> String {
        let s = info.settings
        let renderer = AnsiMeterRenderer(width: width, height: 1, color: color, unicode: unicode)
        let bold = color ? "\u{1B}[1m" : "", reset = color ? "\u{1B}[0m" : ""
        var out = "\(bold)\(SafeText.terminal(info.source))\(reset)  \(s.rate) Hz  \(s.channels) ch  "
        out += "\(AnsiMeterRenderer.clock(summary.duration)) (\(summary.pos) frames)\n"
        let cells = max(4, min(60, width - 34))
        for c in 0..<s.channels {
            let label = AnsiMeterRenderer.label(channel: c, of: s.channels)
            out += pad(label, 3)
            out += "RMS" + AnsiMeterRenderer.readout(summary.rmsDb[c], width: 7) + " dB  peak"
            out += AnsiMeterRenderer.readout(summary.peakDb[c], width: 7) + " dB  "
            out += renderer.bar(db: summary.rmsDb[c], peakDb: summary.peakDb[c], cells: cells) + "\n"
        }
        if let l = summary.loudness { out += "loudness  " + AnsiMeterRenderer.loudnessSummary(l) + "\n" }
        if let spl = summary.spl, let settings = s.spl {
            for c in 0..<s.channels {
                out += pad(AnsiMeterRenderer.label(channel: c, of: s.channels), 3)
                    + AnsiMeterRenderer.soundLevelSummary(spl, channel: c, settings: settings) + "\n"
            }
        }
        if let edges = info.bandsHz, !edges.isEmpty {
            out += "\nspectrum (mean band level over \(frames) frames)\n"
            let cellsB = max(4, min(60, width - 30))
            for (i, (lo, hi)) in edges.enumerated() {
                let db = frames > 0 ? Decibels.fromPower(bandPower[i] / Double(frames)) : Decibels.floor
                let range = "\(AnsiMeterRenderer.hz(lo))-\(AnsiMeterRenderer.hz(hi)) Hz"
                out += pad(range, 15)
                out += AnsiMeterRenderer.readout(db, width: 7) + " dB  "
                var r = renderer
                r.floorDb = -90
                out += r.bar(db: db, peakDb: nil, cells: cellsB) + "\n"
            }
        }
        return out
    }

    /// `s` padded with spaces to at least `width` characters.
    private func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }
}
