import Foundation
import Testing
import TestSupport
@testable import MeterCore

@Suite struct JSONLineBuilderTests {
    static func fmt(_ v: Double, _ decimals: Int) -> String {
        let b = JSONLineBuilder()
        b.number(v, decimals: decimals)
        return String(decoding: b.bytes, as: UTF8.self)
    }

    @Test(arguments: [
        (-20.0, 2, "-20.0"), (0.0, 2, "0.0"), (-23.014, 2, "-23.01"), (-23.016, 2, "-23.02"),
        (-3.0103, 2, "-3.01"), (1.5, 2, "1.5"), (-1.5, 2, "-1.5"), (3.14159, 3, "3.142"),
        (3.14159, 5, "3.14159"), (3.14159, 0, "3.0"), (2.5, 0, "3.0"), (-2.5, 0, "-3.0"),
        (0.1, 6, "0.1"), (0.000001, 6, "0.000001"), (0.0000004, 6, "0.0"), (10.0, 1, "10.0"),
        (99.996, 2, "100.0"), (-99.996, 2, "-100.0"), (0.05, 1, "0.1"), (-160.0, 2, "-160.0"),
        (1000.0, 2, "1000.0"), (1.10, 2, "1.1"), (1.01, 2, "1.01"), (0.03333333, 5, "0.03333"),
        (123456789.123, 2, "123456789.12"), (48000, 3, "48000.0"), (0.25, 2, "0.25"),
        (-0.25, 1, "-0.3"), (1.0e-9, 2, "0.0"), (7.0, 6, "7.0"),
    ] as [(Double, Int, String)])
    func numberFormatting(value: Double, decimals: Int, expected: String) {
        #expect(Self.fmt(value, decimals) == expected)
    }

    @Test(arguments: [-0.0, -0.001, -0.004, -0.0049, -1e-12, -0.00000049])
    func negativeZeroNeverPrintsMinus(value: Double) {
        #expect(Self.fmt(value, 2) == "0.0")
        #expect(Self.fmt(value, 0) == "0.0")
    }

    @Test func negativeZeroAtEveryPrecision() {
        for d in 0...6 {
            let s = Self.fmt(-0.0, d)
            #expect(s == "0.0", "decimals \(d): \(s)")
            let tiny = -0.4 / pow(10, Double(d))
            #expect(Self.fmt(tiny, d) == "0.0", "decimals \(d): \(Self.fmt(tiny, d))")
        }
        // Just over half a unit still rounds away from zero, with its sign.
        #expect(Self.fmt(-0.0051, 2) == "-0.01")
    }

    @Test func nonFiniteStaysValidJSON() {
        for v in [Double.nan, .infinity, -.infinity, 1e300] {
            let s = Self.fmt(v, 2)
            #expect(s == "0")
        }
    }

    /// Any value: valid JSON, at most `decimals` digits, no needless trailing zeros, within half
    /// a unit of the last place, and never "-0.0".
    @Test func randomNumbersRoundTrip() throws {
        var rng = SeededRNG(seed: 99)
        let pattern = try NSRegularExpression(pattern: "^-?(0|[1-9][0-9]*)\\.[0-9]+$")
        for i in 0..<20000 {
            let decimals = i % 7
            let magnitude = pow(10, rng.signed() * 6)
            let v = (rng.signed() < 0 ? -1 : 1) * magnitude
            let s = Self.fmt(v, decimals)
            let range = NSRange(s.startIndex..., in: s)
            #expect(pattern.firstMatch(in: s, range: range) != nil, "\(v) -> \(s)")
            let parts = s.split(separator: ".")
            let frac = parts[1]
            #expect(frac.count <= max(1, decimals))
            if frac.count > 1 { #expect(frac.last != "0", "\(v) -> \(s)") }
            let back = try #require(Double(s))
            let unit = pow(10, -Double(decimals))
            #expect(abs(back - v) <= unit / 2 * (1 + 1e-9) + abs(v) * 1e-15, "\(v) decimals \(decimals) -> \(s)")
            if back == 0 { #expect(!s.hasPrefix("-"), "\(v) -> \(s)") }
            // JSON parsers read it too.
            let obj = try JSONSerialization.jsonObject(with: Data("[\(s)]".utf8)) as? [Double]
            #expect(obj?.first == back)
        }
    }

    @Test func integers() {
        for (v, s) in [(0, "0"), (7, "7"), (-7, "-7"), (48000, "48000"), (Int.max, "9223372036854775807"),
                       (Int.min, "-9223372036854775808"), (1_000_000, "1000000")] {
            let b = JSONLineBuilder()
            b.int(v)
            #expect(String(decoding: b.bytes, as: UTF8.self) == s)
        }
    }

    @Test func stringEscaping() throws {
        let cases: [(String, String)] = [
            ("plain", "\"plain\""),
            ("a\"b", "\"a\\\"b\""),
            ("back\\slash", "\"back\\\\slash\""),
            ("line\nbreak\r\ttab", "\"line\\nbreak\\r\\ttab\""),
            ("\u{01}\u{1F}\u{00}", "\"\\u0001\\u001f\\u0000\""),
            ("alsa_output.pci-0000.monitor", "\"alsa_output.pci-0000.monitor\""),
            ("héllo ✓ 🎵", "\"héllo ✓ 🎵\""),
            ("", "\"\""),
            ("/tmp/a b/c.wav", "\"/tmp/a b/c.wav\""),
        ]
        for (input, expected) in cases {
            let b = JSONLineBuilder()
            b.string(input)
            let out = String(decoding: b.bytes, as: UTF8.self)
            #expect(out == expected)
            let parsed = try JSONSerialization.jsonObject(with: Data("[\(out)]".utf8)) as? [String]
            #expect(parsed == [input])
        }
        // Every control character round-trips.
        let all = String((UInt8(0)..<UInt8(0x20)).map { Character(Unicode.Scalar($0)) }) + "\u{7F}\""
        let b = JSONLineBuilder()
        b.string(all)
        let wrapped: [UInt8] = Array("[".utf8) + b.bytes + Array("]".utf8)
        let parsed = try JSONSerialization.jsonObject(with: Data(wrapped)) as? [String]
        #expect(parsed == [all])
        #expect(!b.bytes.contains { $0 < 0x20 })
    }

    @Test func numbersArrayAndReset() throws {
        let b = JSONLineBuilder()
        b.numbers([-160, -3.0103, 0, -0.0, 12.3456], decimals: 2)
        #expect(String(decoding: b.bytes, as: UTF8.self) == "[-160.0,-3.01,0.0,0.0,12.35]")
        b.reset()
        #expect(b.bytes.isEmpty)
        b.numbers([], decimals: 2)
        #expect(String(decoding: b.bytes, as: UTF8.self) == "[]")
    }

    @Test func numbersAreTheNumbersOneByOne() {
        // More numbers than the builder's first capacity holds: the array makes its room once.
        var rng = SeededRNG(seed: 41)
        let values = (0..<200).map { _ in Double.random(in: -170...20, using: &rng) } + [-0.004, 0.005, -0.005, 9.995]
        for decimals in [0, 2, 3, 5] {
            let whole = JSONLineBuilder(capacity: 64), single = JSONLineBuilder(capacity: 64)
            whole.raw("x")
            whole.numbers(values, decimals: decimals)
            single.raw("x[")
            for (i, v) in values.enumerated() {
                if i > 0 { single.byte(UInt8(ascii: ",")) }
                single.number(v, decimals: decimals)
            }
            single.byte(UInt8(ascii: "]"))
            #expect(whole.bytes == single.bytes, "decimals \(decimals)")
        }
    }

    @Test func encoderLinesAreValidJSON() throws {
        var enc = NDJSONEncoder()
        let settings = MeterSettings(rate: 48000, channels: 2, bands: 4)
        let layout = try BandLayout(settings: settings)
        let start = enc.start(StreamInfo(source: "we\"ird\nname", settings: settings, bandsHz: layout.edgesHz))
        let frame = enc.frame(MeterFrame(pos: 1600, rmsDb: [-23.0103, -0.0], peakDb: [-20, -160], bandsDb: [-1, -2, -3, -160]))
        let end = enc.end(StreamSummary(pos: 144000, rate: 48000, rmsDb: [-23.01, -23.01], peakDb: [-20, -20], recordedFrames: 144000, file: "a.wav"))
        for line in [start, frame, end] {
            #expect(line.last == UInt8(ascii: "\n"))
            #expect(line.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") })
            let obj = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            #expect(obj["type"] is String)
        }
        let s = try JSONSerialization.jsonObject(with: Data(start)) as! [String: Any]
        #expect(s["source"] as? String == "we\"ird\nname")
        #expect(s["hop"] as? Int == 1600)
        #expect(s["window"] as? Int == 2400)
        #expect(s["fft_size"] as? Int == 2048)
        #expect((s["bands_hz"] as? [[Double]])?.count == 4)
        let f = try JSONSerialization.jsonObject(with: Data(frame)) as! [String: Any]
        #expect(f["t"] as? Double == 0.03333)
        #expect(f["rms_db"] as? [Double] == [-23.01, 0])
        #expect(String(decoding: frame, as: UTF8.self).contains("\"rms_db\":[-23.01,0.0]"))
        let e = try JSONSerialization.jsonObject(with: Data(end)) as! [String: Any]
        #expect(e["duration"] as? Double == 3.0)
        #expect(e["recorded_frames"] as? Int == 144000)
        #expect(e["file"] as? String == "a.wav")
        #expect(e["dropped"] as? Int == 0)
    }
}

/// Numbers with 2 decimals (the dB values) agree with printf: every one a meter writes (-160 to
/// 30 dB) and, more sparsely, magnitudes up to a million.
@Suite struct TwoDecimalTests {
    static func expected(_ units: Int) -> String {
        var s = String(format: "%.2f", Double(units) / 100)
        if s.hasSuffix("0") { s.removeLast() }  // "-20.00" -> "-20.0", "1.50" -> "1.5"
        if s == "-0.0" { s = "0.0" }
        return s
    }

    @Test func everyCentiValue() {
        for units in Array(-16001...3001) + Array(stride(from: -100_000_000, through: 100_000_000, by: 9_973)) {
            let b = JSONLineBuilder()
            b.number(Double(units) / 100, decimals: 2)
            let got = String(decoding: b.bytes, as: UTF8.self)
            if got != Self.expected(units) {
                Issue.record("units \(units): \(got) vs \(Self.expected(units))")
                return
            }
        }
    }
}
