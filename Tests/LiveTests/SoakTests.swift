import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// Ten minutes of audio through `record --bands 32` at about 20x real time. Not part of the
    /// CI budget: runs only with PULSEMETER_SOAK=1 (then it is a full test like the others).
    @Suite("soak")
    struct Soak {
        static let enabled = ProcessInfo.processInfo.environment["PULSEMETER_SOAK"] == "1"

        @Test("10 minutes at ~20x real time: bit-exact file, nothing dropped, flat memory",
              .enabled(if: Soak.enabled, "set PULSEMETER_SOAK=1 to run the soak"))
        func tenMinutes() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("soak")
            defer { Live.removeTree(dir) }
            let seconds = 600
            let frames = seconds * 48000
            let input = TestSignal.make(frames: frames, seed: 99)
            let file = dir + "/soak.wav"
            let (p, start) = try LiveSuite.startRecording(
                file, ["--duration", String(seconds), "--bands", "32"], server: server)
            let hop = try #require(start.int("hop"))
            let feeder = FifoFeeder(path: server.fifo, samples: input, speed: 20)
            let began = monotonic()
            feeder.start()
            defer {
                feeder.stopAndJoin()
                Fifo.drain(server.fifo)
            }

            var rss: [(pos: Int, kb: Int)] = []
            var lastSample = 0.0
            var lastPos = 0
            var frameCount = 0
            var offGrid = 0
            var end: JSONLine?
            let deadline = began + Double(seconds) / 20 + 120
            while monotonic() < deadline {
                if monotonic() - lastSample >= 1, let kb = residentKB(p.pid) {
                    rss.append((lastPos, kb))
                    lastSample = monotonic()
                }
                guard let text = p.readLine(timeout: 0.5) else {
                    if p.sawEOF { break }
                    continue
                }
                let line = try JSONLine(text)
                switch line.type {
                case "frame":
                    let pos = line.int("pos") ?? -1
                    if pos <= lastPos || (pos % hop != 0 && pos != frames) { offGrid += 1 }
                    lastPos = pos
                    frameCount += 1
                case "end": end = line
                default: break
                }
            }
            let wall = monotonic() - began
            let status = p.wait(timeout: 10)
            #expect(status == 0, "stderr: \(p.stderrText)")
            #expect(p.stderrText == "")
            let endLine = try #require(end, "no end line within the time limit (pos \(lastPos))")
            #expect(endLine.int("pos") == frames)
            #expect(endLine.int("recorded_frames") == frames)
            let dropped = endLine.int("dropped") ?? -1
            #expect(dropped == 0)
            #expect(offGrid == 0)
            #expect(frameCount == frames / hop)
            #expect(feeder.wait(timeout: 5), "the feeder finished: \(feeder.error ?? "")")

            #expect(try soxFrames(file) == frames)
            #expect(sampleMismatch(try decodeWithSox(file), input) == nil)

            // Memory: after a warm-up (10 % of the audio), RSS must stay flat.
            let warm = rss.first { $0.pos >= frames / 10 } ?? rss.first
            let last = rss.last
            let growth = (last?.kb ?? 0) - (warm?.kb ?? 0)
            print("""
                soak: \(seconds) s of audio in \(String(format: "%.1f", wall)) s wall \
                (\(String(format: "%.1f", Double(seconds) / wall))x), dropped \(dropped), \
                \(frameCount) frames, RSS \(rss.first?.kb ?? 0) kB at start, \(warm?.kb ?? 0) kB after warm-up, \
                \(last?.kb ?? 0) kB at the end, max \(rss.map(\.kb).max() ?? 0) kB (\(rss.count) samples)
                """)
            #expect(rss.count >= 10, "RSS sampled through the run")
            #expect(growth < 8 * 1024, "RSS grew by \(growth) kB after warm-up")
        }
    }
}
