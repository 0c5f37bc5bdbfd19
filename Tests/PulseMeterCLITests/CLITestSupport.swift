import Foundation
import Glibc
import Testing
import TestSupport

/// Runs the real `pulsemeter` binary and the tools the tests compare it with.
enum Tool {
    /// A day of audio through the debug build costs half a minute of CPU per test; scripts/test
    /// runs the CLI tests with PULSEMETER_BIN set to the release binary, and the tests that feed
    /// a whole day (memory flat over 24 hours) run only with it set.
    static let dayLong = Testing.ConditionTrait.enabled(
        if: ProcessInfo.processInfo.environment["PULSEMETER_BIN"] != nil,
        "a day of audio: through the release binary only (set PULSEMETER_BIN, as scripts/test does)")

    /// The built `pulsemeter`: $PULSEMETER_BIN, else next to this test bundle (the products
    /// directory of whatever --build-path built it), else the newest under the package root.
    static let binary: String = {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["PULSEMETER_BIN"], fm.isExecutableFile(atPath: env) {
            return env
        }
        var candidates: [String] = []
        if let exe = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("pulsemeter").path)
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("pulsemeter").path)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("pulsemeter").path)
        for c in candidates where fm.isExecutableFile(atPath: c) { return c }
        // Walk up from this file to the package root and take the newest build.
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" && !fm.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            dir = dir.deletingLastPathComponent()
        }
        var best: (String, Date)?
        for entry in (try? fm.contentsOfDirectory(atPath: dir.path)) ?? [] where entry.hasPrefix(".build") {
            for sub in ["debug", "release", "x86_64-unknown-linux-gnu/debug", "aarch64-unknown-linux-gnu/debug"] {
                let p = dir.appendingPathComponent(entry).appendingPathComponent(sub).appendingPathComponent("pulsemeter").path
                if fm.isExecutableFile(atPath: p),
                   let m = (try? fm.attributesOfItem(atPath: p))?[.modificationDate] as? Date,
                   best == nil || m > best!.1 {
                    best = (p, m)
                }
            }
        }
        return best?.0 ?? "pulsemeter"
    }()

    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: Data
        var out: String { String(decoding: stdout, as: UTF8.self) }
        var err: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// Runs `executable args`, stdin from `input` (or /dev/null), capturing both outputs in files
    /// (no pipe can fill up and deadlock).
    static func exec(_ executable: String, _ args: [String], stdin input: Data? = nil,
                     environment: [String: String]? = nil) throws -> Result {
        let scratch = try TempDir("run")  // removed when exec returns
        defer { withExtendedLifetime(scratch) {} }
        let dir = scratch.url
        let outURL = dir.appendingPathComponent("out"), errURL = dir.appendingPathComponent("err")
        let inURL = dir.appendingPathComponent("in")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: inURL.path, contents: input ?? Data())
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (k, v) in environment ?? [:] { env[k] = v }
        p.environment = env
        let outH = try FileHandle(forWritingTo: outURL), errH = try FileHandle(forWritingTo: errURL)
        let inH = try FileHandle(forReadingFrom: inURL)
        p.standardOutput = outH
        p.standardError = errH
        p.standardInput = inH
        try p.run()
        p.waitUntilExit()
        try outH.close()
        try errH.close()
        try inH.close()
        return Result(status: p.terminationStatus, stdout: try Data(contentsOf: outURL), stderr: try Data(contentsOf: errURL))
    }

    static func run(_ args: [String], stdin: Data? = nil) throws -> Result {
        try exec(binary, args, stdin: stdin)
    }

    /// Runs pulsemeter with arguments given as bytes, in `cwd`: a file name that is not UTF-8
    /// cannot pass through Foundation's Process, so /bin/sh rebuilds each argument from octal
    /// escapes with printf (the trailing `x` keeps a final newline from being stripped).
    static func runBytes(_ args: [[UInt8]], cwd: String? = nil, stdin: Data? = nil) throws -> Result {
        var script = cwd.map { "cd '\($0)' || exit 99\n" } ?? ""
        for (i, a) in args.enumerated() {
            let octal = a.map { "\\0" + String($0, radix: 8) }.joined()
            script += "a\(i)=$(printf '%bx' '\(octal)'); a\(i)=${a\(i)%x}\n"
        }
        script += "exec \"$0\"" + args.indices.map { " \"$a\($0)\"" }.joined() + "\n"
        return try exec("/bin/sh", ["-c", script, binary], stdin: stdin)
    }

    /// Gives the file at `path` a second name made of raw bytes (`link(2)`), for names that
    /// Foundation cannot spell.
    static func link(_ path: String, as name: [UInt8]) throws {
        let r = (name + [0]).withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { Glibc.link(path, $0.baseAddress!) }
        }
        #expect(r == 0, "link \(path): errno \(errno)")
    }

    static func which(_ tool: String) -> String? {
        for d in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(d)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    static let soxPath = which("sox")

    /// Runs sox; the test fails if sox does.
    @discardableResult
    static func sox(_ args: [String]) throws -> Result {
        let sox = try #require(soxPath, "sox is not installed")
        let r = try exec(sox, args)
        #expect(r.status == 0, "sox \(args.joined(separator: " ")): \(r.err)")
        return r
    }

    /// `sox FILE -n stats`: "RMS lev dB" and "Pk lev dB" per channel.
    static func soxStats(_ path: String, channels: Int) throws -> (rms: [Double], peak: [Double]) {
        let r = try sox([path, "-n", "stats"])
        func row(_ label: String) throws -> [Double] {
            let line = try #require(r.err.split(separator: "\n").first { $0.hasPrefix(label) }, "no \(label) in sox stats")
            var values = line.dropFirst(label.count).split(separator: " ").compactMap { Double($0) }
            if channels > 1 { values.removeFirst() }  // "Overall"
            return values
        }
        let rms = try row("RMS lev dB"), peak = try row("Pk lev dB")
        #expect(rms.count == channels && peak.count == channels)
        return (rms, peak)
    }

    /// Parses NDJSON output, checking the format on the way: every line complete and valid
    /// JSON, an object with a `type`, every number finite (no NaN/Infinity text at all).
    static func ndjson(_ r: Result, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let text = r.out
        if !text.isEmpty { #expect(text.hasSuffix("\n"), "partial last line", sourceLocation: sourceLocation) }
        // No bare NaN/Infinity tokens (JSONSerialization would refuse them too).
        let nonFinite = try NSRegularExpression(pattern: "[:,\\[]\\s*-?(NaN|nan|Infinity|infinity|inf)")
        #expect(nonFinite.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil,
                "output holds a non-finite number", sourceLocation: sourceLocation)
        var out: [[String: Any]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let obj = try JSONSerialization.jsonObject(with: Data(line.utf8))
            let dict = try #require(obj as? [String: Any], "not an object: \(line)", sourceLocation: sourceLocation)
            #expect(dict["type"] is String, sourceLocation: sourceLocation)
            #expect(allFinite(dict), "non-finite number in \(line)", sourceLocation: sourceLocation)
            out.append(dict)
        }
        return out
    }

    static func allFinite(_ v: Any) -> Bool {
        switch v {
        case let d as [String: Any]: return d.values.allSatisfy(allFinite)
        case let a as [Any]: return a.allSatisfy(allFinite)
        case let n as NSNumber: return n.doubleValue.isFinite
        default: return true
        }
    }

    /// An error run: the exit code, exactly one stderr line `pulsemeter: ...`, and no partial
    /// line on stdout.
    static func expectError(_ r: Result, _ code: Int32, mentions needles: [String] = [],
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == code, "exit \(r.status), stderr: \(r.err)", sourceLocation: sourceLocation)
        let err = r.err
        #expect(err.hasPrefix("pulsemeter: "), "stderr: \(err)", sourceLocation: sourceLocation)
        #expect(err.hasSuffix("\n") && err.filter { $0 == "\n" }.count == 1, "stderr is not one line: \(err)", sourceLocation: sourceLocation)
        #expect(err.count > "pulsemeter: ".count + 10, sourceLocation: sourceLocation)
        #expect(!err.contains("Fatal error") && !err.contains("Stack"), sourceLocation: sourceLocation)
        if !r.stdout.isEmpty { #expect(r.out.hasSuffix("\n"), "partial line on stdout", sourceLocation: sourceLocation) }
        for n in needles { #expect(err.contains(n), "stderr lacks \(n): \(err)", sourceLocation: sourceLocation) }
    }

    static func doubles(_ v: Any?) -> [Double] { (v as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? [] }
    static func int(_ v: Any?) -> Int? { (v as? NSNumber)?.intValue }
    static func double(_ v: Any?) -> Double? { (v as? NSNumber)?.doubleValue }
}

/// Test audio whose samples are known exactly: generated here, quantized here, written as WAV
/// here (or raw PCM), and converted losslessly by sox where a container needs it.
struct TestAudio {
    enum Encoding: String, CaseIterable { case s16, s24, s32, f32 }

    let rate: Int
    let channels: Int
    let encoding: Encoding
    /// Interleaved samples as the decoder must see them (full scale 1.0).
    let samples: [Double]
    /// Integer codes (or float bit patterns) in file order.
    private let codes: [Int64]

    var frames: Int { samples.count / channels }

    /// Sine + noise per channel, a different level and frequency on each channel, a small DC
    /// offset so the signal is not symmetric, and a loudness ramp across the file.
    static func make(rate: Int, channels: Int, seconds: Double, encoding: Encoding, seed: UInt64 = 1,
                     silenceFrom: Double? = nil) -> TestAudio {
        var rng = SeededRNG(seed: seed &+ UInt64(channels * 1000 + rate))
        let n = Int(Double(rate) * seconds)
        var x = [Double](repeating: 0, count: n * channels)
        let sineAmp: [Double] = [0.5, 0.12, 0.3, 0.05, 0.7, 0.2, 0.01, 0.4]
        let noiseAmp: [Double] = [0.1, 0.3, 0.02, 0.15, 0.05, 0.25, 0.003, 0.1]
        let freqs: [Double] = [440, 1000, 97, 3000, 5500, 12345, 250, 7000]
        for i in 0..<n {
            let t = Double(i) / Double(rate)
            let ramp = 0.4 + 0.6 * Double(i) / Double(max(1, n))
            let silent = silenceFrom.map { t >= $0 } ?? false
            for c in 0..<channels {
                let k = c % 8
                let v = silent ? 0 : ramp * (sineAmp[k] * sin(2 * Double.pi * freqs[k] * t + Double(c)) + noiseAmp[k] * rng.signed()) + 0.003 * Double(c + 1)
                x[i * channels + c] = max(-0.97, min(0.97, v))
            }
        }
        return TestAudio(rate: rate, channels: channels, encoding: encoding, doubles: x)
    }

    init(rate: Int, channels: Int, encoding: Encoding, doubles x: [Double]) {
        self.rate = rate
        self.channels = channels
        self.encoding = encoding
        var codes: [Int64] = [], samples: [Double] = []
        codes.reserveCapacity(x.count)
        samples.reserveCapacity(x.count)
        for v in x {
            switch encoding {
            case .s16, .s24, .s32:
                let bits = encoding == .s16 ? 16 : (encoding == .s24 ? 24 : 32)
                let scale = Double(Int64(1) << (bits - 1))
                let code = Int64(max(-scale, min(scale - 1, (v * scale).rounded())))
                codes.append(code)
                // What libsndfile hands out: the code over 2^(bits-1), as a Float.
                samples.append(Double(Float(Double(code) / scale)))
            case .f32:
                let f = Float(v)
                codes.append(Int64(f.bitPattern))
                samples.append(Double(f))
            }
        }
        self.codes = codes
        self.samples = samples
    }

    var bytesPerSample: Int { encoding == .s16 ? 2 : (encoding == .s24 ? 3 : 4) }

    /// Little-endian interleaved PCM, as `--raw s16le|s24le|s32le|f32le` reads it.
    var rawBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(codes.count * bytesPerSample)
        for c in codes {
            let u = UInt64(bitPattern: c)
            for b in 0..<bytesPerSample { out.append(UInt8((u >> (8 * UInt64(b))) & 0xFF)) }
        }
        return out
    }

    var rawName: String { encoding.rawValue + "le" }

    /// A RIFF/WAVE file of these samples (WAVE_FORMAT_EXTENSIBLE for more than 2 channels).
    var wavBytes: [UInt8] { WAV.file(rate: rate, channels: channels, bits: bytesPerSample * 8, float: encoding == .f32, payload: rawBytes) }

    /// Writes the WAV, then converts with sox to `ext` (flac, aiff) when asked: lossless.
    func write(to dir: TempDir, name: String, ext: String = "wav") throws -> String {
        let wav = try dir.write(wavBytes, name + ".wav")
        if ext == "wav" { return wav }
        let out = dir.path(name + "." + ext)
        try Tool.sox([wav, out])
        return out
    }

    // MARK: the level definitions, computed independently

    func channel(_ c: Int) -> [Double] { (0..<frames).map { samples[$0 * channels + c] } }

    /// Whole-file rms_db and peak_db per channel.
    func wholeFile() -> (rms: [Double], peak: [Double]) {
        var rms: [Double] = [], peak: [Double] = []
        for c in 0..<channels {
            var ss = 0.0, pk = 0.0
            for i in 0..<frames {
                let v = samples[i * channels + c]
                ss += v * v
                pk = max(pk, abs(v))
            }
            rms.append(frames > 0 ? dB(power: ss / Double(frames)) : -160)
            peak.append(dB(amplitude: pk))
        }
        return (rms, peak)
    }

    struct Frame { var pos: Int; var rms: [Double]; var peak: [Double] }

    /// Frame k at pos = k*hop (last partial hop at its true pos): RMS over the last `window`
    /// samples (fewer at the start), peak over the hop.
    func frames(hop: Int, window: Int) -> [Frame] {
        // Prefix sums of squares per channel (the signals have no digital silence, so the
        // cancellation of a difference of prefix sums is harmless at 0.01 dB).
        var prefix = [[Double]](repeating: [0], count: channels)
        for c in 0..<channels {
            prefix[c].reserveCapacity(frames + 1)
            var s = 0.0
            for i in 0..<frames {
                let v = samples[i * channels + c]
                s += v * v
                prefix[c].append(s)
            }
        }
        var out: [Frame] = []
        var start = 0
        while start < frames {
            let pos = min(start + hop, frames)
            var rms: [Double] = [], peak: [Double] = []
            for c in 0..<channels {
                let lo = max(0, pos - window)
                rms.append(dB(power: (prefix[c][pos] - prefix[c][lo]) / Double(pos - lo)))
                var pk = 0.0
                for i in start..<pos { pk = max(pk, abs(samples[i * channels + c])) }
                peak.append(dB(amplitude: pk))
            }
            out.append(Frame(pos: pos, rms: rms, peak: peak))
            start = pos
        }
        return out
    }
}
