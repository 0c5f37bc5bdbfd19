import Foundation
import Glibc
import Testing

/// Every live test, one at a time: they share the feed source (and the 2-core machine's
/// time, which the timing assertions depend on). Tests that kill or restart a server start
/// their own; the rest use the shared one (scripts/test's, or one started here). Which server
/// (PulseAudio or PipeWire) is `Live.kind`; see LiveSupport.swift on passing on both.
@Suite("Live, against a private PulseAudio or PipeWire server", .serialized)
struct LiveSuite {
    /// `pulsemeter record FILE -d FEEDSOURCE -f ndjson ARGS`, started and past its `start` line
    /// (so its record stream is connected and what is fed from now on reaches it).
    static func startRecording(_ file: String, _ args: [String], server: PulseServer,
                               pipeSize: Int32? = nil) throws -> (Subprocess, JSONLine) {
        let leftover = server.drainFeed()
        if leftover > 0 { print("live tests: drained \(leftover) stale bytes from \(server.fifo)") }
        let p = try pulsemeter(["record", file, "-d", server.feedSource, "-f", "ndjson"] + args,
                               server: server, pipeSize: pipeSize)
        guard let first = p.readLine(timeout: 15) else {
            p.kill()
            throw LiveSetupError("pulsemeter record printed no start line within 15 s; stderr: \(p.stderrText)")
        }
        let start = try JSONLine(first)
        guard start.type == "start" else {
            p.kill()
            throw LiveSetupError("the first line is not the start line: \(first)")
        }
        return (p, start)
    }

    /// Reads until a frame with pos >= `pos`; returns the lines read (parsed).
    static func readUntil(pos: Int, _ p: Subprocess, timeout: Double) throws -> (lines: [JSONLine], reached: Bool) {
        var parsed: [JSONLine] = []
        let r = p.readLines(until: { line in
            guard let l = try? JSONLine(line) else { return false }
            return l.type == "frame" && (l.int("pos") ?? 0) >= pos
        }, timeout: timeout)
        for line in r.lines { parsed.append(try JSONLine(line)) }
        return (parsed, r.matched)
    }

    /// Every line written within the next `seconds` s, parsed.
    static func readFor(_ seconds: Double, _ p: Subprocess) throws -> [JSONLine] {
        let deadline = monotonic() + seconds
        var lines: [JSONLine] = []
        while let line = p.readLine(timeout: max(0, deadline - monotonic())) { lines.append(try JSONLine(line)) }
        return lines
    }

    /// What is wrong with the frames' positions, if anything: they increase strictly, lie on
    /// the hop grid, and only a last partial hop may end off it (at `endPos`).
    static func positionProblems(_ frames: [JSONLine], hop: Int, endPos: Int) -> [String] {
        var problems: [String] = []
        var last = 0
        for (i, f) in frames.enumerated() {
            guard let pos = f.int("pos") else { problems.append("frame \(i) has no pos"); continue }
            if pos <= last { problems.append("frame \(i): pos \(pos) after \(last)") }
            let isLast = i == frames.count - 1
            if pos % hop != 0 && !(isLast && pos == endPos) { problems.append("frame \(i): pos \(pos) off the hop grid (hop \(hop))") }
            if let t = f.double("t"), abs(t - Double(pos) / Double(Live.rate)) > 1e-4 {
                problems.append("frame \(i): t \(t) is not pos/rate")
            }
            last = pos
            if problems.count > 5 { break }
        }
        return problems
    }

    /// The single stderr line of a failure, checked for its form (README.md "Exit codes").
    static func errorLine(_ stderr: String) -> String? {
        let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 2, lines[1].isEmpty, lines[0].hasPrefix("pulsemeter: ") else { return nil }
        return String(lines[0])
    }
}
