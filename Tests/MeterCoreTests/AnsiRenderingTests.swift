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
}

private extension String {
    func trimmingCharacters() -> String { filter { $0 != " " } }

}
