import Foundation
import Testing
@testable import MeterCore

/// The live meter and player screens: fit the width, redraw in place, colour only when asked.
@Suite struct AnsiRenderingTests {
    static let esc = "\u{1B}["

    /// Visible characters of a line: escape sequences removed.
    static func visible(_ s: String) -> String {
        var out = ""
        var inEscape = false
        for ch in s {
            if inEscape {
                if ch.isLetter { inEscape = false }
                continue
            }
            if ch == "\u{1B}" { inEscape = true; continue }
            out.append(ch)
        }
        return out
    }

    static func info(channels: Int, bands: Int) -> StreamInfo {
        let s = MeterSettings(rate: 48000, channels: channels, bands: bands)
        let edges = bands > 0 ? (try! BandLayout(settings: s)).edgesHz : nil
        return StreamInfo(source: "test.monitor", settings: s, bandsHz: edges, live: true)
    }

    static func frame(channels: Int, bands: Int, db: Double) -> MeterFrame {
        MeterFrame(pos: 96000, rmsDb: Array(repeating: db, count: channels), peakDb: Array(repeating: db + 3, count: channels),
                   bandsDb: bands > 0 ? (0..<bands).map { -80 + Double($0) } : nil)
    }

    @Test(arguments: [(20, 10), (40, 12), (80, 24), (200, 50)])
    func fitsTheTerminal(width: Int, height: Int) {
        for (channels, bands) in [(1, 0), (2, 32), (6, 8), (32, 64)] {
            var r = AnsiMeterRenderer(width: width, height: height, color: true, unicode: true)
            let screen = r.render(Self.frame(channels: channels, bands: bands, db: -20), info: Self.info(channels: channels, bands: bands))
            #expect(screen.hasPrefix(Self.esc + "H"), "redraws from home, no scrolling")
            #expect(screen.hasSuffix(Self.esc + "J"))
            let lines = screen.components(separatedBy: "\r\n").dropLast()
            #expect(lines.count <= height, "\(lines.count) lines for height \(height)")
            for line in lines {
                #expect(Self.visible(line).count <= max(20, width), "line too wide: \(Self.visible(line))")
            }
        }
    }

    @Test func noColourMeansNoSGR() {
        var r = AnsiMeterRenderer(width: 80, height: 24, color: false, unicode: true)
        let screen = r.render(Self.frame(channels: 2, bands: 16, db: -3), info: Self.info(channels: 2, bands: 16))
        #expect(screen.range(of: "\u{1B}\\[[0-9;]*m", options: .regularExpression) == nil, "no SGR sequence")
        var c = AnsiMeterRenderer(width: 80, height: 24, color: true, unicode: true)
        #expect(c.render(Self.frame(channels: 2, bands: 0, db: -3), info: Self.info(channels: 2, bands: 0)).contains(Self.esc + "31m"),
                "a -3 dB level reaches the red zone")
    }

    @Test func barLengthFollowsTheLevel() {
        let r = AnsiMeterRenderer(width: 80, height: 24, color: false, unicode: true)
        // 40 cells over 60 dB: -30 dB fills half, in eighths.
        #expect(Self.visible(r.bar(db: -30, peakDb: nil, cells: 40)).filter { $0 == "█" }.count == 20)
        #expect(Self.visible(r.bar(db: -160, peakDb: nil, cells: 40)).trimmingCharacters() == "")
        #expect(Self.visible(r.bar(db: 0, peakDb: nil, cells: 40)).filter { $0 == "█" }.count == 40)
        let partial = Self.visible(r.bar(db: -30 + 60.0 / 40 / 2, peakDb: nil, cells: 40))
        #expect(partial.contains("▌"), "half a cell shows as a half block: \(partial)")
        let ascii = AnsiMeterRenderer(width: 80, height: 24, color: false, unicode: false)
        #expect(Self.visible(ascii.bar(db: -30, peakDb: -10, cells: 40)).allSatisfy { $0.isASCII })
    }

    @Test func playerShowsProgressWithoutColour() {
        let levels = (0..<100).map { Double($0 % 10) / 10 }
        let p = PlayerRenderer(levels: levels, title: "voice.ogg", width: 60, color: false, unicode: true)
        let half = p.render(playedFrames: 48000 * 5, totalFrames: 48000 * 10, rate: 48000, levelDb: -20, paused: false)
        #expect(half.contains("0:05 / 0:10"))
        let none = p.render(playedFrames: 0, totalFrames: 48000 * 10, rate: 48000, levelDb: nil, paused: true)
        #expect(none.contains("paused") && none.contains("0:00 / 0:10"))
        // Played bars use another glyph set under NO_COLOR, so the two screens' waveform lines differ.
        let wave = { (s: String) in s.components(separatedBy: "\r\n")[1] }
        #expect(wave(half) != wave(none))
        #expect(Self.visible(wave(half)).count <= 60)
        #expect(!half.contains(Self.esc + "9"), "no colour codes")
    }

    @Test func resampleTakesTheLoudestSourceBar() {
        #expect(PlayerRenderer.resample([0.1, 0.9, 0.2, 0.3], to: 2) == [0.9, 0.3])
        #expect(PlayerRenderer.resample([0.5], to: 3) == [0.5, 0.5, 0.5])
        #expect(PlayerRenderer.resample([], to: 3) == [])
    }

    @Test("a clip lamp per channel, latched for 2 s of audio; \"silence\" between silence_start and silence_end")
    func clipLampAndSilence() {
        var r = AnsiMeterRenderer(width: 80, height: 10, color: false, unicode: true)
        let info = Self.info(channels: 2, bands: 0)
        func lines(_ f: MeterFrame) -> [String] {
            Self.visible(r.render(f, info: info)).components(separatedBy: "\r\n")
        }
        var f = Self.frame(channels: 2, bands: 0, db: -20)
        f.clipSamples = [0, 3]
        r.observe(f)
        var screen = lines(f)
        #expect(!screen[1].contains("CLIP") && screen[2].contains("CLIP"), "\(screen)")
        f.clipSamples = [0, 0]
        f.pos += 96000  // 2 s later: still lit
        r.observe(f)
        #expect(lines(f)[2].contains("CLIP"))
        f.pos += 1600   // past the latch
        r.observe(f)
        screen = lines(f)
        #expect(!screen.contains { $0.contains("CLIP") })
        #expect(!screen[0].contains("silence"))
        f.events = [MeterEvent(.silenceStart, pos: 1000)]
        r.observe(f)
        #expect(lines(f)[0].contains("silence"))
        f.events = [MeterEvent(.silenceEnd(seconds: 2), pos: 97000)]
        r.observe(f)
        #expect(!lines(f)[0].contains("silence"))
    }

    // MARK: - Scale, spectrum axis, peak hold, small terminals

    /// The rows a screen update draws (a compact meter is one row without a line break).
    static func visibleLines(_ screen: String) -> [String] {
        var rows = screen.components(separatedBy: "\r\n").map { visible($0) }
        if rows.count > 1 && rows.last == "" { rows.removeLast() }
        return rows
    }

    @Test func scaleLineLabelsEachTickUnderItsLevel() {
        let r = AnsiMeterRenderer(width: 100, height: 30, color: false, unicode: true)
        for cells in [20, 40, 69, 150] {
            let line = r.scaleLine(cells: cells)
            #expect(line.hasSuffix("0 dB"), "\(line)")
            #expect(line.hasPrefix("-60"))
            // Every label shown sits within two columns of its level's cell.
            for tick in [-40, -20, -10, -6, -3] {
                guard let range = line.range(of: " \(tick)") ?? line.range(of: "\(tick) ") else { continue }
                let center = line.distance(from: line.startIndex, to: range.lowerBound) + (" \(tick)".count) / 2
                let cell = Double(cells) * (Double(tick) + 60) / 60
                #expect(abs(Double(center) - cell) <= 2.5, "\(tick) at \(center), cell \(cell): \(line)")
            }
        }
        let wide = r.scaleLine(cells: 69)
        for tick in ["-60", "-40", "-20", "-10", "-6", "0 dB"] { #expect(wide.contains(tick), "\(wide)") }
    }

    @Test func meterScreenHasScaleAndSpectrumAxis() {
        var r = AnsiMeterRenderer(width: 100, height: 30, color: false, unicode: true)
        let lines = Self.visibleLines(r.render(Self.frame(channels: 2, bands: 16, db: -20), info: Self.info(channels: 2, bands: 16)))
        let right = lines.firstIndex { $0.hasPrefix("R ") }!
        #expect(lines[right + 1].contains("-60") && lines[right + 1].hasSuffix("0 dB"), "scale under the bars")
        for label in ["  0 ", "-30 ", "-60 ", "-90 "] {
            #expect(lines.contains { $0.hasPrefix(label) }, "spectrum axis \(label)")
        }
        #expect(lines.last!.hasPrefix(" Hz ") && lines.last!.contains(" 1k "), "\(lines.last!)")
        #expect(lines.allSatisfy { $0.count <= 100 })
    }

    @Test("the frequency axis labels the octaves that fit, each under its column, never touching",
          arguments: [(16, 100), (32, 80), (64, 200), (8, 40), (32, 20), (64, 30)])
    func frequencyAxisLabelsOctaves(bands: Int, width: Int) throws {
        let info = Self.info(channels: 2, bands: bands)
        let edges = try #require(info.bandsHz)
        let r = AnsiMeterRenderer(width: width, height: 30, color: false, unicode: true)
        let sw = width - 4
        let axis = r.frequencyAxis(edges, width: sw)
        #expect(axis.count <= sw, "\(axis)")
        // Labels are separated by at least one space: none runs into another ("dB70", "1k2k").
        let words = axis.split(separator: " ").map(String.init)
        let octaves = Dictionary(uniqueKeysWithValues: AnsiMeterRenderer.octaves.map { ($0.label, $0.hz) })
        #expect(words.allSatisfy { octaves[$0] != nil }, "only octave labels: \(axis)")
        // Each sits under its frequency: the spectrum's column of the band holding it.
        let colsPerBand = max(1, sw / bands), shown = min(bands, sw)
        var at = axis.startIndex
        for word in words {
            let range = try #require(axis.range(of: word, range: at..<axis.endIndex))
            at = range.upperBound
            let hz = octaves[word]!
            let b = edges.firstIndex { hz >= $0.0 && hz < $0.1 } ?? (bands - 1)
            let column = shown == bands ? b * colsPerBand : b * shown / bands
            let start = axis.distance(from: axis.startIndex, to: range.lowerBound)
            #expect(start + word.count > column - 1 && start <= column + colsPerBand, "\(word) at \(start), its band at \(column): \(axis)")
        }
        // The octaves that fit: with room, every one the bands cover (here 125 Hz to 8 kHz:
        // the edges as snapped to the FFT bins, 70 Hz to 15.98 kHz).
        let covered = AnsiMeterRenderer.octaves.filter { $0.hz >= edges[0].0 && $0.hz <= edges[bands - 1].1 }.map(\.label)
        #expect(covered.count >= 7)
        if sw >= 60 {
            #expect(words == covered, "\(axis)")
        } else {
            #expect(words.count >= 2, "\(axis)")
        }
    }

    static let longSource = "alsa_output.pci-0000_00_1f.3.analog-stereo.monitor"

    @Test("REC and the recorded time stay on the head line at every width from 20 columns; the device name gives way first")
    func recStaysOnTheHeadLine() throws {
        let s = MeterSettings(rate: 48000, channels: 2)
        let info = StreamInfo(source: Self.longSource, settings: s, live: true)
        let status = MeterStatus(recordingFile: "take1.wav", recordedSeconds: 42)
        var seen: [Int: String] = [:]
        for width in 20...120 {
            for unicode in [true, false] {
                var r = AnsiMeterRenderer(width: width, height: 12, color: false, unicode: unicode)
                let lines = Self.visibleLines(r.render(Self.frame(channels: 2, bands: 0, db: -20), info: info, status: status))
                let head = lines[0]
                #expect(head.count <= width, "\(width): \(head)")
                #expect(head.firstMatch(of: /REC (.* )?0:42/) != nil, "\(width): \(head)")
                #expect(lines.contains { $0.hasPrefix("L ") } && lines.contains { $0.hasPrefix("R ") }, "\(width): channel labels")
                if unicode { seen[width] = head }
            }
        }
        // Wide: everything, as before. At 40 columns (the name alone is 50): the name shortened
        // or gone, never REC; the file name while it fits.
        #expect(seen[120] == "\(Self.longSource)  48000 Hz  2 ch  0:02  REC take1.wav 0:42", "the frame is at 2 s")
        #expect(seen[40]!.hasSuffix("REC take1.wav 0:42") && !seen[40]!.contains(Self.longSource), "\(seen[40]!)")
        #expect(seen[60]!.hasPrefix("alsa_output") && seen[60]!.contains("…"), "shortened with an ellipsis: \(seen[60]!)")
        #expect(seen[20] == "REC take1.wav 0:42" || seen[20]!.hasPrefix("REC"), "\(seen[20]!)")
        // An outage and the recording: both stay, the outage's words shortened last.
        var r = AnsiMeterRenderer(width: 30, height: 12, color: false, unicode: true)
        let both = MeterStatus(alert: "RECONNECTING: source lost, waiting for it", recordingFile: "take1.wav", recordedSeconds: 42)
        let head = Self.visibleLines(r.render(Self.frame(channels: 2, bands: 0, db: -20), info: info, status: both))[0]
        #expect(head.hasPrefix("RECONNECTING") && head.hasSuffix("REC 0:42") && head.count <= 30, "\(head)")
        // Not recording: no REC; the name shortened before the time goes.
        var plain = AnsiMeterRenderer(width: 40, height: 12, color: false, unicode: true)
        let idle = Self.visibleLines(plain.render(Self.frame(channels: 2, bands: 0, db: -20), info: info))[0]
        #expect(!idle.contains("REC") && idle.hasPrefix("alsa_output") && idle.count <= 40, "\(idle)")
    }

    @Test("the compact line marks recording first (● or *), apart from the clip lamp's !, and keeps the channel labels")
    func compactLineMarksRecording() {
        let info = Self.info(channels: 2, bands: 0)
        var f = Self.frame(channels: 2, bands: 0, db: -20)
        f.clipSamples = [0, 5]
        for (unicode, mark) in [(true, "●"), (false, "*")] {
            for (w, h) in [(19, 10), (16, 10), (80, 2), (40, 1)] {
                var r = AnsiMeterRenderer(width: w, height: h, color: false, unicode: unicode)
                r.observe(f)
                let recording = Self.visibleLines(r.render(f, info: info, status: MeterStatus(recordingFile: "t.wav", recordedSeconds: 3)))
                #expect(recording.count == 1)
                let line = recording[0]
                #expect(line.hasPrefix(mark + " ") && line.count <= w, "\(w)x\(h): \(line)")
                #expect(line.contains("L") && line.contains("R!") && line.contains("-20.0"), "\(w)x\(h): labels, the lamp on R: \(line)")
                #expect(!line.dropFirst(2).hasPrefix("!"), "\(line)")
                let idle = Self.visibleLines(r.render(f, info: info))[0]
                #expect(!idle.contains(mark) && idle.hasPrefix("L"), "not recording: \(idle)")
            }
        }
        // Too narrow for the labels: the loudest level, the mark still first.
        var tiny = AnsiMeterRenderer(width: 10, height: 10, color: false, unicode: true)
        let line = Self.visibleLines(tiny.render(f, info: info, status: MeterStatus(recordingFile: "t.wav")))[0]
        #expect(line.hasPrefix("● ") && line.contains("-20.0") && line.count <= 10, "\(line)")
    }

    @Test func peakMarkerHoldsThenFalls() {
        var r = AnsiMeterRenderer(width: 80, height: 10, color: false, unicode: false)
        let info = Self.info(channels: 1, bands: 0)
        func marker(pos: Int, peak: Double) -> Int? {
            let f = MeterFrame(pos: pos, rmsDb: [-59], peakDb: [peak])
            let row = Self.visibleLines(r.render(f, info: info)).first { $0.hasPrefix("M ") }!
            return row.firstIndex(of: "|").map { row.distance(from: row.startIndex, to: $0) }
        }
        let cells = 80 - 2 - 27 - 1
        func cell(_ db: Double) -> Int { 2 + Int(((db + 60) / 60 * Double(cells)).rounded(.down)) }
        #expect(marker(pos: 0, peak: -10) == cell(-10))
        #expect(marker(pos: 48000, peak: -40) == cell(-10), "held for 1.5 s")
        #expect(marker(pos: 72000 + 24000, peak: -40) == cell(-20), "then falls 20 dB/s: 0.5 s later, 10 dB down")
        #expect(marker(pos: 72000 + 96000, peak: -40) == cell(-40), "never below the current peak")
    }

    @Test func smallTerminalsKeepChannelRowsThenGoCompact() {
        var r = AnsiMeterRenderer(width: 30, height: 6, color: false, unicode: true)
        let lines = Self.visibleLines(r.render(Self.frame(channels: 2, bands: 16, db: -20), info: Self.info(channels: 2, bands: 16)))
        #expect(lines.count <= 6)
        #expect(lines.filter { $0.hasPrefix("L ") || $0.hasPrefix("R ") }.count == 2, "\(lines)")
        #expect(lines.allSatisfy { $0.count <= 30 })
        for (w, h) in [(19, 10), (80, 2), (24, 1)] {
            var tiny = AnsiMeterRenderer(width: w, height: h, color: false, unicode: true)
            let t = Self.visibleLines(tiny.render(Self.frame(channels: 2, bands: 16, db: -20), info: Self.info(channels: 2, bands: 16)))
            #expect(t.count == 1, "\(w)x\(h): one line")
            #expect(t[0].count <= w && t[0].contains("-20.0"), "\(w)x\(h): \(t[0])")
        }
        var two = AnsiMeterRenderer(width: 40, height: 2, color: false, unicode: true)
        let line = Self.visibleLines(two.render(Self.frame(channels: 2, bands: 0, db: -20), info: Self.info(channels: 2, bands: 0)))[0]
        #expect(line.hasPrefix("L") && line.contains("R"), "both channels: \(line)")
    }
}

private extension String {
    func trimmingCharacters() -> String { filter { $0 != " " } }

}

/// The loudness lines of the live meter and the player.
@Suite struct AnsiLoudnessTests {
    static func screen(_ l: LoudnessReading, target: Double?, width: Int = 100, color: Bool) -> String {
        var r = AnsiMeterRenderer(width: width, height: 24, color: color, unicode: true)
        var f = AnsiRenderingTests.frame(channels: 2, bands: 0, db: -20)
        f.loudness = l
        let info = StreamInfo(source: "x", settings: MeterSettings(loudness: true, targetLufs: target), live: true)
        return r.render(f, info: info)
    }

    @Test func showsMomentaryShortTermIntegratedRangeAndTruePeak() {
        let l = LoudnessReading(momentary: -21.4, shortTerm: -22.6, integrated: -23.1, range: 4.2, truePeakDb: [-3.5, -2.25])
        let text = AnsiRenderingTests.visible(Self.screen(l, target: -23, color: false))
        for needle in ["M -21.4", "S -22.6!", "I -23.1 LUFS", "LRA 4.2 LU", "TP -2.3 dBTP", "target -23.0"] {
            #expect(text.contains(needle), "\(needle) missing in \(text)")
        }
        // Without colour, S over the target is marked by "!"; true peak under -1 dBTP is not.
        #expect(!text.contains("dBTP!") && !text.contains("-2.3!"))
        let hot = AnsiRenderingTests.visible(Self.screen(LoudnessReading(momentary: -30, shortTerm: -30, integrated: -30, truePeakDb: [-0.5]),
                                                         target: -23, color: false))
        #expect(hot.contains("TP -0.5! dBTP") && hot.contains("S -30.0") && !hot.contains("S -30.0!"))
    }

    @Test func rangeIsMarkedUnsettledDuringTheFirstMinute() {
        var l = LoudnessReading(momentary: -21, shortTerm: -22, integrated: -23, range: 4.2, rangeSettled: false)
        let plain = AnsiRenderingTests.visible(Self.screen(l, target: nil, color: false))
        #expect(plain.contains("LRA 4.2? LU"), "\(plain)")
        let coloured = Self.screen(l, target: nil, color: true)
        #expect(coloured.contains("LRA " + AnsiRenderingTests.esc + "2m4.2?"), "dimmed: \(coloured)")
        l.rangeSettled = true
        let settled = AnsiRenderingTests.visible(Self.screen(l, target: nil, color: false))
        #expect(settled.contains("LRA 4.2 LU") && !settled.contains("?"), "\(settled)")
    }

    @Test func targetMarkAndWarningColour() {
        let under = Self.screen(LoudnessReading(momentary: -40, shortTerm: -40, integrated: -40), target: -23, color: true)
        let over = Self.screen(LoudnessReading(momentary: -10, shortTerm: -10, integrated: -12), target: -23, color: true)
        let barLine = { (s: String) in s.components(separatedBy: "\r\n").first { AnsiRenderingTests.visible($0).hasPrefix("S  ") }! }
        // The target cell: cells = width - 15, the -60..0 LUFS scale, marked with a heavy bar.
        let cells = 100 - 15
        let mark = Int(((-23.0 + 60) / 60 * Double(cells)).rounded(.down))
        let visible = Array(AnsiRenderingTests.visible(barLine(under)))
        #expect(visible[3 + mark] == "┃")
        #expect(barLine(under).contains(AnsiRenderingTests.esc + "32m") && !barLine(under).contains(AnsiRenderingTests.esc + "31m"))
        #expect(barLine(over).contains(AnsiRenderingTests.esc + "31m"), "short-term over the target: warning colour")
        // With colour the warning is the colour alone: the unit keeps its space.
        #expect(AnsiRenderingTests.visible(barLine(over)).hasSuffix("-10.0 LUFS"), "\(AnsiRenderingTests.visible(barLine(over)))")
        // Bar length follows the short-term loudness.
        let filled = visible.prefix(3 + cells).filter { $0 == "█" }.count
        #expect(abs(filled - Int((-40.0 + 60) / 60 * Double(cells))) <= 1)
    }

    /// With the scale and the spectrum: channel rows, the scale, the loudness lines,
    /// then the spectrum; on a short terminal the loudness numbers keep their row before the bar.
    @Test func loudnessLinesSitBetweenTheScaleAndTheSpectrum() {
        let l = LoudnessReading(momentary: -21.4, shortTerm: -22.6, integrated: -23.1, range: 4.2, truePeakDb: [-3.5])
        var f = AnsiRenderingTests.frame(channels: 2, bands: 16, db: -20)
        f.loudness = l
        let s = MeterSettings(rate: 48000, channels: 2, bands: 16, loudness: true, targetLufs: -23)
        let info = StreamInfo(source: "x", settings: s, bandsHz: (try! BandLayout(settings: s)).edgesHz, live: true)
        func lines(_ w: Int, _ h: Int) -> [String] {
            var r = AnsiMeterRenderer(width: w, height: h, color: false, unicode: true)
            return AnsiRenderingTests.visibleLines(r.render(f, info: info))
        }
        let tall = lines(100, 30)
        let right = tall.firstIndex { $0.hasPrefix("R ") }!
        #expect(tall[right + 1].hasSuffix("0 dB"), "the scale under the bars: \(tall)")
        #expect(tall[right + 2].hasPrefix("S  ") && tall[right + 3].hasPrefix("M -21.4"), "then the loudness lines: \(tall)")
        #expect(tall[right + 4].hasPrefix("  0 "), "then the spectrum with its axis: \(tall)")
        #expect(tall.last!.hasPrefix(" Hz ") && tall.count <= 29)
        let short = lines(60, 6)
        #expect(short.count == 5, "the last row stays free: \(short)")
        #expect(short[1].hasPrefix("L ") && short[2].hasPrefix("R ") && short[3].hasSuffix("0 dB"), "\(short)")
        #expect(short[4].hasPrefix("M -21.4") && short[4].contains("I -23.1"), "one row left: the numbers: \(short)")
        let seven = lines(60, 7)
        #expect(seven[4].hasPrefix("S  ") && seven[5].hasPrefix("M -21.4") && seven.count == 6, "\(seven)")
    }

    @Test(arguments: [20, 40, 80])
    func fitsNarrowTerminals(width: Int) {
        let l = LoudnessReading(momentary: -21.4, shortTerm: -22.6, integrated: -23.1, range: 14.2, truePeakDb: [-0.5])
        for line in Self.screen(l, target: -16, width: width, color: true).components(separatedBy: "\r\n").dropLast() {
            #expect(AnsiRenderingTests.visible(line).count <= max(20, width), "too wide: \(AnsiRenderingTests.visible(line))")
        }
    }
}
