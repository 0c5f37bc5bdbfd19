import Testing
@testable import MeterCore

/// The recording meter's scrolling level history: one column per frame, newest at the right,
/// the bars' dB mapping, and it gives way first on small terminals.
@Suite struct LevelHistoryTests {
    typealias A = AnsiRenderingTests

    static func frame(_ pos: Int, _ db: [Double]) -> MeterFrame {
        MeterFrame(pos: pos, rmsDb: db, peakDb: db.map { $0 + 3 })
    }

    @Test func keepsTheNewestColumnsInOrder() {
        var h = LevelHistory(capacity: 5)
        #expect(h.newest(3).isEmpty)
        for k in 1...8 { h.append(Self.frame(k * 1600, [-Double(k), -100])) }  // the loudest channel counts
        #expect(h.count == 5)
        #expect(h.newest(3) == [-6, -7, -8])
        #expect(h.newest(10) == [-4, -5, -6, -7, -8])
    }

    /// The strip's row: block heights from clamp((db - floor) / -floor, 0, 1) in eighths, as the bars.
    @Test func stripFollowsTheFrames() {
        let info = A.info(channels: 2, bands: 0)
        var r = AnsiMeterRenderer(width: 60, height: 12, color: false, unicode: true)
        r.history = LevelHistory()
        let levels: [Double] = [-160, -60, -52.5, -45, -30, -15, -7.5, 0, -3]
        var screen = ""
        for (k, db) in levels.enumerated() {
            let f = Self.frame((k + 1) * 1600, [db, db - 10])
            r.observe(f)
            screen = r.render(f, info: info)
        }
        let rows = screen.components(separatedBy: "\r\n").map(A.visible)
        // Head, two channel rows, the scale, then the strip.
        let strip = rows[4]
        let glyphs = BarGlyphs.unicode.vertical
        let want = levels.map { glyphs[Int((min(1, max(0, ($0 + 60) / 60)) * 8).rounded())] }.joined()
        #expect(strip.hasSuffix(want), "\(strip)")
        #expect(strip.count <= 60)
        // The newest column is the last frame's, at the right end of the bars' span.
        #expect(rows[1].count >= strip.count)
    }

    @Test func givesWayFirstAndIsOffByDefault() {
        let f = Self.frame(1600, [-20, -20])
        var plain = AnsiMeterRenderer(width: 60, height: 12, color: false, unicode: true)
        let without = plain.render(f, info: A.info(channels: 2, bands: 0)).components(separatedBy: "\r\n")
        var small = AnsiMeterRenderer(width: 60, height: 12, color: false, unicode: true)
        small.history = LevelHistory()
        small.observe(f)
        let with = small.render(f, info: A.info(channels: 2, bands: 0)).components(separatedBy: "\r\n")
        #expect(with.count == without.count + 1, "one row more with the history")
        // With bands: head, two channels and the scale take 4 rows, the spectrum needs 3 and
        // the last row stays free, so below 9 rows the history gives way and the screen is
        // the one without it; from 9 rows it is there.
        for height in [7, 8, 9, 12] {
            var a = AnsiMeterRenderer(width: 60, height: height, color: false, unicode: true)
            var b = a
            b.history = LevelHistory()
            let fb = A.frame(channels: 2, bands: 8, db: -20)
            b.observe(fb)
            let sa = a.render(fb, info: A.info(channels: 2, bands: 8)), sb = b.render(fb, info: A.info(channels: 2, bands: 8))
            if height < 9 {
                #expect(sa == sb, "height \(height): the history gives way")
            } else {
                #expect(sa != sb, "height \(height): the history is drawn")
                #expect(sb.components(separatedBy: "\r\n").count - 1 <= height - 1)
            }
        }
    }
}
