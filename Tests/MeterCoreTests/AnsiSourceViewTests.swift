import Testing
@testable import MeterCore

/// Several sources on one live meter: a group of rows each, headed by its source's name,
/// within the screen at every size (never a row beyond the last but one, never a line wider).
@Suite struct AnsiSourceViewTests {
    static func views(_ names: [String], width: Int, height: Int) -> [AnsiSourceView] {
        names.enumerated().map { k, name in
            var info = StreamInfo(source: name, settings: MeterSettings(rate: 48000, channels: 2), live: true)
            info.stream = k
            var v = AnsiSourceView(renderer: AnsiMeterRenderer(width: width, height: height, color: false, unicode: true), info: info)
            let db = k == 0 ? -6.0 : -20.0
            var f = MeterFrame(pos: 48000, rmsDb: [db, db], peakDb: [db + 3, db + 3])
            f.stream = k
            v.renderer.observe(f)
            v.lastFrame = f
            return v
        }
    }

    /// The screen's rows as seen: escape sequences removed, split at the line breaks.
    static func rows(_ screen: String) -> [String] {
        AnsiRenderingTests.visible(screen).components(separatedBy: "\r\n")
    }

    @Test("each source's group is headed by its name and shows its own level", arguments: [(80, 24), (60, 12), (40, 7)])
    func groups(width: Int, height: Int) {
        var v = Self.views(["mic.source", "desktop.monitor"], width: width, height: height)
        let screen = AnsiSourceView.screen(&v, statuses: [MeterStatus(), MeterStatus()], width: width, height: height)
        let rows = Self.rows(screen)
        #expect(rows.count <= height - 1, "the last row stays free: \(rows.count) of \(height)")
        #expect(rows.allSatisfy { $0.count <= width }, "\(rows.map(\.count))")
        let first = rows.firstIndex { $0.hasPrefix("mic.source") }, second = rows.firstIndex { $0.hasPrefix("desktop.monitor") }
        #expect(first == 0 && second != nil && second! > first!, "\(rows)")
        if let second {
            #expect(rows[..<second].contains { $0.contains("-6.0") } && !rows[..<second].contains { $0.contains("-20.0") })
            #expect(rows[second...].contains { $0.contains("-20.0") })
        }
    }

    @Test("a terminal too small for groups: one compact line per source after its name; a single row shows the first")
    func small() {
        var v = Self.views(["mic.source", "desktop.monitor"], width: 40, height: 3)
        let rows = Self.rows(AnsiSourceView.screen(&v, statuses: [MeterStatus(), MeterStatus()], width: 40, height: 3))
        #expect(rows.count == 2 && rows[0].hasPrefix("mic.source") && rows[1].hasPrefix("desktop.m"), "\(rows)")
        #expect(rows.allSatisfy { $0.count <= 40 }, "\(rows)")
        var one = Self.views(["mic.source", "desktop.monitor"], width: 30, height: 1)
        let screen = AnsiSourceView.screen(&one, statuses: [MeterStatus(), MeterStatus()], width: 30, height: 1)
        #expect(!screen.contains("\r\n"), "no line break on a one-row terminal (it would scroll)")
        #expect(Self.rows(screen).first?.hasPrefix("mic.") == true)
    }
}
