import Foundation
import Testing

extension LiveSuite {
    /// What `record` printed for a fed signal: its start line, every line, and its exit status.
    struct FedRecording {
        var start: JSONLine
        var lines: [JSONLine]
        var status: Int32?
        var stderr: String
        var end: JSONLine? { lines.last { $0.type == "end" } }
    }

    /// `record FILE --duration (room for the input) ARGS`, fed `input` through the feed
    /// source at `speed` x real time (PipeWire: 1x), read to the end. On PulseAudio the
    /// capture is the input exactly; on PipeWire zeros, the input, zeros (`fedAudioProblem`).
    static func recordFed(_ file: String, _ args: [String], input: [Int16], speed: Double?,
                          server: PulseServer, timeout: Double = 60) throws -> FedRecording {
        let seconds = server.feedDurationArgument(frames: input.count / 2)
        let (p, start) = try startRecording(file, ["--duration", seconds] + args, server: server)
        let feeder = server.startFeeding(input, speed: speed)
        defer { server.stopFeeding(feeder) }
        let lines = try parseLines(p.readToEnd(timeout: timeout))
        let status = p.wait(timeout: 5)
        return FedRecording(start: start, lines: [start] + lines, status: status, stderr: p.stderrText)
    }

    /// `analyze FILE ARGS -f ndjson`, every line; fails the test on a non-zero exit.
    static func analyzeLines(_ file: String, _ args: [String]) throws -> [JSONLine] {
        let a = try pulsemeter(["analyze", file, "-f", "ndjson"] + args, server: nil)
        let lines = try parseLines(a.readToEnd(timeout: 60))
        #expect(a.wait(timeout: 5) == 0, "stderr: \(a.stderrText)")
        return lines
    }
}
