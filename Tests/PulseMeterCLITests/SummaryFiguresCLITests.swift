import Foundation
import Testing
import TestSupport

/// The whole-stream figures of `analyze`: the NDJSON `end` line carries `bands_db` with
/// `--bands` and `clipped_samples` / `silence_seconds` with `--events`, in a single run and in
/// a many-file run alike, and the terminal summary shows the same figures.
@Suite struct SummaryFiguresCLITests {
    /// Stereo at 48 kHz: 2 s of a 1 kHz sine (amplitude 0.5), 3 s of digital silence, 1 s of
    /// the sine at twice full scale (pinned at the 16-bit rails), 0.5 s of the sine.
    static func clippedAndSilent() -> TestAudio {
        let rate = 48000
        var x: [Double] = []
        func sine(_ seconds: Double, _ a: Double) {
            for i in 0..<Int(seconds * Double(rate)) {
                let v = max(-1, min(1, a * sin(2 * Double.pi * 1000 * Double(i) / Double(rate))))
                x += [v, v]
            }
        }
        sine(2, 0.5); sine(3, 0); sine(1, 2); sine(0.5, 0.5)
        return TestAudio(rate: rate, channels: 2, encoding: .s16, doubles: x)
    }

    static func end(_ r: Tool.Result) throws -> [String: Any] {
        let lines = try Tool.ndjson(r)
        return try #require(lines.last { $0["type"] as? String == "end" }, "no end line")
    }

    @Test("end carries bands_db, clipped_samples and silence_seconds; the terminal summary the same figures")
    func endLineAndSummary() throws {
        let dir = try TempDir()
        let audio = Self.clippedAndSilent()
        let wav = try audio.write(to: dir, name: "take")
        let r = try Tool.run(["analyze", wav, "--bands", "8", "--events", "-f", "ndjson"])
        #expect(r.status == 0, "\(r.err)")
        let lines = try Tool.ndjson(r)
        let end = try Self.end(r)

        // Clipped samples: those the test pinned at a rail (codes 32767 and -32768), per channel.
        let pinned = (0..<2).map { c in audio.channel(c).filter { abs($0) >= 32767.0 / 32768.0 }.count }
        #expect(pinned[0] > 10_000)
        #expect(Tool.doubles(end["clipped_samples"]).map { Int($0) } == pinned)

        // Silence: the sum of the silence_end durations, within a hop plus a window of the 3 s.
        let start = try #require(lines.first)
        let resolution = Double(try #require(Tool.int(start["hop"])) + (try #require(Tool.int(start["window"])))) / 48000
        let durations = lines.filter { $0["event"] as? String == "silence_end" }.compactMap { Tool.double($0["duration"]) }
        let silence = try #require(Tool.double(end["silence_seconds"]))
        #expect(durations.count == 1 && abs(silence - durations.reduce(0, +)) < 1e-4)
        #expect(abs(silence - 3) <= resolution, "\(silence)")

        // bands_db: the mean of the frames' band powers (from the frames' own 2-decimal values).
        let bands = Tool.doubles(end["bands_db"])
        #expect(bands.count == 8)
        let frames = lines.filter { $0["type"] as? String == "frame" }.map { Tool.doubles($0["bands_db"]) }
        for b in 0..<8 {
            let mean = frames.map { pow(10, $0[b] / 10) }.reduce(0, +) / Double(frames.count)
            #expect(abs(bands[b] - 10 * log10(mean)) < 0.02, "band \(b): \(bands[b]) against \(10 * log10(mean))")
        }

        // The terminal summary (forced off a terminal) shows the same figures.
        let ansi = try Tool.run(["analyze", wav, "--bands", "8", "--events", "-f", "ansi"])
        #expect(ansi.status == 0, "\(ansi.err)")
        let text = ansi.out
        #expect(text.contains("clipped   \(pinned.reduce(0, +)) samples (L \(pinned[0]), R \(pinned[1]))"), "\(text)")
        #expect(text.contains("silence   \(String(format: "%.1f", silence)) s in 1 silence"), "\(text)")
        let spectrumRows = text.split(separator: "\n").drop { !$0.hasPrefix("spectrum") }.dropFirst()
        #expect(spectrumRows.count == 8, "\(text)")
        for (row, db) in zip(spectrumRows, bands) {
            // One decimal on the terminal, two in the end line.
            let shown = try #require(row.firstMatch(of: /(-?[0-9]+\.[0-9]) dB/).flatMap { Double($0.output.1) }, "\(row)")
            #expect(abs(shown - db) <= 0.051, "\(row) against \(db)")
        }
    }

    @Test("a steady sine: the bands' mean powers add up to what sox measures")
    func bandsAgainstSox() throws {
        let dir = try TempDir()
        let rate = 48000
        let x = (0..<(10 * rate)).flatMap { i -> [Double] in
            let v = 0.25 * sin(2 * Double.pi * 997 * Double(i) / Double(rate))
            return [v]
        }
        let wav = try TestAudio(rate: rate, channels: 1, encoding: .s16, doubles: x).write(to: dir, name: "sine")
        let bands = Tool.doubles(try Self.end(try Tool.run(["analyze", wav, "--bands", "16", "-f", "ndjson"]))["bands_db"])
        let total = 10 * log10(bands.map { pow(10, $0 / 10) }.reduce(0, +))
        let sox = try Tool.soxStats(wav, channels: 1)
        #expect(abs(total - sox.rms[0]) < 0.05, "bands add up to \(total) dB, sox RMS \(sox.rms[0]) dB")
    }

    @Test("many files: each end line carries the single run's bands_db and event totals")
    func manyFiles() throws {
        let dir = try TempDir()
        let a = try Self.clippedAndSilent().write(to: dir, name: "a", ext: "flac")
        let b = try TestAudio.make(rate: 44100, channels: 1, seconds: 3, encoding: .s16).write(to: dir, name: "b", ext: "flac")
        let many = try Tool.ndjson(try Tool.run(["analyze", a, b, "--bands", "8", "--events"]))
        #expect(many.count == 2)
        for (line, path) in zip(many, [a, b]) {
            let single = try Self.end(try Tool.run(["analyze", path, "--bands", "8", "--events", "-f", "ndjson"]))
            #expect(line["file"] as? String == path)
            for key in ["bands_db", "clipped_samples"] {
                #expect(Tool.doubles(line[key]) == Tool.doubles(single[key]) && !Tool.doubles(single[key]).isEmpty, "\(key) of \(path)")
            }
            #expect(Tool.double(line["silence_seconds"]) == Tool.double(single["silence_seconds"]))
        }
    }
}
