import Foundation
import Glibc
import Testing
import TestSupport

/// `--lden`: a synthetic day (24 h at 8 kHz, fed raw through a pipe at full speed) whose
/// day, evening and night hours carry tones of known A-weighted level: the day line against
/// Directive 2002/49/EC Annex I's formula computed here, memory flat (peak RSS under 40 MB).
@Suite struct LdenCLITests {
    static let (day, evening, night) = (-20.0, -26.0, -38.0)

    /// The level of the hour starting at `hour` (local): 07-19 day, 19-23 evening, 23-07 night.
    static func level(hour: Int) -> Double { hour >= 7 && hour < 19 ? day : hour >= 19 && hour < 23 ? evening : night }

    @Test(.timeLimit(.minutes(5)), Tool.dayLong)
    func aDayOfTonesGivesTheDirectivesLden() throws {
        let dir = try TempDir()
        let outPath = dir.path("out.ndjson")
        let (p, input) = try MemoryCLITests.launch(["analyze", "-", "--raw", "s16le", "-r", "8000", "-c", "1", "--fps", "2", "--spl",
                                                    "--lden", "--start-time", "2026-06-01T07:00:00+02:00"], output: outPath)
        defer { if p.isRunning { p.terminate() } }
        // One second of each level's 1 kHz tone (a whole number of cycles), written 86400 times.
        func second(_ db: Double) -> Data {
            let a = 32767 * pow(10, (db + 10 * log10(2)) / 20)  // a sine's RMS is 3.01 dB under its peak
            let samples = (0..<8000).map { Int16((a * sin(2 * Double.pi * Double($0) / 8)).rounded()) }
            return samples.withUnsafeBufferPointer { Data(buffer: $0) }
        }
        let blocks = Dictionary(uniqueKeysWithValues: [Self.day, Self.evening, Self.night].map { ($0, second($0)) })
        var peakKiB = 0
        for s in 0..<86400 {
            try input.fileHandleForWriting.write(contentsOf: blocks[Self.level(hour: (7 + s / 3600) % 24)]!)
            if s % 3600 == 3599 { peakKiB = try MemoryCLITests.peakRSSKiB(p.processIdentifier) }
        }
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(peakKiB > 0 && peakKiB < 40 * 1024, "peak RSS \(peakKiB) KiB")
        let lines = try String(contentsOfFile: outPath, encoding: .utf8).split(separator: "\n")
        let days = try lines.compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["type"] as? String == "day" }
        #expect(days.count == 1)
        let d = try #require(days.first)
        #expect(d["date"] as? String == "2026-06-01" && d["partial"] as? Bool == false)
        #expect(d["start"] as? String == "2026-06-01T07:00:00+02:00" && d["end"] as? String == "2026-06-02T07:00:00+02:00")
        let lden = 10 * log10((12 * pow(10, Self.day / 10) + 4 * pow(10, (Self.evening + 5) / 10)
            + 8 * pow(10, (Self.night + 10) / 10)) / 24)
        #expect(abs(Tool.doubles(d["lden_db"])[0] - lden) <= 0.1, "lden \(Tool.doubles(d["lden_db"])) vs \(lden)")
        for (key, want) in [("lday_db", Self.day), ("levening_db", Self.evening), ("lnight_db", Self.night)] {
            #expect(abs(Tool.doubles(d[key])[0] - want) <= 0.1, "\(key)")
        }
    }
}
