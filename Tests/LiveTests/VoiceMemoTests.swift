import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// Voice-memo and logger features: the frames' normalized level, recording sample
    /// formats, pause and resume, the rolling archive.
    @Suite("voice memos and loggers")
    struct VoiceMemo {
        /// A stereo sine of amplitude `amplitude` at 1 kHz (48 samples a period at 48 kHz, so
        /// a 50 ms window holds whole periods): rms_db = 20*log10(A) - 3.01.
        static func sine(frames: Int, amplitude: Double) -> [Int16] {
            var out = [Int16](repeating: 0, count: 2 * frames)
            for i in 0..<frames {
                let v = Int16((amplitude * 32768 * sin(2 * Double.pi * Double(i) / 48)).rounded())
                out[2 * i] = v
                out[2 * i + 1] = v
            }
            return out
        }

        @Test("live frames carry level = clamp((rms_db - floor) / -floor, 0, 1) with --floor",
              arguments: [nil, -40.0])
        func levelPerChannel(floor: Double?) throws {
            let server = try Live.server()
            let dir = try Live.tempDir("level")
            defer { Live.removeTree(dir) }
            let frames = 48_000
            let input = Self.sine(frames: frames, amplitude: 0.1)
            let args = ["--duration", server.feedDurationArgument(frames: frames)] + (floor.map { ["--floor", "\($0)"] } ?? [])
            let (p, _) = try LiveSuite.startRecording(dir + "/l.wav", args, server: server)
            let feeder = server.startFeeding(input, speed: nil)
            defer { server.stopFeeding(feeder) }
            let lines = try parseLines(p.readToEnd(timeout: 30))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            let f = floor ?? -60
            let frameLines = lines.filter { $0.type == "frame" }
            #expect(frameLines.count >= 25)
            var bad: [String] = []
            var steady = 0
            let expectedSteady = (20 * log10(0.1) - 10 * log10(2) - f) / -f  // the analytic level of the sine
            for line in frameLines {
                guard let rms = line.doubles("rms_db"), let level = line.doubles("level"), level.count == 2, rms.count == 2 else {
                    bad.append("frame at \(line.int("pos") ?? -1) has no level per channel")
                    continue
                }
                for c in 0..<2 {
                    // rms_db is printed with 2 decimals, level with 4.
                    let want = min(1, max(0, (rms[c] - f) / -f))
                    if abs(level[c] - want) > 0.005 / -f + 0.00005 + 1e-9 { bad.append("level \(level[c]) for rms \(rms[c])") }
                }
                if abs(rms[0] - (20 * log10(0.1) - 10 * log10(2))) < 0.02 {
                    steady += 1
                    if abs(level[0] - expectedSteady) > 0.02 / -f + 0.00005 { bad.append("steady level \(level[0]), want \(expectedSteady)") }
                }
            }
            #expect(bad.isEmpty, "\(bad.prefix(4))")
            #expect(steady >= 20, "the sine's level was seen in \(steady) frames")
            // analyze frames carry no level (live only).
            #expect(lines.first { $0.type == "end" }?.object["level"] == nil)
        }
    }
}
