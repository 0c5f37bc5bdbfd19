/// The live meter's head line (source, spec, time, status) and the one-line meter of a
/// terminal too small for the full one.
extension AnsiMeterRenderer {
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
}
