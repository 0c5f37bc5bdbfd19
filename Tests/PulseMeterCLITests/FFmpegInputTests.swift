import Foundation
import Testing
import TestSupport

/// What libsndfile cannot read (m4a/AAC, mkv, webm) is decoded through ffmpeg for analyze and
/// waveform: the same numbers as a WAV of the same samples (the WAV decoded by ffmpeg from the
/// same file, as 32-bit float: exactly the samples ffmpeg hands pulsemeter). Without ffmpeg the
/// error says so and shows the pipe; ffmpeg failing is a decode error with its last line.
@Suite struct FFmpegInputTests {
    static func ffmpeg(_ args: [String]) throws {
        let ffmpeg = try #require(Tool.which("ffmpeg"), "ffmpeg is not installed (scripts/setup installs it)")
        let r = try Tool.exec(ffmpeg, ["-nostdin", "-v", "error", "-y"] + args)
        #expect(r.status == 0, "ffmpeg \(args.joined(separator: " ")): \(r.err)")
    }

    /// A 2 s stereo test signal encoded as `ext` with `codec`, and the WAV ffmpeg decodes from it.
    static func encoded(_ dir: TempDir, _ name: String, codec: [String]) throws -> (file: String, wav: String, source: TestAudio) {
        let audio = TestAudio.make(rate: 48000, channels: 2, seconds: 2, encoding: .s16, seed: 41)
        let original = try audio.write(to: dir, name: name + "-original")
        let file = dir.path(name)
        try ffmpeg(["-i", original] + codec + [file])
        let wav = dir.path(name + ".decoded.wav")
        try ffmpeg(["-i", file, "-c:a", "pcm_f32le", wav])
        return (file, wav, audio)
    }

    /// The NDJSON lines, the start line without its `source` (the file name).
    static func lines(_ args: [String]) throws -> [String] {
        let r = try Tool.run(["analyze"] + args + ["-f", "ndjson"])
        #expect(r.status == 0, "analyze \(args): \(r.err)")
        _ = try Tool.ndjson(r)
        return r.out.split(separator: "\n").map { String($0).replacing(/"source":"[^"]*",/, with: "") }
    }

    /// The lines with the rms of the last frame left out (and what comes from the same window:
    /// the correlation and balance of two channels): through ffmpeg the stream's length is
    /// not known in advance, so the window of a last, partial hop reaches back to its 256-sample
    /// block (docs/architecture.md, Levels); every other value is the WAV's, bit for bit.
    static func comparable(_ lines: [String]) -> [String] {
        var l = lines
        if l.count >= 2, l[l.count - 2].contains("\"type\":\"frame\"") {
            l[l.count - 2] = l[l.count - 2].replacing(/"rms_db":\[[^\]]*\]/, with: "")
                .replacing(/,"correlation":[-0-9.]+,"balance_db":[-0-9.]+/, with: "")
        }
        return l
    }

    @Test(arguments: [
        ("voice.m4a", ["-c:a", "aac", "-b:a", "128k"]),
        ("talk.mkv", ["-c:a", "aac", "-b:a", "96k"]),
        ("clip.webm", ["-c:a", "libopus", "-b:a", "96k"]),
    ])
    func sameNumbersAsTheWAVOfTheSameSamples(name: String, codec: [String]) throws {
        let dir = try TempDir()
        let (file, wav, source) = try Self.encoded(dir, name, codec: codec)
        for extra in [[], ["--bands", "16", "--fps", "50"]] {
            let viaFFmpeg = try Self.lines([file] + extra), viaWAV = try Self.lines([wav] + extra)
            #expect(viaFFmpeg.count > 50)
            #expect(Self.comparable(viaFFmpeg) == Self.comparable(viaWAV), "\(name) \(extra): analyze differs from the WAV of the same samples")
        }
        for format in ["json", "ansi"] {
            let w1 = try Tool.run(["waveform", file, "--bars", "37", "--format", format])
            let w2 = try Tool.run(["waveform", wav, "--bars", "37", "--format", format])
            #expect(w1.status == 0 && w2.status == 0, "\(w1.err)\(w2.err)")
            #expect(w1.out == w2.out && !w1.out.isEmpty, "\(name): waveform differs from the WAV's")
        }
        #expect(source.frames == 96000)
    }

    /// Within codec tolerance of what was encoded: ffmpeg's sine source (amplitude 1/8, 440 Hz)
    /// reads 20*log10(1/8) - 3.01 = -21.07 dB RMS. (A broadband signal would not do: AAC drops
    /// what lies above about 16 kHz.)
    @Test(arguments: [("sine.m4a", "aac"), ("sine.mkv", "aac"), ("sine.webm", "libopus")])
    func withinCodecToleranceOfAnAnalyticSine(name: String, codec: String) throws {
        let dir = try TempDir()
        let file = dir.path(name)
        try Self.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3", "-c:a", codec, "-b:a", "128k", file])
        let run = try AnalyzeCLITests.analyze([file])
        let expected = 20 * log10(1.0 / 8) - 3.0103
        for got in Tool.doubles(run.end["rms_db"]) {
            #expect(abs(got - expected) < 0.1, "\(name): whole-file RMS \(got) against \(expected)")
        }
        let pos = try #require(Tool.int(run.end["pos"]))
        #expect(abs(pos - 3 * 48000) <= 2048, "\(name): \(pos) frames for 3 s at 48 kHz")
    }

    @Test func namesThatLookLikeOptionsOrProtocols() throws {
        let dir = try TempDir()
        let (file, wav, _) = try Self.encoded(dir, "voice.m4a", codec: ["-c:a", "aac"])
        try FileManager.default.moveItem(atPath: file, toPath: dir.path("-i:pipe.m4a"))
        let r = try Tool.exec("/bin/sh", ["-c", "cd '\(dir.url.path)' && '\(Tool.binary)' analyze -f ndjson -- -i:pipe.m4a"])
        #expect(r.status == 0, "\(r.err)")
        let wavLines = try Self.lines([wav])
        #expect(Self.comparable(r.out.split(separator: "\n").map { String($0).replacing(/"source":"[^"]*",/, with: "") }) == Self.comparable(wavLines))
    }

    /// A directory for PATH holding only `tools` (links to the real ones, or scripts).
    static func path(_ dir: TempDir, links: [String], scripts: [String: String] = [:]) throws -> String {
        let bin = dir.path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for tool in links {
            try FileManager.default.createSymbolicLink(atPath: bin + "/" + tool, withDestinationPath: try #require(Tool.which(tool)))
        }
        for (tool, text) in scripts {
            try Data(text.utf8).write(to: URL(fileURLWithPath: bin + "/" + tool))
            chmod(bin + "/" + tool, 0o755)
        }
        return bin
    }

    @Test func withoutFFmpegTheErrorShowsThePipe() throws {
        let dir = try TempDir()
        let (file, _, _) = try Self.encoded(dir, "voice.m4a", codec: ["-c:a", "aac"])
        let env = ["PATH": try Self.path(dir, links: [])]
        for command in ["analyze", "waveform"] {
            let r = try Tool.exec(Tool.binary, [command, file], environment: env)
            Tool.expectError(r, 65, mentions: [file, "ffmpeg", "not on PATH",
                                               "ffmpeg -i \(file) -f f32le -ac 2 -ar 48000 - | pulsemeter \(command) - --raw f32le -r 48000 -c 2"])
        }
        let play = try Tool.exec(Tool.binary, ["play", file, "-f", "ndjson"], environment: env)
        Tool.expectError(play, 65, mentions: ["not on PATH", "ffmpeg -i \(file) voice.wav && pulsemeter play voice.wav"])
    }

    @Test func ffmpegFailingIsADecodeErrorWithItsLastLine() throws {
        let dir = try TempDir()
        let (file, _, _) = try Self.encoded(dir, "voice.m4a", codec: ["-c:a", "aac"])
        // The real ffprobe; an ffmpeg that decodes 1000 frames of silence, then fails.
        let fake = """
        #!/bin/sh
        head -c 8000 /dev/zero
        echo "[aac @ 0x1] a first complaint" >&2
        echo "Error while decoding stream #0:0: Invalid data found when processing input" >&2
        exit 69
        """
        let env = ["PATH": try Self.path(dir, links: ["ffprobe", "head"], scripts: ["ffmpeg": fake]) + ":/usr/bin:/bin"]
        for command in ["analyze", "waveform"] {
            let r = try Tool.exec(Tool.binary, [command, file, "-f", command == "analyze" ? "ndjson" : "json"], environment: env)
            Tool.expectError(r, 65)
            #expect(r.err == "pulsemeter: ffmpeg could not decode \(file): Error while decoding stream #0:0: Invalid data found when processing input\n")
        }
        // Not audio at all: neither decoder reads it.
        let text = try dir.write(Array("just text\n".utf8), "notes.m4a")
        Tool.expectError(try Tool.run(["analyze", text]), 65, mentions: ["\(text) is not audio that libsndfile or ffmpeg can decode"])
    }

    /// `--duration` stops reading while ffmpeg still has most of the file to write: the run
    /// ends with its end line at the duration (ffmpeg, blocked on the full pipe, is ended, not
    /// waited for; it used to hang there for good). A run still going after 60 s is killed,
    /// so the test fails rather than hangs.
    @Test func aDurationShorterThanTheFileEndsTheDecoder() throws {
        let dir = try TempDir()
        let (file, _, _) = try Self.encoded(dir, "long.m4a", codec: ["-c:a", "aac"])
        let out = dir.path("out.ndjson")
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Tool.binary)
        p.arguments = ["analyze", file, "--duration", "0.25", "-f", "ndjson"]
        p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        p.standardError = FileHandle.nullDevice
        try p.run()
        let ended = Wait.until(timeout: 60, interval: 0.01) { !p.isRunning }
        if !ended { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        #expect(ended, "analyze --duration 0.25 of a 2 s m4a still ran after 60 s")
        #expect(p.terminationStatus == 0)
        let end = try #require(try Tool.ndjson(Tool.Result(status: 0, stdout: Data(contentsOf: URL(fileURLWithPath: out)), stderr: Data())).last)
        #expect(end["type"] as? String == "end" && end["pos"] as? Int == 12000 && end["complete"] as? Bool == true)
    }

    @Test func waveformReadsRawPCMFromStdin() throws {
        let dir = try TempDir()
        for encoding in [TestAudio.Encoding.s16, .f32] {
            let audio = TestAudio.make(rate: 16000, channels: 3, seconds: 1.3, encoding: encoding, seed: 43)
            let wav = try audio.write(to: dir, name: "in-\(encoding)")
            for bars in [1, 7, 64] {
                let fromWAV = try Tool.run(["waveform", wav, "--bars", String(bars)])
                let fromStdin = try Tool.run(["waveform", "-", "--raw", audio.rawName, "-r", "16000", "-c", "3", "--bars", String(bars)],
                                             stdin: Data(audio.rawBytes))
                #expect(fromStdin.status == 0 && fromStdin.err.isEmpty, "\(fromStdin.err)")
                #expect(fromStdin.out == fromWAV.out && !fromWAV.out.isEmpty, "\(encoding) \(bars) bars")
            }
        }
        // A partial last frame is dropped with a warning, as analyze does.
        let audio = TestAudio.make(rate: 8000, channels: 2, seconds: 0.5, encoding: .s16, seed: 44)
        let r = try Tool.run(["waveform", "-", "--raw", "s16le", "-r", "8000", "-c", "2", "--bars", "5"], stdin: Data(audio.rawBytes + [1, 2, 3]))
        #expect(r.status == 0)
        #expect(r.err == "pulsemeter: warning: stdin ended inside a frame: ignored the last 3 bytes (a frame is 4 bytes)\n")
        #expect(r.out == (try Tool.run(["waveform", try audio.write(to: dir, name: "p"), "--bars", "5"])).out)
        // The layout is required, and refused for a file.
        Tool.expectError(try Tool.run(["waveform", "-"]), 64, mentions: ["--raw"])
        Tool.expectError(try Tool.run(["waveform", "-", "--raw", "s16le"]), 64, mentions: ["--rate", "--channels"])
        Tool.expectError(try Tool.run(["waveform", try audio.write(to: dir, name: "q"), "--raw", "s16le"]), 64, mentions: ["stdin only"])
    }
}
