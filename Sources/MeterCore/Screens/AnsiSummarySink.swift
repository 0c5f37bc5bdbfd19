/// `analyze -f ansi`: a readable report of a whole file, written once at the end (of the part
/// read, so marked in its heading, when a stop signal cut the run short).
///
/// Per channel: RMS and peak with a bar; with `--events`, the clipped samples and the
/// silences; with `--spl`, the sound levels; with bands, a spectrum chart of the file (each
/// band's mean power over the frames): the figures of the NDJSON `end` line, every level in
/// the calibrated unit of a calibrated run.
public final class AnsiSummarySink: FrameSink {
    private let output: any ByteOutput
    private let color: Bool
    private let unicode: Bool
    private let width: Int
    private var info: StreamInfo?

    public init(output: any ByteOutput, width: Int, color: Bool, unicode: Bool) {
        self.output = output
        self.width = width
        self.color = color
        self.unicode = unicode
    }

    public func start(_ info: StreamInfo) throws {
        self.info = info
    }

    public func frame(_ frame: MeterFrame) throws {}
    public func gap(_ gap: StreamGap) throws {}
    public func device(_ change: DeviceChange) throws {}
    public func file(_ event: RecordingFileEvent) throws {}
    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {}
    public func idle(outage: Bool, stream: Int?) throws {}
    public func flush() throws {}

    public func end(_ summary: StreamSummary) throws {
        guard let info else { return }
        try output.write(Array(render(summary, info: info).utf8))
    }

    func render(_ summary: StreamSummary, info: StreamInfo) -> String {
        let s = info.settings
        var renderer = AnsiMeterRenderer(width: width, height: 1, color: color, unicode: unicode)
        renderer.offsetDb = s.levelOffsetDb
        let unit = s.levelUnit
        let bold = color ? "\u{1B}[1m" : "", reset = color ? "\u{1B}[0m" : ""
        var out = "\(bold)\(SafeText.terminal(info.source))\(reset)  \(s.rate) Hz  \(s.channels) ch  "
        out += "\(AnsiMeterRenderer.clock(summary.duration)) (\(summary.pos) frames)"
        out += summary.complete == false ? "  interrupted: the figures cover what was read\n" : "\n"
        let cells = max(4, min(60, width - 30 - 2 * unit.count))
        let labels = AnsiMeterRenderer.labels(info)
        let labelWidth = max(3, (labels.map(\.count).max() ?? 0) + 1)
        for c in 0..<s.channels {
            out += Self.pad(labels[c], labelWidth)
            out += "RMS" + AnsiMeterRenderer.readout(summary.rmsDb[c], width: 7) + " \(unit)  peak"
            out += AnsiMeterRenderer.readout(summary.peakDb[c], width: 7) + " \(unit)  "
            out += renderer.bar(db: summary.rmsDb[c], peakDb: summary.peakDb[c], cells: cells) + "\n"
        }
        if let l = summary.loudness {
            out += "loudness  " + AnsiMeterRenderer.loudnessSummary(l) + "\n"
            out += AnsiMeterRenderer.deliverySummary(l, color: color)
        }
        if let clipped = summary.clippedSamples {
            let total = clipped.reduce(0, +)
            out += "clipped   \(total) sample\(total == 1 ? "" : "s")"
            if total > 0 && clipped.count > 1 {
                out += " (" + clipped.enumerated().map { c, n in
                    "\(labels[c]) \(n)"
                }.joined(separator: ", ") + ")"
            }
            out += "\n"
        }
        if let seconds = summary.silenceSeconds {
            let count = summary.silences ?? 0
            out += "silence   \(AnsiMeterRenderer.readout(seconds, width: 0)) s in \(count) silence\(count == 1 ? "" : "s")"
            out += " (below \(AnsiMeterRenderer.readout(s.events?.silenceDb ?? -60, width: 0)) \(unit))\n"
        }
        return out + Self.soundLevelsAndSpectrum(summary, info: info, renderer: renderer)
    }

    /// The end of both terminal summaries (this one, and the live meter's closing line with
    /// `--spl`): with `--spl` one line per channel of the end line's sound levels, with bands
    /// the mean band levels with a bar each; all in the calibrated unit.
    public static func soundLevelsAndSpectrum(_ summary: StreamSummary, info: StreamInfo,
                                              renderer: AnsiMeterRenderer) -> String {
        let s = info.settings
        var r = renderer
        r.offsetDb = s.levelOffsetDb
        r.levelUnit = s.levelUnit
        var out = ""
        let labels = AnsiMeterRenderer.labels(info)
        let labelWidth = max(3, (labels.map(\.count).max() ?? 0) + 1)
        if let spl = summary.spl, let settings = s.spl {
            for c in 0..<min(s.channels, spl.leqDb.count) {
                out += pad(labels[c], labelWidth)
                    + AnsiMeterRenderer.soundLevelSummary(spl, channel: c, settings: settings) + "\n"
            }
        }
        if let edges = info.bandsHz, let bands = summary.bandsDb, !edges.isEmpty, bands.count == edges.count {
            out += "\nspectrum (mean band level over the stream)\n"
            let cells = max(4, min(60, r.width - 28 - r.levelUnit.count))
            r.floorDb = -90
            for (i, (lo, hi)) in edges.enumerated() {
                let range = "\(AnsiMeterRenderer.hz(lo))-\(AnsiMeterRenderer.hz(hi)) Hz"
                out += pad(range, 15) + AnsiMeterRenderer.readout(bands[i], width: 7) + " \(r.levelUnit)  "
                out += r.bar(db: bands[i], peakDb: nil, cells: cells) + "\n"
            }
        }
        return out
    }

    /// `s` padded with spaces to at least `width` characters.
    private static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }
}
