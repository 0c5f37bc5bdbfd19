import Foundation
import Testing
import TestSupport

/// `pulsemeter waveform` against a naive computation of the bars README.md "waveform" defines.
@Suite struct WaveformCLITests {
    struct Expected {
        var rms: [Double], peak: [Double], levels: [Double]
    }

    /// Bar i covers frames [floor(i*F/N), floor((i+1)*F/N)) of the mono mix (mean of channels).
    static func naive(_ a: TestAudio, bars n: Int, floor: Double = -60) -> Expected {
        let f = a.frames
        var rms: [Double] = [], peak: [Double] = []
        for i in 0..<n {
            let lo = i * f / n, hi = (i + 1) * f / n
            if lo == hi {
                rms.append(-160)
                peak.append(-160)
                continue
            }
            var ss = 0.0, pk = 0.0
            for j in lo..<hi {
                var m = 0.0
                for c in 0..<a.channels { m += a.samples[j * a.channels + c] }
                m /= Double(a.channels)
                ss += m * m
                pk = max(pk, abs(m))
            }
            rms.append(dB(power: ss / Double(hi - lo)))
            peak.append(dB(amplitude: pk))
        }
        return Expected(rms: rms, peak: peak, levels: rms.map { min(1, max(0, ($0 - floor) / -floor)) })
    }

    static func waveform(_ args: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let r = try Tool.run(["waveform"] + args)
        #expect(r.status == 0, "\(r.err)", sourceLocation: sourceLocation)
        #expect(r.stderr.isEmpty, sourceLocation: sourceLocation)
        // One JSON document on one line, every number finite.
        #expect(r.out.hasSuffix("}\n") && r.out.filter { $0 == "\n" }.count == 1, sourceLocation: sourceLocation)
        let obj = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any], sourceLocation: sourceLocation)
        #expect(Tool.allFinite(obj), sourceLocation: sourceLocation)
        return obj
    }

    static func expectMatches(_ obj: [String: Any], _ a: TestAudio, bars n: Int, floor: Double = -60,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let e = naive(a, bars: n, floor: floor)
        #expect(Tool.int(obj["version"]) == 1, sourceLocation: sourceLocation)
        #expect(Tool.int(obj["rate"]) == a.rate, sourceLocation: sourceLocation)
        #expect(Tool.int(obj["channels"]) == a.channels, sourceLocation: sourceLocation)
        #expect(Tool.int(obj["frames"]) == a.frames, sourceLocation: sourceLocation)
        #expect(Tool.int(obj["bars"]) == n, sourceLocation: sourceLocation)
        #expect(Tool.double(obj["floor_db"]) == floor, sourceLocation: sourceLocation)
        #expect(abs((Tool.double(obj["duration"]) ?? -1) - Double(a.frames) / Double(a.rate)) <= 0.000005 + 1e-12, sourceLocation: sourceLocation)
        let rms = Tool.doubles(obj["rms_db"]), peak = Tool.doubles(obj["peak_db"]), levels = Tool.doubles(obj["levels"])
        #expect(rms.count == n && peak.count == n && levels.count == n, sourceLocation: sourceLocation)
        guard rms.count == n, peak.count == n, levels.count == n else { return }
        var bad: [String] = []
        for i in 0..<n {
            // Exact up to the printed precision (2 decimals for dB, 4 for levels).
            if abs(rms[i] - e.rms[i]) > 0.005 + 1e-4 { bad.append("rms[\(i)] \(rms[i]) vs \(e.rms[i])") }
            if abs(peak[i] - e.peak[i]) > 0.005 + 1e-4 { bad.append("peak[\(i)] \(peak[i]) vs \(e.peak[i])") }
            if abs(levels[i] - e.levels[i]) > 0.00005 + 1e-5 { bad.append("levels[\(i)] \(levels[i]) vs \(e.levels[i])") }
            if e.rms[i] == -160 && (rms[i] != -160 || peak[i] != -160 || levels[i] != 0) { bad.append("bar \(i) should be empty") }
        }
        #expect(bad.isEmpty, "\(bad.count) mismatches: \(bad.prefix(4))", sourceLocation: sourceLocation)
    }

    @Test(arguments: [(TestAudio.Encoding.s16, 1), (.s16, 2), (.s24, 6), (.f32, 2), (.s32, 3)])
    func barsMatchNaiveComputation(encoding: TestAudio.Encoding, channels: Int) throws {
        let dir = try TempDir()
        let a = TestAudio.make(rate: 44100, channels: channels, seconds: 0.9, encoding: encoding, seed: 21, silenceFrom: 0.7)
        let path = try a.write(to: dir, name: "w")
        for n in [1, 2, 3, 7, 48, 100, 999, a.frames - 1, a.frames, a.frames + 1, a.frames * 2 + 3] {
            Self.expectMatches(try Self.waveform([path, "--bars", "\(n)"]), a, bars: n)
        }
        // Default: 64 bars, floor -60.
        Self.expectMatches(try Self.waveform([path]), a, bars: 64)
        // --bars=N form, -n N, and another floor.
        Self.expectMatches(try Self.waveform([path, "--bars=33", "--floor=-40"]), a, bars: 33, floor: -40)
        Self.expectMatches(try Self.waveform([path, "-n", "5", "--floor", "-90"]), a, bars: 5, floor: -90)
    }

    @Test func moreBarsThanFrames() throws {
        let dir = try TempDir()
        let a = TestAudio.make(rate: 8000, channels: 2, seconds: 0.01, encoding: .s16, seed: 22)
        #expect(a.frames == 80)
        let path = try a.write(to: dir, name: "short", ext: "flac")
        for n in [79, 80, 81, 200, 333, 1000] {
            let obj = try Self.waveform([path, "--bars", "\(n)"])
            Self.expectMatches(obj, a, bars: n)
            // Exactly F bars hold a frame; the rest read -160.
            #expect(Tool.doubles(obj["rms_db"]).filter { $0 > -160 }.count == min(n, 80))
        }
        // Three frames into seven bars: bars 2, 4 and 6 hold frames 0, 1 and 2.
        let three = TestAudio(rate: 8000, channels: 1, encoding: .s16, doubles: [0.5, -0.25, 0.125])
        let obj = try Self.waveform([try three.write(to: dir, name: "three"), "--bars", "7"])
        #expect(Tool.doubles(obj["rms_db"]) == [-160, -160, -6.02, -160, -12.04, -160, -18.06])
        #expect(Tool.doubles(obj["peak_db"]) == [-160, -160, -6.02, -160, -12.04, -160, -18.06])
        #expect(Tool.doubles(obj["levels"]) == [0, 0, 0.8997, 0, 0.7993, 0, 0.699])
    }

    @Test func headerOnlyFile() throws {
        let dir = try TempDir()
        let path = try dir.write(WAV.file(rate: 16000, channels: 2, bits: 16, float: false, payload: []), "empty.wav")
        for n in [1, 10] {
            let obj = try Self.waveform([path, "--bars", "\(n)"])
            #expect(Tool.int(obj["frames"]) == 0)
            #expect(Tool.double(obj["duration"]) == 0)
            #expect(Tool.int(obj["rate"]) == 16000)
            #expect(Tool.doubles(obj["rms_db"]) == Array(repeating: -160, count: n))
            #expect(Tool.doubles(obj["peak_db"]) == Array(repeating: -160, count: n))
            #expect(Tool.doubles(obj["levels"]) == Array(repeating: 0, count: n))
        }
        // SVG and ANSI of an empty file still have N bars.
        let svg = try Tool.run(["waveform", path, "--bars", "6", "--format", "svg"])
        #expect(svg.status == 0)
        #expect(svg.out.components(separatedBy: "<rect ").count - 1 == 6)
    }

    @Test func svgAndAnsiHaveOneBarPerBar() throws {
        let dir = try TempDir()
        let a = TestAudio.make(rate: 22050, channels: 2, seconds: 0.5, encoding: .s16, seed: 23)
        let path = try a.write(to: dir, name: "s")
        let svg = try Tool.run(["waveform", path, "--bars", "40", "--format", "svg", "--width", "400", "--height", "50", "--color", "#112233"])
        #expect(svg.status == 0)
        #expect(svg.out.hasPrefix("<?xml") && svg.out.hasSuffix("</svg>\n"))
        #expect(svg.out.components(separatedBy: "<rect ").count - 1 == 40)
        #expect(svg.out.contains("fill=\"#112233\""))
        #expect(svg.out.range(of: "<svg [^>]*width=\"400(\\.0)?\"", options: .regularExpression) != nil, "\(svg.out.prefix(300))")
        #expect(svg.out.range(of: "<svg [^>]*height=\"50(\\.0)?\"", options: .regularExpression) != nil)
        #expect(!svg.out.contains("<script"))
        for lang in ["C.UTF-8", "C"] {
            let r = try Tool.exec(Tool.binary, ["waveform", path, "--bars", "40", "--format", "ansi"], environment: ["LANG": lang, "LC_ALL": lang])
            #expect(r.status == 0)
            #expect(r.out.hasSuffix("\n") && r.out.filter { $0 == "\n" }.count == 1)
            #expect(r.out.dropLast().count == 40, "\(lang): \(r.out)")
        }
        // -o writes the file, nothing on stdout.
        let out = dir.path("w.json")
        let r = try Tool.run(["waveform", path, "--bars", "12", "-o", out])
        #expect(r.status == 0 && r.stdout.isEmpty)
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any])
        Self.expectMatches(obj, a, bars: 12)
    }
}
