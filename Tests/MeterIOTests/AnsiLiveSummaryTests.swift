import Foundation
import Testing
import TestSupport
import MeterCore
@testable import MeterIO

/// What the live meter prints when its run ends (Ctrl-C, q, --duration): the closing line,
/// then, as `analyze`'s terminal summary ends, the sound levels and the mean spectrum; in a
/// calibrated run every level in the calibrated unit.
@Suite struct AnsiLiveSummaryTests {
    /// The text after the meter screen is left, of a live sink fed 2 s of a 1 kHz sine of
    /// amplitude 0.2 (-16.99 dBFS RMS) through a pipeline with `settings`.
    static func closing(_ settings: MeterSettings) throws -> String {
        let dir = try SoundFileFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("screen.txt").path
        let output = try FileDescriptorOutput.create(path: FilePath(path))
        let sink = AnsiLiveSink(output: output, takeResize: { false })
        let pipeline = try MeterPipeline(settings: ValidSettings(settings), liveness: .live(clock: { 1000 }))
        try sink.start(pipeline.streamInfo(source: "usb-mic"))
        let x = (0..<96000).map { Float(0.2 * sin(2 * Double.pi * 1000 * Double($0) / 48000)) }
        try x.withUnsafeBufferPointer { p in try pipeline.process(p.baseAddress!, frames: x.count) { try sink.frame($0) } }
        try pipeline.finish { try sink.frame($0) }
        try sink.end(pipeline.summary())
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let left = try #require(text.range(of: AnsiMeterRenderer.leave, options: .backwards))
        return String(text[left.upperBound...])
    }

    @Test("a calibrated --spl --octaves 3 run closes with RMS and peak in dB SPL, the sound levels in dB(A), the bands in dB SPL")
    func calibratedClosingSummary() throws {
        var settings = MeterSettings(rate: 48000, channels: 1, spl: SoundLevelSettings(calibrationDb: 94))
        settings.octaves = 3
        let lines = try Self.closing(settings).split(separator: "\n")
        let rms = 20 * log10(0.2) - 10 * log10(2.0) + 94  // 77.0
        #expect(lines.first?.hasPrefix("usb-mic: 0:02  M rms \(String(format: "%.1f", rms)) pk 80.0 dB SPL") == true,
                "\(lines.first ?? "")")
        let sound = try #require(lines.first { $0.contains("LAeq") })
        // The A weighting is 0 dB at 1 kHz: the Leq is the RMS level, within the F detector's start.
        #expect(sound.contains("LAeq 76.9") || sound.contains("LAeq 77.0"), "\(sound)")
        #expect(sound.hasSuffix(" dB(A)") && sound.contains("LAFmax 77.0") && sound.contains("L50 77.0"), "\(sound)")
        let bands = lines.filter { $0.contains(" Hz ") }
        #expect(bands.count == 31, "thirds from 20 Hz to 20 kHz at 48 kHz: \(bands.count)")
        let oneKilohertz = try #require(bands.first { $0.hasPrefix("891-1.1k Hz") })
        #expect(oneKilohertz.contains(" 77.0 dB SPL") || oneKilohertz.contains(" 76.9 dB SPL"), "\(oneKilohertz)")
        #expect(bands.allSatisfy { $0.contains(" dB SPL ") })
    }

    @Test("uncalibrated, the closing line reads dB and the sound levels dBFS(A)")
    func uncalibratedClosingSummary() throws {
        let lines = try Self.closing(MeterSettings(rate: 48000, channels: 1, spl: SoundLevelSettings()))
            .split(separator: "\n")
        #expect(lines.first?.hasPrefix("usb-mic: 0:02  M rms -17.0 pk -14.0 dB") == true, "\(lines.first ?? "")")
        #expect(lines.contains { $0.contains("LAeq -17.0") && $0.hasSuffix("dBFS(A)") }, "\(lines)")
    }
}
