import Foundation
import Testing
@testable import MeterCore

/// The live meter of a calibrated run: its levels come shifted by the calibration, and it
/// draws exactly the screen the uncalibrated meter draws for the unshifted levels (bars,
/// peak markers, colour zones, spectrum, history), with the readouts and the scales' labels
/// in the calibrated unit.
@Suite struct AnsiCalibratedTests {
    static let calibration = 94.0

    static func info(calibrated: Bool, meter: MeterKind? = nil) -> StreamInfo {
        var settings = MeterSettings(rate: 48000, channels: 2, bands: 16)
        if calibrated { settings.spl = SoundLevelSettings(calibrationDb: calibration) }
        settings.meter = meter
        let edges = (try! BandLayout(settings: settings)).edgesHz
        return StreamInfo(source: "mic.monitor", settings: settings, bandsHz: edges, live: true)
    }

    /// The test frame of `AnsiRenderingTests` (RMS -20, peak -17, bands -80 to -65 dBFS),
    /// every level shifted by `offset`.
    static func frame(shiftedBy offset: Double) -> MeterFrame {
        var f = AnsiRenderingTests.frame(channels: 2, bands: 16, db: -20)
        f.rmsDb = f.rmsDb.map { $0 + offset }
        f.peakDb = f.peakDb.map { $0 + offset }
        f.bandsDb = f.bandsDb?.map { $0 + offset }
        f.meterDb = [-3, -8]
        return f
    }

    /// The numbers on a scale line and the column each starts at.
    static func labels(_ line: String) -> [(column: Int, value: Int)] {
        var out: [(Int, Int)] = []
        var current = "", start = 0
        for (i, ch) in Array(line + " ").enumerated() {
            if ch == "-" || ch.isNumber {
                if current.isEmpty { start = i }
                current.append(ch)
            } else if !current.isEmpty {
                if let v = Int(current) { out.append((start, v)) }
                current = ""
            }
        }
        return out
    }

    @Test("bars, peak markers, zones and the spectrum are the uncalibrated screen's; readouts and scales read dB SPL")
    func calibratedScreenIsTheShiftedOne() throws {
        var plain = AnsiMeterRenderer(width: 100, height: 30, color: true, unicode: true)
        var cal = plain
        let a = plain.render(Self.frame(shiftedBy: 0), info: Self.info(calibrated: false)).components(separatedBy: "\r\n")
        let b = cal.render(Self.frame(shiftedBy: Self.calibration), info: Self.info(calibrated: true)).components(separatedBy: "\r\n")
        #expect(a.count == b.count && a.count > 20)
        let rows = AnsiRenderingTests.visibleLines(a.joined(separator: "\r\n"))
        let right = try #require(rows.firstIndex { $0.hasPrefix("R ") })
        // The channel rows: the same bar, colours and marker; the readouts 94 dB higher.
        for i in 1...right {
            let shifted = a[i].replacingOccurrences(of: AnsiMeterRenderer.readout(-20), with: AnsiMeterRenderer.readout(74))
                .replacingOccurrences(of: AnsiMeterRenderer.readout(-17), with: AnsiMeterRenderer.readout(77))
            #expect(b[i] == shifted, "row \(i):\n\(a[i])\n\(b[i])")
        }
        // The scale: each label is an uncalibrated one plus 94 where that one is (within a
        // column: a label may be a character shorter or longer), named dB SPL. Full scale's
        // label, 94, is a character wider than 0, and takes the place of its neighbour (-3).
        let scaleA = AnsiRenderingTests.visible(a[right + 1]), scaleB = AnsiRenderingTests.visible(b[right + 1])
        #expect(scaleA.hasSuffix(" 0 dB") && scaleB.hasSuffix(" 94 dB SPL"), "\(scaleA)\n\(scaleB)")
        let ticksA = Self.labels(scaleA), ticksB = Self.labels(scaleB)
        #expect(ticksB.count >= ticksA.count - 1 && ticksB.count >= 5, "\(scaleA)\n\(scaleB)")
        for y in ticksB {
            let x = ticksA.first { $0.value == y.value - 94 }
            #expect(x.map { abs($0.column - y.column) <= 1 } == true, "\(y) has no uncalibrated label \(y.value - 94) by it")
        }
        // The spectrum: the same columns, colours included; its axis labels 94 higher.
        func afterAxis(_ line: String) -> String {
            line.range(of: "\u{1B}[0m").map { String(line[$0.upperBound...]) } ?? line
        }
        var axisLabels = 0
        for i in (right + 2)..<a.count {
            #expect(afterAxis(a[i]) == afterAxis(b[i]), "spectrum row \(i)")
            let axisA = AnsiRenderingTests.visible(a[i]).prefix(4).trimmingCharacters(in: .whitespaces)
            let axisB = AnsiRenderingTests.visible(b[i]).prefix(4).trimmingCharacters(in: .whitespaces)
            if let x = Int(axisA) {
                #expect(Int(axisB) == x + 94, "axis \(axisA) vs \(axisB)")
                axisLabels += 1
            } else {
                #expect(axisA == axisB)
            }
        }
        #expect(axisLabels >= 3, "the spectrum axis labels 94 down to 4")
    }

    @Test("digital zero of a calibrated run (-160 plus the calibration) draws an empty bar; full scale a full one")
    func floorAndFullScale() {
        var r = AnsiMeterRenderer(width: 80, height: 24, color: false, unicode: true)
        r.offsetDb = Self.calibration
        #expect(AnsiRenderingTests.visible(r.bar(db: -160 + Self.calibration, peakDb: nil, cells: 40)).trimmingCharacters(in: .whitespaces) == "")
        #expect(AnsiRenderingTests.visible(r.bar(db: Self.calibration, peakDb: nil, cells: 40)).filter { $0 == "█" }.count == 40)
        #expect(AnsiRenderingTests.visible(r.bar(db: Self.calibration - 30, peakDb: nil, cells: 40)).filter { $0 == "█" }.count == 20)
    }

    @Test("the history strip of a calibrated run is the uncalibrated strip of the unshifted levels")
    func historyStrip() {
        let plain = AnsiMeterRenderer(width: 80, height: 24, color: true, unicode: true)
        var cal = plain
        cal.offsetDb = Self.calibration
        let levels: [Double] = [-160, -60, -45, -20, -12, -5, 0]
        #expect(cal.historyStrip(levels.map { $0 + Self.calibration }, cells: 20) == plain.historyStrip(levels, cells: 20))
    }

    @Test("a VU meter reads its own digital scale in a calibrated run: bars and scale as uncalibrated")
    func meterKindsStayDigital() {
        var plain = AnsiMeterRenderer(width: 100, height: 30, color: true, unicode: true)
        var cal = plain
        let a = plain.rows(Self.frame(shiftedBy: 0), info: Self.info(calibrated: false, meter: .vu))
        let b = cal.rows(Self.frame(shiftedBy: Self.calibration), info: Self.info(calibrated: true, meter: .vu))
        #expect(a[1] == b[1] && a[2] == b[2] && a[3] == b[3], "\(a[1])\n\(b[1])\n\(a[3])\n\(b[3])")
    }
}
