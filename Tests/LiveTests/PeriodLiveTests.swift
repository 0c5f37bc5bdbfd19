import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// `--interval` live: period lines end at wall-clock multiples of the interval.
    @Suite("periods")
    struct Periods {
        @Test("monitor --interval 2: each period line ends at a multiple of 2 s of the wall clock and comes within 0.2 s of it; the first is partial unless the audio began at its start")
        func periodsEndOnTheWallClock() throws {
            let server = try Live.server()
            server.drainFeed()
            let p = try pulsemeter(["monitor", "-d", server.feedSource, "-f", "ndjson", "--interval", "2",
                                    "--duration", server.feedDurationArgument(frames: 7 * Live.rate)],
                                   server: server)
            defer { p.kill() }
            let first = try #require(p.readLine(timeout: 15), "no start line; stderr: \(p.stderrText)")
            #expect(try JSONLine(first).type == "start")
            let feeder = server.startFeeding(TestSignal.make(frames: 7 * Live.rate, seed: 45), speed: 1)
            defer { server.stopFeeding(feeder) }
            var periods: [(line: JSONLine, arrived: Double)] = []
            while let text = p.readLine(timeout: 30) {
                let line = try JSONLine(text)
                if line.type == "period" { periods.append((line, Date().timeIntervalSince1970)) }
                if line.type == "end" { break }
            }
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            let rfc3339 = ISO8601DateFormatter()
            rfc3339.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            func unix(_ s: String?) -> Double? {
                guard let s else { return nil }
                if let d = rfc3339.date(from: s) { return d.timeIntervalSince1970 }
                return ISO8601DateFormatter().date(from: s)?.timeIntervalSince1970
            }
            // 7 s of audio: at least two periods closed on the clock, then the last one cut short.
            #expect(periods.count >= 3)
            // The first period is partial, unless the first frame straddled its start: then
            // that frame's audio, which began at or before the boundary, makes it whole, and
            // it starts on the boundary (one run in 60 at 30 frames a second).
            let head = try #require(periods.first?.line)
            let headStart = try #require(unix(head.string("start"))), headEnd = try #require(unix(head.string("end")))
            let began = headStart - (headEnd - 2)  // after the boundary: the audio began inside the period
            #expect(began > -0.0005, "the first period starts on its boundary or after it: \(head.raw)")
            if began > 0.001 {  // (times are shown to the millisecond)
                #expect(head.object["partial"] as? Bool == true, "the first period: \(head.raw)")
            }
            for (line, arrived) in periods.dropLast() {
                let end = try #require(unix(line.string("end")))
                #expect(end.truncatingRemainder(dividingBy: 2) == 0, "end \(line.string("end") ?? "")")
                #expect(arrived - end >= 0 && arrived - end <= 0.2, "line came \(arrived - end) s after \(end)")
            }
            for (line, _) in periods.dropFirst().dropLast() {
                #expect(line.object["partial"] as? Bool == false)
                #expect(abs((line.double("seconds") ?? 0) - 2) < 0.1)
            }
        }
    }
}
