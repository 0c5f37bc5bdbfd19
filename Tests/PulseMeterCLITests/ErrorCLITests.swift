import Foundation
import Testing
import TestSupport

/// Bad input and bad command lines: exit codes, one `pulsemeter: ` line on stderr, no partial
/// NDJSON on stdout; and the inputs that are odd but fine (truncated, header-only, partial frame).
@Suite struct ErrorCLITests {
    static func validWAV(_ dir: TempDir) throws -> String {
        try TestAudio.make(rate: 48000, channels: 2, seconds: 0.3, encoding: .s16, seed: 12).write(to: dir, name: "ok")
    }

    @Test func undecodableAndMissingInputs() throws {
        let dir = try TempDir()
        let pcm = TestAudio.make(rate: 8000, channels: 1, seconds: 0.1, encoding: .s16).rawBytes
        let cases: [(String, [UInt8]?, Int32)] = [
            ("empty.wav", [], 65),
            ("text.wav", Array("This is not audio.\nJust text.\n".utf8), 65),
            ("notes.txt", Array(String(repeating: "lorem ipsum ", count: 500).utf8), 65),
            ("zero-channels.wav", WAV.file(rate: 8000, channels: 1, bits: 16, float: false, payload: pcm, declaredChannels: 0), 65),
            ("1000-channels.wav", WAV.file(rate: 8000, channels: 1, bits: 16, float: false, payload: pcm, declaredChannels: 1000), 65),
            ("33-channels.wav", WAV.file(rate: 8000, channels: 1, bits: 16, float: false, payload: pcm, declaredChannels: 33), 65),
            ("rate-zero.wav", WAV.file(rate: 8000, channels: 1, bits: 16, float: false, payload: pcm, declaredRate: 0), 65),
            ("garbage-after-riff.wav", Array("RIFF\u{10}\0\0\0WAVEjunkjunkjunkjunk".utf8), 65),
        ]
        for (name, bytes, code) in cases {
            let path = try dir.write(bytes!, name)
            for command in ["analyze", "waveform"] {
                let r = try Tool.run([command, path])
                Tool.expectError(r, code, mentions: [path])
                #expect(r.stdout.isEmpty, "\(command) \(name) wrote to stdout")
            }
        }
        for command in ["analyze", "waveform"] {
            // A directory is a usage error saying to give --recursive (ManyFilesTableTests walks one).
            Tool.expectError(try Tool.run([command, dir.url.path]), 64, mentions: ["directory", "--recursive"])
            Tool.expectError(try Tool.run([command, dir.path("missing.wav")]), 66, mentions: ["missing.wav"])
        }
        if getuid() != 0 {
            let locked = try dir.write(TestAudio(rate: 8000, channels: 1, encoding: .s16, doubles: [0.1]).wavBytes, "locked.wav")
            chmod(locked, 0)
            Tool.expectError(try Tool.run(["analyze", locked]), 66)
        }
    }

    @Test func truncatedWAVIsAnalysedAsFarAsItGoes() throws {
        let dir = try TempDir()
        let audio = TestAudio.make(rate: 48000, channels: 2, seconds: 1, encoding: .s16, seed: 13)
        let raw = audio.rawBytes
        // The header claims 48000 frames; 30000 frames and 3 bytes made it to disk.
        let keep = 30000 * 4 + 3
        let bytes = WAV.file(rate: 48000, channels: 2, bits: 16, float: false, payload: Array(raw.prefix(keep)), dataSize: raw.count)
        let path = try dir.write(bytes, "truncated.wav")
        let run = try AnalyzeCLITests.analyze([path])
        #expect(Tool.int(run.end["pos"]) == 30000)
        #expect(run.result.err == "pulsemeter: warning: \(path) ends early: the header promises 48000 frames, found 30000\n")
        let prefix = TestAudio(rate: 48000, channels: 2, encoding: .s16, doubles: Array(audio.samples.prefix(60000)))
        AnalyzeCLITests.expectFrames(run.frames, match: prefix, hop: 1600, window: 2400)
        let whole = prefix.wholeFile()
        for (got, want) in zip(Tool.doubles(run.end["rms_db"]), whole.rms) { #expect(abs(got - want) <= 0.0051) }
        // waveform uses the true frame count.
        let w = try Tool.run(["waveform", path, "--bars", "7"])
        #expect(w.status == 0, "\(w.err)")
        #expect(w.err == run.result.err)
        let obj = try #require(try JSONSerialization.jsonObject(with: w.stdout) as? [String: Any])
        #expect(Tool.int(obj["frames"]) == 30000)
    }

    /// A header whose data chunk promises 3 s and holds nothing at all.
    @Test func headerPromisingDataThatIsNotThere() throws {
        let dir = try TempDir()
        let path = try dir.write(WAV.file(rate: 48000, channels: 2, bits: 16, float: false, payload: [], dataSize: 3 * 48000 * 4), "promise.wav")
        let r = try Tool.run(["analyze", path, "-f", "ndjson"])
        #expect(r.status == 0)
        #expect(r.err == "pulsemeter: warning: \(path) ends early: the header promises 144000 frames, found 0\n")
        let lines = try Tool.ndjson(r)
        #expect(lines.map { $0["type"] as? String } == ["start", "end"])
        #expect(Tool.int(lines.last?["pos"]) == 0)
    }

    /// A FLAC made by sox from `audio`, its bytes, and the frame count.
    static func flac(_ audio: TestAudio, _ dir: TempDir, name: String) throws -> [UInt8] {
        let path = try audio.write(to: dir, name: name, ext: "flac")
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// 4 KB of garbage halfway through a FLAC: the end line for what was analysed,
    /// then one line naming the file, the frame and libsndfile's reason; exit 65. Cut at the
    /// same place instead, the file merely ends early: a warning and exit 0.
    @Test func flacDamagedHalfwayOrCutShort() throws {
        let dir = try TempDir()
        let audio = TestAudio.make(rate: 48000, channels: 2, seconds: 3, encoding: .s16, seed: 21)
        let bytes = try Self.flac(audio, dir, name: "src")
        let half = bytes.count / 2
        var garbage = [UInt8](repeating: 0, count: 4096)
        var x: UInt32 = 2463534242
        for i in garbage.indices { x ^= x << 13; x ^= x >> 17; x ^= x << 5; garbage[i] = UInt8(truncatingIfNeeded: x) }
        let damaged = try dir.write(Array(bytes[..<half]) + garbage + Array(bytes[half...]), "damaged.flac")
        let r = try Tool.run(["analyze", damaged, "-f", "ndjson"])
        Tool.expectError(r, 65, mentions: [damaged, "damaged at frame", "FLAC decoder lost sync"])
        let lines = try Tool.ndjson(r)
        let end = try #require(lines.last)
        #expect(end["type"] as? String == "end")
        let pos = try #require(Tool.int(end["pos"]))
        #expect(pos > 0 && pos < 144000, "analysed \(pos) frames")
        #expect(r.err.contains("at frame \(pos) ("), "the position in the message is where the end line stops: \(r.err)")
        let prefix = TestAudio(rate: 48000, channels: 2, encoding: .s16, doubles: Array(audio.samples.prefix(pos * 2)))
        for (got, want) in zip(Tool.doubles(end["rms_db"]), prefix.wholeFile().rms) { #expect(abs(got - want) <= 0.0051) }
        let w = try Tool.run(["waveform", damaged])
        Tool.expectError(w, 65, mentions: [damaged, "damaged at frame \(pos) "])
        // Pixels of a length not stated up front: the document of the frames before the damage,
        // whole, as the message says (its end line, for waveform's pixels).
        let peaks = try Tool.run(["waveform", damaged, "-f", "peaks", "--samples-per-pixel", "480"])
        Tool.expectError(peaks, 65, mentions: [damaged, "damaged at frame \(pos) ", "the results cover the \(pos) frames before"])
        let document = try #require(try JSONSerialization.jsonObject(with: peaks.stdout) as? [String: Any])
        #expect(Tool.int(document["length"]) == (pos + 479) / 480)
        #expect(abs((document["duration"] as? Double ?? 0) - Double(pos) / 48000) < 1e-6)

        let cut = try dir.write(Array(bytes[..<half]), "cut.flac")
        let c = try Tool.run(["analyze", cut, "-f", "ndjson"])
        #expect(c.status == 0)
        let found = try #require(Tool.int(try Tool.ndjson(c).last?["pos"]))
        #expect(found > 0 && found < 144000)
        #expect(c.err == "pulsemeter: warning: \(cut) ends early: the header promises 144000 frames, found \(found)\n")
        let complete = try Tool.run(["analyze", try dir.write(bytes, "whole.flac"), "-f", "ndjson"])
        #expect(complete.status == 0 && complete.stderr.isEmpty, "\(complete.err)")
        #expect(Tool.int(try Tool.ndjson(complete).last?["pos"]) == 144000)
    }

    /// A copy or download that stopped inside the header: said so, not a stray errno's text.
    @Test func aWavCutInsideItsHeaderSaysSo() throws {
        let dir = try TempDir()
        let wav = try TestAudio.make(rate: 8000, channels: 1, seconds: 0.2, encoding: .s16, seed: 5).write(to: dir, name: "a")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: wav))
        for cut in [12, 20, 30, 40] {
            let name = "cut\(cut).wav"
            let path = try dir.write(Array(bytes.prefix(cut)), name)
            for command in ["analyze", "waveform"] {
                let r = try Tool.run([command, path])
                Tool.expectError(r, 65, mentions: ["\(name) is not decodable audio (the file ends inside its WAV header, after \(cut) bytes, before any audio: it was cut short)"])
                #expect(!r.err.contains("ioctl"), "\(r.err)")
            }
        }
    }

    @Test func headerOnlyWAVHasStartAndEndOnly() throws {
        let dir = try TempDir()
        for (bits, float, channels) in [(16, false, 2), (32, true, 1), (24, false, 6)] {
            let path = try dir.write(WAV.file(rate: 44100, channels: channels, bits: bits, float: float, payload: []), "empty-\(bits).wav")
            let r = try Tool.run(["analyze", path, "-f", "ndjson"])
            #expect(r.status == 0, "\(r.err)")
            #expect(r.stderr.isEmpty)
            let lines = try Tool.ndjson(r)
            #expect(lines.map { $0["type"] as? String } == ["start", "end"])
            let end = try #require(lines.last)
            #expect(Tool.int(end["pos"]) == 0)
            #expect(Tool.double(end["duration"]) == 0)
            #expect(Tool.doubles(end["rms_db"]) == Array(repeating: -160.0, count: channels))
            #expect(Tool.doubles(end["peak_db"]) == Array(repeating: -160.0, count: channels))
            #expect(Tool.int(lines[0]["channels"]) == channels)
            #expect(Tool.int(lines[0]["rate"]) == 44100)
        }
    }

    @Test func trailingPartialFrameOnStdin() throws {
        let dir = try TempDir()
        let audio = TestAudio.make(rate: 48000, channels: 2, seconds: 0.25, encoding: .s16, seed: 14)
        let wav = try audio.write(to: dir, name: "whole")
        let reference = try AnalyzeCLITests.analyze([wav])
        for extra in [1, 3] {
            let r = try Tool.run(["analyze", "-", "--raw", "s16le", "-r", "48000", "-c", "2", "-f", "ndjson"],
                                stdin: Data(audio.rawBytes + Array(repeating: 0x55, count: extra)))
            #expect(r.status == 0)
            // One warning line naming the leftover bytes.
            #expect(r.err.hasPrefix("pulsemeter: "))
            #expect(r.err.filter { $0 == "\n" }.count == 1 && r.err.hasSuffix("\n"))
            #expect(r.err.contains("warning") && r.err.contains("\(extra) bytes"), "\(r.err)")
            let lines = try Tool.ndjson(r)
            let frames = lines.filter { $0["type"] as? String == "frame" }
            #expect(frames.count == reference.frames.count)
            // Every frame on the hop grid equals the file's; the last, partial hop too, except
            // its rms: on stdin the stream's length is not known in advance, so that window
            // starts at the 256-sample block at or before pos - window (docs/architecture.md, Levels).
            for (a, b) in zip(frames.dropLast(), reference.frames.dropLast()) { #expect(NSDictionary(dictionary: a) == NSDictionary(dictionary: b)) }
            let last = try #require(frames.last), fileLast = try #require(reference.frames.last)
            #expect(Tool.int(last["pos"]) == audio.frames && Tool.int(fileLast["pos"]) == audio.frames)
            #expect(Tool.doubles(last["peak_db"]) == Tool.doubles(fileLast["peak_db"]))
            let lo = (audio.frames - 2400) / 256 * 256
            for c in 0..<2 {
                var ss = 0.0
                for i in lo..<audio.frames { ss += audio.samples[i * 2 + c] * audio.samples[i * 2 + c] }
                let want = 10 * log10(ss / Double(audio.frames - lo))
                #expect(abs(Tool.doubles(last["rms_db"])[c] - want) <= 0.0051, "channel \(c)")
            }
            #expect(Tool.int(lines.last?["pos"]) == audio.frames)
        }
        // Less than one frame in all: no frames, still a clean start/end and the warning.
        let tiny = try Tool.run(["analyze", "-", "--raw", "s24le", "--rate", "8000", "--channels", "2", "-f", "ndjson"], stdin: Data([1, 2, 3, 4]))
        #expect(tiny.status == 0)
        #expect(try Tool.ndjson(tiny).map { $0["type"] as? String } == ["start", "end"])
        #expect(tiny.err.contains("4 bytes"))
        // Empty stdin: start and end at pos 0, no warning.
        let empty = try Tool.run(["analyze", "-", "--raw", "f32le", "--rate", "8000", "--channels", "1", "-f", "ndjson"], stdin: Data())
        #expect(empty.status == 0)
        #expect(empty.stderr.isEmpty)
        let lines = try Tool.ndjson(empty)
        #expect(lines.map { $0["type"] as? String } == ["start", "end"])
        #expect(Tool.int(lines.last?["pos"]) == 0)
        #expect(lines.first?["source"] as? String == "stdin")
    }

    @Test func badCommandLines() throws {
        let dir = try TempDir()
        let wav = try Self.validWAV(dir)
        let raw = ["analyze", "-", "--raw"]
        let cases: [([String], [String])] = [
            (["analyze", wav, "--fft-size", "1000"], ["--fft-size", "1000", "power of two"]),
            (["analyze", wav, "--fft-size", "1000", "--bands", "8"], ["--fft-size", "1000", "power of two"]),
            (["analyze", wav, "--fft-size=1000"], ["--fft-size", "power of two"]),
            (["analyze", wav, "--fft-size", "32", "--bands", "4"], ["--fft-size", "32"]),
            (["analyze", wav, "--fft-size", "big"], ["--fft-size", "big"]),
            (["analyze", wav, "--fps", "0"], ["--fps", "0"]),
            (["analyze", wav, "--fps=abc"], ["--fps", "abc"]),
            (["analyze", wav, "--fps", "nan"], ["--fps", "nan"]),
            (["analyze", wav, "--fps", "100000"], ["--fps"]),
            // Values whose derived sample counts would overflow (found by scripts/fuzz).
            (["analyze", wav, "--fps", "1e-300"], ["--fps"]),
            (["analyze", wav, "--duration", "66666666666666666666666666666661.5"], ["--duration"]),
            (["analyze", wav, "--duration", "1e300"], ["--duration"]),
            (["analyze", wav, "--bands", "4", "--fmin", "5e-324"], ["--fmin"]),
            (["analyze", wav, "--window", "-5"], ["--window", "-5"]),
            (["analyze", wav, "--window", "0"], ["--window", "0"]),
            (["analyze", wav, "--bands", "2000"], ["--bands", "2000"]),
            (["analyze", wav, "--bands", "-1"], ["--bands", "-1"]),
            (["analyze", wav, "--bands", "500", "--fft-size", "256"], ["--bands 500"]),
            (["analyze", wav, "--bands", "4", "--fmin", "30000"], ["--fmin"]),
            (["analyze", wav, "--bands", "4", "--fmin", "0"], ["--fmin"]),
            (["analyze", wav, "--bands", "4", "--fmin", "500", "--fmax", "400"], ["--fmax"]),
            (["analyze", wav, "--format", "xml"], ["--format", "xml", "ndjson"]),
            (["analyze", wav, "-f", "json"], ["--format", "json"]),
            (["analyze", wav, "--bogus"], ["--bogus"]),
            (["analyze", wav, "--bogus=1"], ["--bogus"]),
            (["analyze", wav, "--fps"], ["--fps", "needs a value"]),
            (["analyze", wav, "--duration", "-1"], ["--duration", "-1"]),
            (["analyze", wav, "--duration", "soon"], ["--duration", "soon"]),
            (["analyze", wav, "--help=yes"], ["--help"]),
            (["analyze"], ["FILE"]),
            (["play", wav, "extra.wav"], ["extra.wav"]),  // analyze and waveform take many files
            (["analyze", wav, "-", "--raw", "s16le"], ["stdin"]),
            (["analyze", wav, "--raw", "s16le"], ["--raw"]),
            (["analyze", wav, "--rate", "44100"], ["--rate"]),
            (["analyze", wav, "--channels", "2"], ["--channels"]),
            (["analyze", "-"], ["--raw"]),
            (raw + ["s8", "--rate", "8000", "--channels", "1"], ["--raw", "s8", "s16le"]),
            (raw + ["s16le"], ["--rate", "--channels"]),
            (raw + ["s16le", "--rate", "8000"], ["--channels"]),
            (raw + ["s16le", "--rate", "0", "--channels", "2"], ["--rate", "0"]),
            (raw + ["s16le", "--rate", "8000", "--channels", "33"], ["--channels", "33"]),
            (raw + ["s16le", "--rate", "8000", "--channels", "0"], ["--channels", "0"]),
            (raw + ["s16le", "-r", "8000", "-c", "x"], ["--channels", "x"]),
            (["frobnicate"], ["frobnicate"]),
            (["waveform"], ["FILE"]),
            (["waveform", wav, "--bars", "0"], ["--bars", "0"]),
            (["waveform", wav, "--bars=-3"], ["--bars", "-3"]),
            (["waveform", wav, "-n", "many"], ["--bars", "many"]),
            (["waveform", wav, "--floor", "3"], ["--floor", "3"]),
            (["waveform", wav, "--floor", "-200"], ["--floor", "-200"]),
            (["waveform", wav, "--format", "png"], ["--format", "png"]),
            (["waveform", wav, "--color", "red\"/><script>"], ["--color"]),
            (["waveform", wav, "--played", "2"], ["--played", "2"]),
            (["waveform", wav, "--fps", "10"], ["--fps"]),
            // Recording containers and --bitrate: refused before connecting.
            (["record", dir.path("x.xyz")], [".xyz", "wav", "flac", "opus"]),
            (["record", dir.path("x.ogg"), "--bitrate", "64"], ["Vorbis", "bit rate"]),
            (["record", dir.path("x.wav"), "--bitrate", "64"], [".wav", "bit rate"]),
            (["record", dir.path("x.opus"), "--bitrate", "1000"], ["Opus", "12 to 512", "1000"]),
            (["record", dir.path("x.mp3"), "--bitrate", "8"], ["MP3", "32 to 320", "8"]),
            (["record", dir.path("x.m4a"), "-r", "12000", "-c", "1", "--bitrate", "100"], ["AAC", "8 to 72", "100"]),
            (["record", dir.path("x.m4a"), "-r", "10000"], ["AAC", "10000", "12000"]),
            (["record", dir.path("x.wav"), "--bitrate", "0"], ["--bitrate", "0"]),
            (["monitor", "--bitrate", "32"], ["--bitrate", "--record"]),
            // A value with a newline still gives one stderr line.
            (["analyze", wav, "--format", "nd\njson"], ["--format"]),
            (["analyze", wav, "--bogus\nline"], ["--bogus"]),
        ]
        for (args, needles) in cases {
            let r = try Tool.run(args, stdin: Data([0, 0, 0, 0]))
            Tool.expectError(r, 64, mentions: needles)
            #expect(r.stdout.isEmpty, "\(args): wrote to stdout")
        }
    }

    @Test func nonFiniteFloatSamplesNeverReachTheOutput() throws {
        // NaN and infinities in float input (raw and WAV): every number printed is finite.
        let dir = try TempDir()
        var x: [Double] = []
        for i in 0..<12000 {
            switch i % 97 {
            case 0: x.append(.nan)
            case 1: x.append(.infinity)
            case 2: x.append(-.infinity)
            case 3: x.append(1e30)
            default: x.append(sin(Double(i)) * 0.3)
            }
        }
        let audio = TestAudio(rate: 8000, channels: 2, encoding: .f32, doubles: x)
        let wav = try audio.write(to: dir, name: "nan")
        let runs = [
            try Tool.run(["analyze", wav, "--bands", "8", "-f", "ndjson"]),
            try Tool.run(["analyze", "-", "--raw", "f32le", "-r", "8000", "-c", "2", "--bands", "8", "-f", "ndjson"], stdin: Data(audio.rawBytes)),
        ]
        for r in runs {
            #expect(r.status == 0, "\(r.err)")
            let lines = try Tool.ndjson(r)
            #expect(lines.count == 2 + 23)
            for line in lines {
                for key in ["rms_db", "peak_db", "bands_db"] {
                    #expect(Tool.doubles(line[key]).allSatisfy { $0.isFinite && $0 >= -160 })
                }
            }
        }
        let w = try Tool.run(["waveform", wav, "--bars", "9"])
        #expect(w.status == 0)
        let obj = try #require(try JSONSerialization.jsonObject(with: w.stdout) as? [String: Any])
        #expect(Tool.allFinite(obj))
        #expect(Tool.doubles(obj["levels"]).allSatisfy { $0 >= 0 && $0 <= 1 })
    }

    @Test func helpAndVersion() throws {
        for args in [["--help"], ["-h"], ["help"]] {
            let r = try Tool.run(args)
            #expect(r.status == 0)
            #expect(r.stderr.isEmpty)
            for word in ["usage", "analyze", "waveform", "monitor", "record", "--version"] { #expect(r.out.contains(word), "\(args) lacks \(word)") }
        }
        let v = try Tool.run(["--version"])
        #expect(v.status == 0 && v.stderr.isEmpty)
        #expect(v.out.range(of: "^pulsemeter [0-9]+\\.[0-9]+\\.[0-9]+\n$", options: .regularExpression) != nil, "\(v.out)")
        #expect(try Tool.run(["-V"]).out == v.out)
        for (args, words) in [(["analyze", "--help"], ["--raw", "--fps", "--window", "--bands", "--fft-size", "--duration"]),
                              (["analyze", "-h"], ["--raw"]),
                              (["help", "analyze"], ["--raw"]),
                              (["waveform", "--help"], ["--bars", "--floor", "--format", "svg"]),
                              (["help", "waveform"], ["--bars"])] {
            let r = try Tool.run(args)
            #expect(r.status == 0, "\(args)")
            #expect(r.stderr.isEmpty)
            #expect(r.out.hasPrefix("usage"), "\(args)")
            for w in words { #expect(r.out.contains(w), "\(args) lacks \(w)") }
        }
    }
}
