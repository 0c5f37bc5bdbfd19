import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// Ten minutes of audio through `record` at about 20x real time. Not part of the CI
    /// budget: runs only with PULSEMETER_SOAK=1 (then it is a full test like the others), and
    /// on PulseAudio only (PipeWire's feed runs at real time: ten minutes).
    @Suite("soak")
    struct Soak {
        static let enabled = ProcessInfo.processInfo.environment["PULSEMETER_SOAK"] == "1" && Live.kind == .pulseaudio
        static let seconds = 600

        /// What a soak run saw: its lines of other types than frame, frame count, positions
        /// off the grid, and RSS samples over the run.
        struct Run {
            var end: JSONLine?
            var other: [JSONLine] = []
            var frameCount = 0
            var offGrid = 0
            var rss: [(pos: Int, kb: Int)] = []
            var wall = 0.0
            var lastPos = 0
        }

        /// `record FILE --duration 600 ARGS` fed 10 minutes at 20x, RSS sampled every second.
        static func soak(_ file: String, _ args: [String], input: [Int16], server: PulseServer) throws -> Run {
            let frames = input.count / 2
            let (p, start) = try LiveSuite.startRecording(file, ["--duration", String(seconds)] + args, server: server)
            let hop = try #require(start.int("hop"))
            let began = monotonic()
            let feeder = server.startFeeding(input, speed: 20)
            defer { server.stopFeeding(feeder) }
            var run = Run()
            var lastSample = 0.0
            let deadline = began + Double(seconds) / 20 + 120
            while monotonic() < deadline {
                if monotonic() - lastSample >= 1, let kb = residentKB(p.pid) {
                    run.rss.append((run.lastPos, kb))
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
                    if pos <= run.lastPos || (pos % hop != 0 && pos != frames) { run.offGrid += 1 }
                    run.lastPos = pos
                    run.frameCount += 1
                case "end": run.end = line
                default: run.other.append(line)
                }
            }
            run.wall = monotonic() - began
            let status = p.wait(timeout: 10)
            #expect(status == 0, "stderr: \(p.stderrText)")
            #expect(p.stderrText == "")
            #expect(feeder.wait(timeout: 5), "the feeder finished: \(feeder.error ?? "")")
            let endLine = try #require(run.end, "no end line within the time limit (pos \(run.lastPos))")
            #expect(endLine.int("pos") == frames)
            #expect(endLine.int("recorded_frames") == frames)
            #expect(endLine.int("dropped") == 0)
            #expect(run.offGrid == 0)
            #expect(run.frameCount == frames / hop)
            // Memory: after a warm-up (10 % of the audio), RSS must stay flat.
            let warm = run.rss.first { $0.pos >= frames / 10 } ?? run.rss.first
            let growth = (run.rss.last?.kb ?? 0) - (warm?.kb ?? 0)
            print("""
                soak \(args.joined(separator: " ")): \(seconds) s of audio in \(String(format: "%.1f", run.wall)) s wall \
                (\(String(format: "%.1f", Double(seconds) / run.wall))x), dropped \(endLine.int("dropped") ?? -1), \
                \(run.frameCount) frames, RSS \(run.rss.first?.kb ?? 0) kB at start, \(warm?.kb ?? 0) kB after warm-up, \
                \(run.rss.last?.kb ?? 0) kB at the end, max \(run.rss.map(\.kb).max() ?? 0) kB (\(run.rss.count) samples)
                """)
            #expect(run.rss.count >= 10, "RSS sampled through the run")
            #expect(growth < 8 * 1024, "RSS grew by \(growth) kB after warm-up")
            return run
        }

        @Test("10 minutes at ~20x real time: bit-exact file, nothing dropped, flat memory",
              .enabled(if: Soak.enabled, "set PULSEMETER_SOAK=1 to run the soak (PulseAudio)"))
        func tenMinutes() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("soak")
            defer { Live.removeTree(dir) }
            let input = TestSignal.make(frames: Self.seconds * 48000, seed: 99)
            let file = dir + "/soak.wav"
            _ = try Self.soak(file, ["--bands", "32"], input: input, server: server)
            #expect(try soxFrames(file) == input.count / 2)
            #expect(sampleMismatch(try decodeWithSox(file), input) == nil)
        }

        @Test("10 minutes at ~20x with --split 7 and --events: the files end to end equal the input, nothing dropped, flat memory",
              .enabled(if: Soak.enabled, "set PULSEMETER_SOAK=1 to run the soak (PulseAudio)"))
        func tenMinutesSplit() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("soaksplit")
            defer { Live.removeTree(dir) }
            let input = TestSignal.make(frames: Self.seconds * 48000, seed: 98)
            let run = try Self.soak(dir + "/part.wav", ["--split", "7", "--events"], input: input, server: server)
            let closes = run.other.filter { $0.type == "file" && $0.string("event") == "close" }
            let files = closes.compactMap { $0.string("file") }
            #expect(files.count == (Self.seconds + 6) / 7, "86 files of 7 s")
            #expect(files == (1...files.count).map { dir + "/part-" + String(format: "%03d", $0) + ".wav" })
            var joined: [Int16] = []
            joined.reserveCapacity(input.count)
            for f in files { joined += try decodeWithSox(f) }
            #expect(sampleMismatch(joined, input) == nil)
            print("soak --split 7 --events: \(files.count) files, \(joined.count / 2) frames end to end, \(run.other.filter { $0.type == "event" }.count) event lines")
        }
    }
}
