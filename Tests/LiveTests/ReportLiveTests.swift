import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// `monitor --report` (issue 42 part 2): a live run writes its page when it ends, on a
    /// stop signal too.
    @Suite("report")
    struct Report {
        @Test("monitor --loudness --report stopped by SIGTERM writes its page: the end line's figures, a curve point per frame")
        func stopSignalWritesTheReport() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("report")
            defer { Live.removeTree(dir) }
            let page = dir + "/live.html"
            server.drainFeed()
            let p = try pulsemeter(["monitor", "-d", server.feedSource, "-f", "ndjson", "--loudness", "--fps", "10",
                                    "--report", page], server: server)
            defer { p.kill() }
            let feeder = server.startFeeding(TestSignal.make(frames: 20 * Live.rate, seed: 42), speed: 1)
            defer { server.stopFeeding(feeder) }
            // A few seconds of frames, then the stop.
            let (seen, enough) = p.readLines(until: { $0.contains("\"type\":\"frame\"") && $0.contains("\"t\":2.") }, timeout: 20)
            #expect(enough, "frames for 2 s; stderr: \(p.stderrText)")
            #expect(!FileManager.default.fileExists(atPath: page), "the page comes at the end")
            p.signal(SIGTERM)
            let rest = p.readToEnd(timeout: 20)
            #expect(p.wait(timeout: 10) == 0, "stderr: \(p.stderrText)")
            let lines = try parseLines(seen + rest)
            let end = try #require(lines.last)
            #expect(end.type == "end")
            let frames = lines.filter { $0.type == "frame" }

            let html = try String(contentsOfFile: page, encoding: .utf8)
            for key in ["pos", "lufs_i", "lra", "max_lufs_m"] {
                let printed = try #require(end.raw.components(separatedBy: "\"\(key)\":").dropFirst().first?
                    .prefix { $0 != "," && $0 != "}" })
                #expect(html.contains("<tr data-key=\"\(key)\"><th>\(key)</th><td><span>\(printed)</span></td></tr>"),
                        "\(key) as the end line prints it, \(printed)")
            }
            let d = try #require(html.components(separatedBy: "data-series=\"RMS front-left\" d=\"").dropFirst().first?
                .prefix { $0 != "\"" })
            #expect(d.filter { $0 == "M" || $0 == "L" }.count == frames.count, "a point per frame")
            #expect(html.contains("Loudness: momentary and short-term"))
        }
    }
}
