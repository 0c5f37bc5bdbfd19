import Foundation
import Testing
import TestSupport

/// `analyze --loudness` / `--target`: the NDJSON fields, the option's bounds, and programme-like
/// material against ffmpeg's `ebur128=peak=true`.
@Suite struct LoudnessCLITests {
    static let ffmpegPath = Tool.which("ffmpeg")

    /// Speech-like programme made by sox, about 130 s: pink noise (different on each channel)
    /// in phrases of 3-8 s at levels from -10 to -28 dBFS, syllables by a 4 Hz tremolo, pauses
    /// of 0.4-2 s at -70 dBFS between phrases.
    static func programme(in dir: TempDir) throws -> String {
        var rng = SeededRNG(seed: 3)
        func unit() -> Double { (rng.signed() + 1) / 2 }
        let levels = [-10.0, -13, -16, -19, -22, -25, -28]
        var parts: [String] = []
        for i in 0..<40 {
            let pause = i % 2 == 1
            let seconds = pause ? 0.4 + 1.6 * unit() : 3 + 5 * unit()
            let db = pause ? -70 : levels[Int(unit() * Double(levels.count)) % levels.count]
            let part = dir.path("part\(i).wav")
            // -R: sox seeds its noise generator the same way every run (without it each run is
            // new material, and ffmpeg's and libebur128's oversamplers disagreed by 0.5-0.85 dB
            // on some random peaks). Phrases fade in and out: an abrupt onset rings in any
            // oversampler (DESIGN.md).
            var args = ["-R", "-q", "-n", "-r", "48000", "-c", "2", "-b", "24", part, "synth", String(format: "%.2f", seconds), "pinknoise", "pinknoise"]
            if !pause { args += ["tremolo", "4.2", "85"] }
            args += ["vol", "\(db)dB"]
            if !pause { args += ["fade", "0.05", "-0", "0.05"] }
            try Tool.sox(args)
            parts.append(part)
        }
        let out = dir.path("programme.wav")
        try Tool.sox(["-R"] + parts + [out])
        return out
    }

    /// ffmpeg's summary: integrated loudness, loudness range and true peak (dBFS, the largest
    /// over the channels).
    static func ffmpegEbur128(_ path: String) throws -> (i: Double, lra: Double, peak: Double) {
        let ffmpeg = try #require(ffmpegPath, "ffmpeg is not installed (scripts/setup installs it)")
        let r = try Tool.exec(ffmpeg, ["-nostats", "-hide_banner", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-"])
        #expect(r.status == 0, "ffmpeg: \(r.err)")
        let summary = try #require(r.err.range(of: "Summary:").map { String(r.err[$0.upperBound...]) })
        func value(_ label: String) throws -> Double {
            let line = try #require(summary.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) })
            let text = line.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
            return try #require(Double(text.split(separator: " ")[0]), "\(line)")
        }
        return (try value("I:"), try value("LRA:"), try value("Peak:"))
    }

    @Test func programmeMatchesFfmpeg() throws {
        let dir = try TempDir()
        let path = try Self.programme(in: dir)
        let (_, frames, end, _) = try AnalyzeCLITests.analyze([path, "--loudness", "--fps", "10"])
        let ref = try Self.ffmpegEbur128(path)
        let i = try #require(Tool.double(end["lufs_i"])), lra = try #require(Tool.double(end["lra"]))
        let tp = Tool.doubles(end["true_peak_db"])
        #expect(abs(i - ref.i) <= 0.2, "I \(i) vs ffmpeg \(ref.i)")
        // Both take short-term values ten times a second (Tech 3342, 2016).
        #expect(abs(lra - ref.lra) <= 0.5, "LRA \(lra) vs ffmpeg \(ref.lra)")
        #expect(tp.count == 2)
        #expect(abs((tp.max() ?? -160) - ref.peak) <= 0.3, "true peak \(tp) vs ffmpeg \(ref.peak)")
        // The maxima are the largest per-frame readings or above (they also see 100 ms steps
        // between frames).
        let m = frames.compactMap { Tool.double($0["lufs_m"]) }, s = frames.compactMap { Tool.double($0["lufs_s"]) }
        #expect(m.count == frames.count && s.count == frames.count)
        #expect(try #require(Tool.double(end["max_lufs_m"])) >= m.max()! - 0.005)
        #expect(try #require(Tool.double(end["max_lufs_s"])) >= s.max()! - 0.005)
        #expect(abs((Tool.double(frames.last?["lufs_i"]) ?? 0) - i) <= 0.02)
    }

    @Test func fieldsAndTarget() throws {
        let dir = try TempDir()
        let path = dir.path("tone.wav")
        try Tool.sox(["-q", "-n", "-r", "44100", "-c", "2", "-b", "24", path, "synth", "5", "sine", "1000", "vol", "-23dB"])
        let (start, frames, end, _) = try AnalyzeCLITests.analyze([path, "--target", "-16"])
        #expect(start["loudness"] as? Bool == true)
        #expect(frames.allSatisfy { f in ["lufs_m", "lufs_s", "lufs_i"].allSatisfy { Tool.double(f[$0]) != nil } })
        let i = try #require(Tool.double(end["lufs_i"]))
        #expect(abs(i - (-23)) <= 0.1)
        #expect(Tool.double(end["target_lufs"]) == -16)
        #expect(abs((Tool.double(end["gain_db"]) ?? 0) - (-16 - i)) <= 0.011)
        #expect(Tool.doubles(end["true_peak_db"]).count == 2)
        // Without --loudness no loudness field appears.
        let plain = try AnalyzeCLITests.analyze([path])
        #expect(plain.start["loudness"] == nil && plain.end["lufs_i"] == nil && plain.frames.allSatisfy { $0["lufs_m"] == nil })
    }

    @Test func badTargetAndRate() throws {
        let dir = try TempDir()
        let path = dir.path("tone.wav")
        try Tool.sox(["-q", "-n", "-r", "8000", "-c", "1", path, "synth", "0.5", "sine", "440"])
        for value in ["5", "-80", "abc", "nan"] {
            Tool.expectError(try Tool.run(["analyze", path, "--target", value]), 64, mentions: ["--target", value])
            Tool.expectError(try Tool.run(["monitor", "--target", value]), 64, mentions: ["--target"])
        }
        let r = try Tool.run(["analyze", "-", "--raw", "s16le", "-r", "8", "-c", "1", "--fps", "1", "--loudness"], stdin: Data(count: 64))
        Tool.expectError(r, 64, mentions: ["8 Hz"])
    }
}
