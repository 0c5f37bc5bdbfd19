import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// `--events` live gives the same event lines as `analyze` of the same samples
    /// (the recorded file: on PipeWire zeros, the input, zeros; see `fedAudioProblem`).
    @Suite("events")
    struct Events {
        /// Signal, silence, signal with samples pinned at the rails, silence to the end.
        static func signalWithGapsAndClips() -> (samples: [Int16], clipped: [Int]) {
            var x = TestSignal.make(frames: 48000, seed: 41)
            x += [Int16](repeating: 0, count: 2 * 120_000)
            var loud = TestSignal.make(frames: 60_000, seed: 42)
            var clipped = [0, 0]
            for k in 0..<40 {
                let i = (k * 7919) % 60_000, c = k % 2
                loud[2 * i + c] = k % 3 == 0 ? -32768 : 32767
            }
            for (i, v) in loud.enumerated() where v == 32767 || v == -32768 { clipped[i % 2] += 1 }
            x += loud
            x += [Int16](repeating: 0, count: 2 * 110_000)
            return (x, clipped)
        }

        @Test("monitor and analyze give the same events for the same samples: silence spans, exact clip counts")
        func liveEqualsAnalyze() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("events")
            defer { Live.removeTree(dir) }
            let (input, clipped) = Self.signalWithGapsAndClips()
            let file = dir + "/live.wav"
            let r = try LiveSuite.recordFed(file, ["--events"], input: input, speed: 4, server: server)
            #expect(r.status == 0, "stderr: \(r.stderr)")
            let live = r.lines
            let liveEnd = try #require(r.end)
            #expect(liveEnd.int("dropped") == 0, "a dropped hop would make the comparison meaningless")
            #expect(fedAudioProblem(try decodeWithSox(file), [input], server: server) == nil)

            // The recorded file (the same samples the live meter saw) through analyze.
            let analyzed = try LiveSuite.analyzeLines(file, ["--events"])

            func events(_ lines: [JSONLine]) -> [NSDictionary] {
                lines.filter { $0.type == "event" }.map { l in
                    var o = l.object
                    o["ts"] = nil
                    return o as NSDictionary
                }
            }
            let liveEvents = events(live), fileEvents = events(analyzed)
            #expect(liveEvents == fileEvents)
            #expect(live.filter { $0.type == "event" && $0.string("event") != "clip" }.allSatisfy { $0.double("ts") != nil || $0.string("event") == "silence_end" })
            var names = fileEvents.compactMap { $0["event"] as? String }.filter { $0 != "clip" }
            // PipeWire: a wait of 2 s or more before the feed began is a silence of its own.
            if !server.alignedFeed, names.count == 6, (fileEvents.first?["pos"] as? Int) == 0 { names.removeFirst(2) }
            #expect(names == ["silence_start", "silence_end", "silence_start", "silence_end"])
            let clipSum = (0..<2).map { c in
                fileEvents.filter { ($0["event"] as? String) == "clip" && ($0["channel"] as? Int) == c }
                    .reduce(0) { $0 + (($1["samples"] as? Int) ?? 0) }
            }
            #expect(clipSum == clipped)
            #expect(liveEnd.object["clipped_samples"] as? [Int] == clipped)
            #expect(analyzed.last?.object["clipped_samples"] as? [Int] == clipped)
        }
    }
}
