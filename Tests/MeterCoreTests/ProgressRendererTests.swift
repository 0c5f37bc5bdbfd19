@testable import MeterCore
import Testing

/// The progress line's text: audio read, speed, percent and time left, fitted to the width.
@Suite struct ProgressRendererTests {
    @Test func aFileOfKnownLength() {
        // 83 s of 600 read in 0.5 s: 166 times real time, 13.83% done, (600 - 83) / 166 =
        // 3.11 s left, shown rounded up: 0:04.
        let line = ProgressRenderer(width: 100).line(label: "voice.m4a", position: 83, total: 600, elapsed: 0.5)
        #expect(line == "voice.m4a  1:23 / 10:00  13.8%  166.0x  ETA 0:04")
    }

    @Test func stdinOfUnknownLength() {
        let line = ProgressRenderer(width: 80).line(label: "stdin", position: 12.4, total: nil, elapsed: 12.4)
        #expect(line == "stdin  0:12 read  1.0x")
        // Nothing read yet, no time passed: no speed to show.
        #expect(ProgressRenderer(width: 80).line(label: "stdin", position: 0, total: nil, elapsed: 0) == "stdin  0:00 read")
    }

    @Test func theEndAndBeyond() {
        // All read: 100%, no time left to show; a position past a short header length stays at 100%.
        #expect(ProgressRenderer(width: 80).line(label: "a.wav", position: 60, total: 60, elapsed: 2) == "a.wav  1:00 / 1:00  100.0%  30.0x")
        #expect(ProgressRenderer(width: 80).line(label: "a.wav", position: 61, total: 60, elapsed: 2).contains("100.0%"))
    }

    @Test func fitsTheWidthKeepingTheEndOfTheName() {
        let name = "/home/someone/recordings/2026/a-very-long-voice-message-name.m4a"
        for width in [20, 40, 60, 79] {
            let line = ProgressRenderer(width: width).line(label: name, position: 83, total: 600, elapsed: 0.5)
            #expect(line.count <= width - 1, "\(width): \(line)")
            #expect(line.hasSuffix("ETA 0:04") || width < 45, "\(width): the status is kept whole: \(line)")
        }
        let mid = ProgressRenderer(width: 60).line(label: name, position: 83, total: 600, elapsed: 0.5)
        #expect(mid.hasPrefix("…") && mid.contains("name.m4a  1:23"), "\(mid)")
    }
}
