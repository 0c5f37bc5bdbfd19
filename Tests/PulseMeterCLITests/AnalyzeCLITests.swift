import Foundation
import Testing
import TestSupport

/// `pulsemeter analyze` against sox and against the level definitions (README.md) computed here.
@Suite struct AnalyzeCLITests {
    /// Runs analyze with NDJSON output; checks the line structure every run must have.
    static func analyze(_ args: [String], stdin: Data? = nil,
                        sourceLocation: SourceLocation = #_sourceLocation) throws -> (start: [String: Any], frames: [[String: Any]], end: [String: Any], result: Tool.Result) {
        let r = try Tool.run(["analyze"] + args + ["-f", "ndjson"], stdin: stdin)
        #expect(r.status == 0, "exit \(r.status): \(r.err)", sourceLocation: sourceLocation)
        let lines = try Tool.ndjson(r, sourceLocation: sourceLocation)
        let start = try #require(lines.first, sourceLocation: sourceLocation)
        let end = try #require(lines.last, sourceLocation: sourceLocation)
        #expect(start["type"] as? String == "start", sourceLocation: sourceLocation)
        #expect(end["type"] as? String == "end", sourceLocation: sourceLocation)
        let frames = Array(lines.dropFirst().dropLast())
        #expect(frames.allSatisfy { $0["type"] as? String == "frame" }, sourceLocation: sourceLocation)
        return (start, frames, end, r)
    }

    /// Every frame's pos, t, rms_db and peak_db against the independent computation.
    static func expectFrames(_ frames: [[String: Any]], match audio: TestAudio, hop: Int, window: Int,
                             tolerance: Double = 0.0051, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = audio.frames(hop: hop, window: window)
        #expect(frames.count == expected.count, "frames \(frames.count) vs \(expected.count)", sourceLocation: sourceLocation)
        var worst = 0.0, worstAt = ""
        for (f, e) in zip(frames, expected) {
            let pos = Tool.int(f["pos"])
            #expect(pos == e.pos, sourceLocation: sourceLocation)
            if let t = Tool.double(f["t"]) {
                #expect(abs(t - Double(e.pos) / Double(audio.rate)) <= 0.000005 + 1e-12, sourceLocation: sourceLocation)
            } else {
                Issue.record("frame without t", sourceLocation: sourceLocation)
            }
            let rms = Tool.doubles(f["rms_db"]), peak = Tool.doubles(f["peak_db"])
            #expect(rms.count == audio.channels && peak.count == audio.channels, sourceLocation: sourceLocation)
            for c in 0..<min(audio.channels, rms.count, peak.count) {
                for (got, want, what) in [(rms[c], e.rms[c], "rms"), (peak[c], e.peak[c], "peak")] where abs(got - want) > worst {
                    worst = abs(got - want)
                    worstAt = "\(what) ch \(c) pos \(e.pos): \(got) vs \(want)"
                }
            }
        }
        #expect(worst <= tolerance, "worst frame difference \(worst) dB at \(worstAt)", sourceLocation: sourceLocation)
    }

    struct Container: Sendable, CustomStringConvertible {
        var ext: String
        var encoding: TestAudio.Encoding
        var rate: Int
        var description: String { "\(ext) \(encoding) \(rate) Hz" }
    }

    static let lossless: [Container] = [
        Container(ext: "wav", encoding: .s16, rate: 48000), Container(ext: "wav", encoding: .s24, rate: 44100),
        Container(ext: "wav", encoding: .s32, rate: 48000), Container(ext: "wav", encoding: .f32, rate: 22050),
        Container(ext: "flac", encoding: .s16, rate: 44100), Container(ext: "flac", encoding: .s24, rate: 48000),
        Container(ext: "aiff", encoding: .s16, rate: 48000), Container(ext: "aiff", encoding: .s24, rate: 32000),
    ]

    @Test(arguments: lossless, [1, 2, 6])
    func wholeFileAndEveryFrameAgreeWithSoxAndTheDefinitions(container: Container, channels: Int) throws {
        let dir = try TempDir()
        let audio = TestAudio.make(rate: container.rate, channels: channels, seconds: 1.3, encoding: container.encoding,
                                   seed: UInt64(container.rate + channels))
        let path = try audio.write(to: dir, name: "in", ext: container.ext)
        let sox = try Tool.soxStats(path, channels: channels)
        let run = try Self.analyze([path])
        let hop = Int((Double(container.rate) / 30).rounded()), window = Int((0.05 * Double(container.rate)).rounded())

        // start line
        #expect(run.start["version"] as? Int == 1)
        #expect(run.start["source"] as? String == path)
        #expect(Tool.int(run.start["rate"]) == container.rate)
        #expect(Tool.int(run.start["channels"]) == channels)
        #expect(Tool.double(run.start["fps"]) == 30)
        #expect(Tool.int(run.start["hop"]) == hop)
        #expect(Tool.int(run.start["window"]) == window)
        #expect(run.start["bands_hz"] == nil && run.start["fft_size"] == nil)

        // end line: sox stats and the definition
        let end = run.end
        #expect(Tool.int(end["pos"]) == audio.frames)
        #expect(abs((Tool.double(end["duration"]) ?? -1) - Double(audio.frames) / Double(container.rate)) <= 0.000005 + 1e-12)
        #expect(Tool.int(end["dropped"]) == 0)
        let rms = Tool.doubles(end["rms_db"]), peak = Tool.doubles(end["peak_db"])
        try #require(rms.count == channels && peak.count == channels)
        let mine = audio.wholeFile()
        for c in 0..<channels {
            #expect(abs(rms[c] - sox.rms[c]) <= 0.0101, "ch \(c) rms \(rms[c]) vs sox \(sox.rms[c])")
            #expect(abs(peak[c] - sox.peak[c]) <= 0.0101, "ch \(c) peak \(peak[c]) vs sox \(sox.peak[c])")
            #expect(abs(rms[c] - mine.rms[c]) <= 0.0051, "ch \(c) rms \(rms[c]) vs \(mine.rms[c])")
            #expect(abs(peak[c] - mine.peak[c]) <= 0.0051, "ch \(c) peak \(peak[c]) vs \(mine.peak[c])")
        }
        // Channels really differ (the test would not notice swapped channels otherwise).
        if channels > 1 { #expect(Set(rms.map { ($0 * 10).rounded() }).count == channels) }

        Self.expectFrames(run.frames, match: audio, hop: hop, window: window)
    }

    @Test(arguments: [("ogg", 1), ("ogg", 2), ("ogg", 6), ("mp3", 1), ("mp3", 2)])
    func lossyFilesAgreeWithSoxWithinHalfADecibel(ext: String, channels: Int) throws {
        let dir = try TempDir()
        let audio = TestAudio.make(rate: 44100, channels: channels, seconds: 2, encoding: .s16, seed: 9)
        let wav = try audio.write(to: dir, name: "src")
        let path = dir.path("lossy.\(ext)")
        try Tool.sox([wav, path])
        let sox = try Tool.soxStats(path, channels: channels)
        let run = try Self.analyze([path])
        #expect(Tool.int(run.start["channels"]) == channels)
        #expect(Tool.int(run.start["rate"]) == 44100)
        let rms = Tool.doubles(run.end["rms_db"]), peak = Tool.doubles(run.end["peak_db"])
        try #require(rms.count == channels && peak.count == channels)
        for c in 0..<channels {
            #expect(abs(rms[c] - sox.rms[c]) <= 0.5, "\(ext) ch \(c) rms \(rms[c]) vs sox \(sox.rms[c])")
            #expect(abs(peak[c] - sox.peak[c]) <= 0.5, "\(ext) ch \(c) peak \(peak[c]) vs sox \(sox.peak[c])")
        }
        // Roughly the whole length (codecs pad by up to a few thousand samples).
        let pos = try #require(Tool.int(run.end["pos"]))
        #expect(abs(pos - audio.frames) < 5000)
        #expect(run.frames.count == (pos + 1469) / 1470)
    }

    @Test(arguments: [(TestAudio.Encoding.s16, 2), (.s24, 2), (.s32, 2), (.f32, 2), (.s16, 1), (.f32, 6), (.s24, 6)])
    func rawStdinGivesTheSameFramesAsTheWAV(encoding: TestAudio.Encoding, channels: Int) throws {
        let dir = try TempDir()
        let audio = TestAudio.make(rate: 48000, channels: channels, seconds: 0.8, encoding: encoding, seed: 3)
        let wav = try audio.write(to: dir, name: "same")
        let bands = channels == 2 ? ["--bands", "16"] : []
        let fromFile = try Self.analyze([wav] + bands)
        let fromStdin = try Self.analyze(["-", "--raw", audio.rawName, "--rate", "48000", "--channels", "\(channels)"] + bands,
                                         stdin: Data(audio.rawBytes))
        #expect(fromStdin.start["source"] as? String != nil)
        var startA = fromFile.start, startB = fromStdin.start
        startA["source"] = nil
        startB["source"] = nil
        #expect(NSDictionary(dictionary: startA) == NSDictionary(dictionary: startB))
        #expect((fromStdin.start["bands_hz"] as? [Any])?.count == (channels == 2 ? 16 : nil))
        #expect(fromFile.frames.count == fromStdin.frames.count)
        #expect(fromFile.frames.count == (audio.frames + 1599) / 1600)
        for (a, b) in zip(fromFile.frames, fromStdin.frames) {
            #expect(NSDictionary(dictionary: a) == NSDictionary(dictionary: b), "\(a) vs \(b)")
        }
        #expect(NSDictionary(dictionary: fromFile.end) == NSDictionary(dictionary: fromStdin.end))
        Self.expectFrames(fromStdin.frames, match: audio, hop: 1600, window: 2400)
    }

    @Test func optionEqualsValueFormAndOddFpsAndWindow() throws {
        let dir = try TempDir()
        let audio = TestAudio.make(rate: 44100, channels: 2, seconds: 1.1, encoding: .s16, seed: 5)
        let wav = try audio.write(to: dir, name: "opts")
        // hop = round(44100/7) = 6300, window = round(12.5 * 44.1) = 551 (rounded half up: 551.25)
        let run = try Self.analyze([wav, "--fps=7", "--window=12.5"])
        #expect(Tool.int(run.start["hop"]) == 6300)
        #expect(Tool.int(run.start["window"]) == 551)
        #expect(Tool.double(run.start["fps"]) == 7)
        Self.expectFrames(run.frames, match: audio, hop: 6300, window: 551)
        // The last partial hop carries its true pos.
        #expect(Tool.int(run.frames.last?["pos"]) == audio.frames)
        #expect(audio.frames % 6300 != 0)
        // Same with separate values and short options mixed in.
        let run2 = try Self.analyze([wav, "--fps", "7", "--window", "12.5"])
        #expect(run2.frames.count == run.frames.count)
        for (a, b) in zip(run.frames, run2.frames) { #expect(NSDictionary(dictionary: a) == NSDictionary(dictionary: b)) }
    }

    @Test func windowLongerThanTheFileAndOneFrameFiles() throws {
        let dir = try TempDir()
        // 100 frames: shorter than one hop (1600) and the window (2400).
        let audio = TestAudio.make(rate: 48000, channels: 2, seconds: 100.0 / 48000, encoding: .s16, seed: 2)
        #expect(audio.frames == 100)
        let run = try Self.analyze([try audio.write(to: dir, name: "short")])
        #expect(run.frames.count == 1)
        #expect(Tool.int(run.frames.first?["pos"]) == 100)
        Self.expectFrames(run.frames, match: audio, hop: 1600, window: 2400)
        // A single frame.
        let one = TestAudio(rate: 8000, channels: 1, encoding: .s16, doubles: [0.5])
        let r1 = try Self.analyze([try one.write(to: dir, name: "one")])
        #expect(r1.frames.count == 1)
        #expect(Tool.int(r1.frames[0]["pos"]) == 1)
        #expect(Tool.doubles(r1.frames[0]["rms_db"]) == [-6.02])
        #expect(Tool.doubles(r1.frames[0]["peak_db"]) == [-6.02])
        #expect(Tool.doubles(r1.end["rms_db"]) == [-6.02])
    }

    @Test func digitalSilenceReadsMinus160() throws {
        let dir = try TempDir()
        let audio = TestAudio.make(rate: 48000, channels: 2, seconds: 1, encoding: .s16, seed: 4, silenceFrom: 0.5)
        let run = try Self.analyze([try audio.write(to: dir, name: "sil"), "--bands", "8"])
        var silentFrames = 0
        for f in run.frames {
            let pos = try #require(Tool.int(f["pos"]))
            if pos >= 24000 + 2400 {
                #expect(Tool.doubles(f["rms_db"]) == [-160.0, -160.0])
                silentFrames += 1
            }
            if pos > 24000 + 1600 { #expect(Tool.doubles(f["peak_db"]) == [-160.0, -160.0]) }
            if pos >= 24000 + 2048 { #expect(Tool.doubles(f["bands_db"]) == Array(repeating: -160.0, count: 8)) }
            if pos <= 24000 {
                #expect(Tool.doubles(f["rms_db"]).allSatisfy { $0 > -60 })
                #expect(Tool.doubles(f["bands_db"]).count == 8)
            }
        }
        #expect(silentFrames >= 12)
        // An all-zero file: everything reads exactly -160.0.
        let zeros = TestAudio(rate: 8000, channels: 3, encoding: .f32, doubles: [Double](repeating: 0, count: 3 * 4000))
        let z = try Self.analyze([try zeros.write(to: dir, name: "zeros"), "--bands", "4"])
        for f in z.frames {
            #expect(Tool.doubles(f["rms_db"]) == [-160, -160, -160])
            #expect(Tool.doubles(f["peak_db"]) == [-160, -160, -160])
            #expect(Tool.doubles(f["bands_db"]) == [-160, -160, -160, -160])
        }
        #expect(Tool.doubles(z.end["rms_db"]) == [-160, -160, -160])
        #expect(Tool.doubles(z.end["peak_db"]) == [-160, -160, -160])
    }

    @Test func toneReadsItsLevelInItsBand() throws {
        // A sine on FFT bin 43 (48000/2048 * 43 = 1007.8125 Hz), amplitude 0.5: its band reads
        // 20*log10(0.5) - 3.01 = -9.03 (the 8 default bands from 50 Hz to 16 kHz are wide).
        let dir = try TempDir()
        let n = 48000
        let x = (0..<n).flatMap { i -> [Double] in
            let v = 0.5 * sin(2 * Double.pi * 1007.8125 * Double(i) / 48000)
            return [v, v]
        }
        let audio = TestAudio(rate: 48000, channels: 2, encoding: .f32, doubles: x)
        let run = try Self.analyze([try audio.write(to: dir, name: "tone"), "--bands", "8"])
        #expect(Tool.int(run.start["fft_size"]) == 2048)
        let edges = try #require(run.start["bands_hz"] as? [[Any]])
        #expect(edges.count == 8)
        let hz = edges.map { Tool.doubles($0) }
        let band = try #require(hz.firstIndex { $0[0] <= 1007.8125 && 1007.8125 < $0[1] })
        for i in 0..<hz.count {
            #expect(hz[i].count == 2 && hz[i][0] < hz[i][1])
            if i > 0 { #expect(hz[i][0] == hz[i - 1][1]) }
        }
        #expect(hz[0][0] >= 50 && hz[7][1] <= 16000 + 23.4375)
        var checked = 0
        for f in run.frames where Tool.int(f["pos"])! >= 2048 {
            let b = Tool.doubles(f["bands_db"])
            try #require(b.count == 8)
            #expect(abs(b[band] - (-9.03)) <= 0.02, "band \(band) reads \(b[band])")
            for (i, v) in b.enumerated() where i != band { #expect(v < -40, "band \(i) reads \(v)") }
            checked += 1
        }
        #expect(checked > 20)
    }

    @Test func durationStopsAfterThatMuchAudio() throws {
        let dir = try TempDir()
        let audio = TestAudio.make(rate: 48000, channels: 2, seconds: 1.5, encoding: .s16, seed: 6)
        let wav = try audio.write(to: dir, name: "dur")
        let run = try Self.analyze([wav, "--duration", "0.51"])
        #expect(Tool.int(run.end["pos"]) == 24480)
        #expect(Tool.double(run.end["duration"]) == 0.51)
        #expect(run.frames.count == 16)
        #expect(Tool.int(run.frames.last?["pos"]) == 24480)
        let prefix = TestAudio(rate: 48000, channels: 2, encoding: .s16, doubles: Array(audio.samples.prefix(24480 * 2)))
        Self.expectFrames(run.frames, match: prefix, hop: 1600, window: 2400)
    }

    @Test func outputFileAndAnsiSummary() throws {
        let dir = try TempDir()
        let audio = TestAudio.make(rate: 48000, channels: 2, seconds: 0.5, encoding: .s16, seed: 8)
        let wav = try audio.write(to: dir, name: "o")
        let out = dir.path("meter.ndjson")
        let r = try Tool.run(["analyze", wav, "-o", out, "-f", "ndjson"])
        #expect(r.status == 0)
        #expect(r.stdout.isEmpty)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let lines = try Tool.ndjson(Tool.Result(status: 0, stdout: Data(text.utf8), stderr: Data()))
        #expect(lines.count == 2 + 15)
        // Not a terminal and no --format: NDJSON.
        let plain = try Tool.run(["analyze", wav])
        #expect(plain.status == 0)
        #expect(try Tool.ndjson(plain).count == lines.count)
        // ANSI summary: one line per channel with the whole-file figures.
        let ansi = try Tool.run(["analyze", wav, "--format=ansi"])
        #expect(ansi.status == 0)
        let expected = audio.wholeFile()
        for c in 0..<2 {
            let label = c == 0 ? "L" : "R"
            let line = try #require(ansi.out.split(separator: "\n").first { $0.hasPrefix(label) })
            let rms = String(format: "%.1f", expected.rms[c]), pk = String(format: "%.1f", expected.peak[c])
            #expect(line.contains(rms) && line.contains(pk), "\(line) lacks \(rms) / \(pk)")
        }
        #expect(!ansi.out.contains("\u{1B}["), "NO_COLOR and no terminal: no escapes")
        // An output file that cannot be created: 73.
        Tool.expectError(try Tool.run(["analyze", wav, "-o", dir.path("no/such/dir/x.ndjson")]), 73)
    }
}
