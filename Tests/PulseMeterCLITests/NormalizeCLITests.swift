import Foundation
import Glibc
import Testing
import TestSupport

/// `pulsemeter normalize`: outputs at the target by pulsemeter's own meter and by ffmpeg's
/// `ebur128` (run here), the true-peak cap and its stderr line, the limiter (ffmpeg's
/// `ebur128=peak=true` too), the static gain sample for sample, album mode, and the files:
/// an existing output kept (73), nothing left beside it, nor after a signal. (A full disk:
/// LiveTests' DiskFullTests, where the tmpfs helper is.)
@Suite struct NormalizeCLITests {
    static let ffmpeg = Tool.which("ffmpeg")

    /// Speech-like (noise in syllable bursts), music-like (a chord with a slow swell) and
    /// noise, a few seconds each at 48 kHz stereo, faded in (an abrupt onset rings in any
    /// true-peak oversampler), as 16-bit WAV made by sox, then `ext` made by ffmpeg.
    static func signal(_ kind: String, _ ext: String, in dir: TempDir, bits: Int = 16) throws -> String {
        let synth: [String] = switch kind {
        case "speech": ["synth", "3", "pinknoise", "vol", "0.3", "synth", "3", "sine", "amod", "4", "lowpass", "3000"]
        case "music": ["synth", "3", "sine", "220", "sine", "277", "sine", "330", "vol", "0.2", "tremolo", "0.5", "40"]
        default: ["synth", "3", "pinknoise", "vol", "0.1"]
        }
        let wav = dir.path("\(kind)-src\(bits).wav")
        if !FileManager.default.fileExists(atPath: wav) {
            let r = try Tool.sox(["-R", "-q", "-n", "-r", "48000", "-c", "2", "-b", String(bits), wav] + synth + ["fade", "0.1", "-0", "0.1"])
            #expect(r.status == 0, "sox: \(r.err)")
        }
        guard ext != "wav" else { return wav }
        let out = dir.path("\(kind)-in.\(ext)")
        var codec: [String] = []
        if ext == "mp3" { codec = ["-c:a", "libmp3lame", "-b:a", "192k"] }
        if ext == "m4a" { codec = ["-c:a", "aac", "-b:a", "192k"] }
        if ext == "ogg" { codec = ["-c:a", "libvorbis", "-q:a", "6"] }
        let r = try Tool.exec(try #require(ffmpeg, "ffmpeg is not installed (scripts/setup installs it)"),
                              ["-nostdin", "-v", "error", "-y", "-i", wav] + codec + [out])
        #expect(r.status == 0, "ffmpeg \(ext): \(r.err)")
        return out
    }

    /// ffmpeg's `ebur128=peak=true` summary: integrated loudness and true peak (dBFS).
    static func ebur128(_ path: String) throws -> (i: Double, tp: Double) {
        let r = try Tool.exec(try #require(ffmpeg), ["-nostdin", "-hide_banner", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-"])
        func value(_ label: String) -> Double? {
            guard let range = r.err.range(of: label, options: .backwards) else { return nil }
            return Double(r.err[range.upperBound...].split(separator: " ", omittingEmptySubsequences: true).first ?? "")
        }
        return (try #require(value("I:"), "ffmpeg ebur128: \(r.err.suffix(400))"), try #require(value("Peak:")))
    }

    /// pulsemeter's own integrated loudness and largest true peak of a file.
    static func measured(_ path: String) throws -> (i: Double, tp: Double) {
        let r = try Tool.run(["analyze", path, "--loudness", "-f", "ndjson"])
        let end = try #require(try Tool.ndjson(r).last)
        return (try #require(Tool.double(end["lufs_i"])), Tool.doubles(end["true_peak_db"]).max()!)
    }

    static func normalize(_ args: [String]) throws -> (status: Int32, end: [String: Any]?, err: String) {
        let r = try Tool.run(["normalize"] + args)
        let end = r.status == 0 ? try Tool.ndjson(r).last : nil
        return (r.status, end, "\(r.err)")
    }

    @Test(arguments: [("speech", "wav", -16.0), ("music", "flac", -23.0), ("noise", "mp3", -14.0),
                      ("speech", "ogg", -23.0), ("music", "m4a", -16.0), ("noise", "wav", -23.0)])
    func outputsReachTheTarget(_ kind: String, _ ext: String, _ target: Double) throws {
        let dir = try TempDir()
        let input = try Self.signal(kind, ext, in: dir, bits: ext == "wav" && kind == "noise" ? 24 : 16)
        let output = dir.path("out.\(ext)")
        let r = try Self.normalize([input, "-o", output, "--target", String(target), "--max-true-peak", "0"])
        #expect(r.status == 0, "normalize: \(r.err)")
        #expect(r.end?["limited_by"] == nil, "\(kind).\(ext): \(r.err)")
        // Lossy codecs change loudness by a few hundredths; the files are decoded as they are.
        let ours = try Self.measured(output), ffmpeg = try Self.ebur128(output)
        #expect(abs(ours.i - target) <= 0.1, "\(kind).\(ext) to \(target): pulsemeter reads \(ours.i)")
        #expect(abs(ffmpeg.i - target) <= 0.1, "\(kind).\(ext) to \(target): ffmpeg reads \(ffmpeg.i)")
        if ext == "wav" {
            let bits = try Tool.exec("/usr/bin/soxi", ["-b", output]).out.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(bits == (kind == "noise" ? "24" : "16"), "the sample format kept")
        }
    }

    @Test func theTruePeakCapsTheGainAndSaysSo() throws {
        let dir = try TempDir()
        let input = try Self.signal("music", "wav", in: dir)
        let before = try Self.measured(input)
        let output = dir.path("capped.wav")
        let r = try Self.normalize([input, "-o", output, "--target", "-3", "--max-true-peak", "-1"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.end?["limited_by"] as? String == "true_peak")
        #expect(r.err.contains("normalized to") && r.err.contains("the true peak limits the gain to") && r.err.contains("--limit reaches the target"), "\(r.err)")
        #expect(r.err.split(separator: "\n").count == 1, "\(r.err)")
        let after = try Self.measured(output)
        #expect(abs(after.tp - -1) <= 0.1, "true peak \(after.tp), ceiling -1")
        #expect(abs(try #require(Tool.double(r.end?["gain_db"])) - (-1 - before.tp)) <= 0.02)
    }

    @Test(arguments: ["wav", "flac"])
    func theLimiterReachesTheTargetUnderTheCeiling(_ ext: String) throws {
        let dir = try TempDir()
        let input = try Self.signal("speech", ext, in: dir)
        let output = dir.path("limited.\(ext)")
        let r = try Self.normalize([input, "-o", output, "--target", "-12", "--max-true-peak", "-1", "--limit"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.end?["limited_by"] == nil && Tool.double(r.end?["limiter_db"]).map { $0 < -1 } == true, "\(r.end ?? [:])")
        let ours = try Self.measured(output), ffmpeg = try Self.ebur128(output)
        #expect(abs(ours.i - -12) <= 0.1 && abs(ffmpeg.i - -12) <= 0.1, "I: pulsemeter \(ours.i), ffmpeg \(ffmpeg.i)")
        #expect(ours.tp <= -1 + 0.005 && ffmpeg.tp <= -1 + 0.05, "true peak: pulsemeter \(ours.tp), ffmpeg \(ffmpeg.tp)")
    }

    /// Float in, float out: the output is the input times one gain, sample for sample; 16-bit
    /// output differs from the product by the dither and the rounding (under 1.5 LSB).
    @Test func aStaticGainIsTheInputTimesTheGain() throws {
        let dir = try TempDir()
        var samples: [Float] = []
        var rng = SeededRNG(seed: 7)
        for i in 0..<48000 { samples.append(Float(0.2 * rng.signed() * min(1, Double(i) / 4800))) }
        let float = try dir.write(WAV.file(rate: 48000, channels: 1, bits: 32, float: true,
                                           payload: samples.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }), "f.wav")
        let out = dir.path("g.wav")
        let r = try Self.normalize([float, "-o", out, "--target", "-20"])
        #expect(r.status == 0, "\(r.err)")
        let gain = try #require(Tool.double(r.end?["gain_db"]))
        let result = try Self.floats(out)
        try #require(result.count == samples.count)
        let k = samples.indices.max { abs(samples[$0]) < abs(samples[$1]) }!
        let g = result[k] / samples[k]
        #expect(abs(20 * log10(Double(g)) - gain) <= 0.01)
        #expect(samples.indices.allSatisfy { abs(result[$0] - samples[$0] * g) <= abs(samples[$0] * g) * 2e-7 })
        // 16-bit in, 16-bit out: the product within the dither (and the rounding).
        let shorts = samples.map { Int16(($0 * 32768).rounded()) }
        let wav16 = try dir.write(WAV.file(rate: 48000, channels: 1, bits: 16, float: false,
                                           payload: shorts.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }), "s.wav")
        let out16 = dir.path("g16.wav")
        let r16 = try Self.normalize([wav16, "-o", out16, "--target", "-20"])
        #expect(r16.status == 0)
        let g16 = Float(pow(10, try #require(Tool.double(r16.end?["gain_db"])) / 20))
        let decoded = try Self.floats(out16)
        let errors = shorts.indices.map { (decoded[$0] - Float(shorts[$0]) / 32768 * g16) * 32768 }
        #expect(!errors.contains { abs($0) > 1.5 + 0.05 }, "within the dither: \(errors.map(abs).max()!)")
        #expect(errors.contains { abs($0) > 0.5 + 0.01 }, "dithered, not only rounded")
    }

    /// A file's samples as floats (ffmpeg to f32le).
    static func floats(_ path: String) throws -> [Float] {
        let r = try Tool.exec(try #require(ffmpeg), ["-nostdin", "-v", "error", "-i", path, "-f", "f32le", "-"])
        return r.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test func albumModeKeepsTheDifferences() throws {
        let dir = try TempDir()
        let files = try ["speech", "music", "noise"].map { try Self.signal($0, "flac", in: dir) }
        let before = try files.map(Self.measured)
        let outDir = dir.path("album") + "/"
        let r = try Tool.run(["normalize", "--album", "--target", "-20", "--max-true-peak", "0", "-j", "2", "-o", outDir] + files)
        #expect(r.status == 0, "\(r.err)")
        let lines = try Tool.ndjson(r)
        #expect(lines.count == 3 && Set(lines.compactMap { Tool.double($0["gain_db"]) }).count == 1, "one gain: \(lines)")
        let after = try files.map { try Self.measured(outDir + URL(fileURLWithPath: $0).lastPathComponent) }
        for i in 1..<3 {
            let was = before[i].i - before[0].i, now = after[i].i - after[0].i
            #expect(abs(was - now) <= 0.05, "file \(i): difference \(was) before, \(now) after")
        }
    }

    @Test func anExistingOutputIsKeptAndNothingIsLeftBeside() throws {
        let dir = try TempDir()
        let input = try Self.signal("noise", "wav", in: dir)
        let output = dir.path("taken.wav")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: output))
        let r = try Tool.run(["normalize", input, "-o", output, "--preset", "podcast"])
        #expect(r.status == 73 && r.err.contains("--force"), "\(r.err)")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "keep")
        let forced = try Tool.run(["normalize", input, "-o", output, "--preset", "podcast", "--force"])
        #expect(forced.status == 0, "\(forced.err)")
        #expect(abs(try Self.measured(output).i - -16) <= 0.1)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
        #expect(names == ["noise-src16.wav", "taken.wav"], "nothing beside: \(names)")
        // A damaged input writes nothing and is named in one line.
        let damaged = try dir.write(Array("RIFF....WAVEjunk".utf8), "bad.wav")
        let bad = try Tool.run(["normalize", damaged, "-o", dir.path("bad-out.wav"), "--target", "-16"])
        #expect(bad.status == 65 && bad.err.split(separator: "\n").count == 1 && bad.err.contains("bad.wav"), "\(bad.err)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("bad-out.wav")))
    }

    /// The names in `dir` starting with a dot: the output being written (`.NAME.XXXXXXXX.EXT`).
    static func hidden(_ dir: TempDir) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.url.path)) ?? []).filter { $0.hasPrefix(".") }
    }

    /// The state letter of a process (`/proc/PID/stat`, after the name): "T" when stopped.
    static func state(_ pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.range(of: ") ", options: .backwards) else { return nil }
        return String(stat[close.upperBound...].prefix(1))
    }

    /// A signal while the output is being written (its hidden file there): exit 130, one
    /// stderr line, neither the hidden file nor OUT left; with --force, the OUT that was there
    /// left as it was. The run is held (SIGSTOP) once the hidden file appears, checked, and
    /// given the signal then, so that it cannot finish between the check and the signal: the
    /// signal waits, pending, until SIGCONT.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalWhileWritingLeavesNothing(signal: Int32) throws {
        let dir = try TempDir()
        let input = try InterruptCLITests.sine(dir, "long.wav", seconds: 120)
        let output = dir.path("out.wav")
        for force in [false, true] {
            if force { try Data("keep".utf8).write(to: URL(fileURLWithPath: output)) }
            let p = try InterruptCLITests.Running(["normalize", input, "-o", output, "--target", "-16"] + (force ? ["--force"] : []))
            let pid = p.process.processIdentifier
            #expect(p.wait { Self.hidden(dir).count == 1 }, "the output's hidden file appears (force \(force))")
            kill(pid, SIGSTOP)
            #expect(p.wait { Self.state(pid) == "T" }, "the run is held")
            let writing = Self.hidden(dir)
            #expect(writing.count == 1 && writing[0].hasPrefix(".out.wav.") && writing[0].hasSuffix(".wav"), "\(writing)")
            kill(pid, signal)
            let r = p.stop(with: SIGCONT)
            #expect(r.status == 130, "signal \(signal), force \(force): \(r.stderr)")
            #expect(r.stderr == "pulsemeter: interrupted: 1 of 1 files not written; nothing partial was left\n", "\(r.stderr)")
            #expect(r.lines.isEmpty, "no end line for a file not written: \(r.lines)")
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
            #expect(names == (force ? ["long.wav", "out.wav"] : ["long.wav"]), "nothing left: \(names)")
            if force { #expect(try String(contentsOfFile: output, encoding: .utf8) == "keep", "the existing OUT intact") }
        }
    }

    @Test func theCommandLineIsChecked() throws {
        let dir = try TempDir()
        let input = try Self.signal("noise", "wav", in: dir)
        Tool.expectError(try Tool.run(["normalize", input, "-o", dir.path("x.wav")]), 64, mentions: ["--target", "--preset"])
        Tool.expectError(try Tool.run(["normalize", input, "--target", "-16"]), 64, mentions: ["-o"])
        Tool.expectError(try Tool.run(["normalize", input, input, "-o", dir.path("x.wav"), "--target", "-16"]), 64, mentions: ["DIR/"])
        Tool.expectError(try Tool.run(["normalize", input, "-o", dir.path("x.wav"), "--preset", "loud"]), 64, mentions: ["podcast"])
    }
}
