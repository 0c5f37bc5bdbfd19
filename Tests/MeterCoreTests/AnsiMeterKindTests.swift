@testable import MeterCore
import Testing
import TestSupport

/// The ANSI meter with --meter, --spl and two channels: bars and scale in the meter's unit,
/// the sound level line labelled dBFS(A), the correlation bar.
@Suite struct AnsiMeterKindTests {
    static func screen(_ settings: MeterSettings, _ frame: MeterFrame) -> String {
        var r = AnsiMeterRenderer(width: 80, height: 20, color: false, unicode: false)
        return r.render(frame, info: StreamInfo(source: "mic", settings: settings))
    }

    @Test func vuBarsAndScaleAreInVU() {
        var s = MeterSettings(rate: 48000, channels: 2)
        s.meter = .vu
        var f = MeterFrame(pos: 48000, rmsDb: [-21, -21], peakDb: [-18, -18])
        f.meterDb = [-3.2, 0.5]
        let text = Self.screen(s, f)
        #expect(text.contains("-3.2 VU") && text.contains("0.5 VU"), "\(text)")
        // The scale runs from -20 to +3 VU and says so.
        let scale = text.split(separator: "\r\n").first { $0.hasPrefix("  -20") }
        #expect(scale?.contains("3 VU") == true, "\(text)")
        // Full scale on the VU bar is +3 VU: 0.5 VU draws further than -3.2 VU.
        let rows = text.split(separator: "\r\n").filter { $0.hasPrefix("L ") || $0.hasPrefix("R ") }
        #expect(rows.count == 2 && rows[0].filter { $0 == "#" }.count < rows[1].filter { $0 == "#" }.count, "\(rows)")
    }

    @Test func soundLevelLineIsLabelled() {
        var s = MeterSettings(rate: 48000, channels: 1)
        s.spl = SoundLevelSettings()
        var f = MeterFrame(pos: 48000, rmsDb: [-21], peakDb: [-18])
        f.spl = SoundLevelReading(splDb: [-23.4], leqDb: [-22.9])
        let text = Self.screen(s, f)
        #expect(text.contains("LAF -23.4  LAeq -22.9 dBFS(A)"), "\(text)")
        s.spl?.calibrationDb = 120
        #expect(Self.screen(s, f).contains("dB(A)") && !Self.screen(s, f).contains("dBFS(A)"))
    }

    @Test func correlationBar() {
        var f = MeterFrame(pos: 48000, rmsDb: [-21, -27], peakDb: [-18, -24])
        f.correlation = -0.5
        f.balanceDb = -6
        let text = Self.screen(MeterSettings(rate: 48000, channels: 2), f)
        let line = text.split(separator: "\r\n").first { $0.hasPrefix("corr -1 ") }
        #expect(line?.contains(" +1 -0.50  bal -6.0 dB") == true, "\(text)")
        // The marker a quarter of the way along (-0.5), the centre mark at half.
        if let line {
            let bar = Array(line.dropFirst("corr -1 ".count).prefix { $0 != " " })
            let mark = bar.firstIndex(of: "|") ?? -1
            #expect(abs(Double(mark) / Double(bar.count - 1) - 0.25) < 0.05 && bar.contains("+"), "\(line)")
        }
    }
}
