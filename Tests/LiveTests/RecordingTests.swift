import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    /// What enters the feed source reaches the file bit for bit, whatever the
    /// meter output does and however the run stops.
    @Suite("recording from the feed source")
    struct Recording {
        @Test("record: the file holds the fed samples bit for bit, none missing, none doubled",
              arguments: ["wav", "flac"])
        func bitExact(container: String) throws {
            let server = try Live.server()
            let dir = try Live.tempDir("rec")
            defer { Live.removeTree(dir) }
            let frames = 120_000  // 2.5 s
            let input = TestSignal.make(frames: frames, seed: container == "wav" ? 1 : 2)
            let file = dir + "/x." + container
            let duration = server.feedDuration(frames: frames)
            let (p, start) = try LiveSuite.startRecording(
                file, ["--duration", server.feedDurationArgument(frames: frames)], server: server)
            #expect(start.string("source") == server.feedSource)
            #expect(start.int("rate") == 48000 && start.int("channels") == 2)
            let feeder = server.startFeeding(input, speed: nil)
            defer { server.stopFeeding(feeder) }
            let lines = try parseLines(p.readToEnd(timeout: 30))
            let status = p.wait(timeout: 5)
            #expect(status == 0, "stderr: \(p.stderrText)")
            #expect(p.stderrText == "")
            #expect(feeder.wait(timeout: 5), "the feed source did not take all the input: \(feeder.error ?? "")")

            let end = try #require(lines.last)
            #expect(end.type == "end")
            #expect(end.int("pos") == duration)
            #expect(end.int("recorded_frames") == duration)
            #expect(end.string("file") == file)
            #expect(end.int("dropped") == 0)
            let frameLines = lines.filter { $0.type == "frame" }
            #expect(frameLines.count == duration / 1600 + (duration % 1600 > 0 ? 1 : 0))
            #expect(LiveSuite.positionProblems(frameLines, hop: 1600, endPos: duration) == [])

            let recorded = try decodeWithSox(file)
            #expect(fedAudioProblem(recorded, [input], server: server) == nil)
            #expect(try soxFrames(file) == duration)
            let type = try run(["soxi", "-t", file]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(type == container, "the container should follow the extension")
            if container == "wav" {
                let w = try readWithPythonWave(file, expected: recorded)
                #expect(w.channels == 2 && w.sampleWidth == 2 && w.rate == 48000)
                #expect(w.frames == duration)
                #expect(w.matchesExpectedPrefix, "Python's wave reads the samples sox reads")
            }
        }

        @Test("live frames equal analyze's frames for the same samples (--bands 16)")
        func liveEqualsAnalyze() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("eq")
            defer { Live.removeTree(dir) }
            let frames = 96_000 + 700  // 2 s and a partial hop
            let input = TestSignal.make(frames: frames, seed: 3)
            let file = dir + "/live.wav"
            let duration = server.feedDuration(frames: frames)
            let (p, liveStart) = try LiveSuite.startRecording(
                file, ["--duration", server.feedDurationArgument(frames: frames), "--bands", "16"], server: server)
            let feeder = server.startFeeding(input, speed: 4)
            defer { server.stopFeeding(feeder) }
            let live = try parseLines(p.readToEnd(timeout: 30))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            let liveEnd = try #require(live.last)
            #expect(liveEnd.type == "end")
            #expect(liveEnd.int("dropped") == 0, "a dropped hop would make the comparison meaningless")

            // The same samples through `analyze`: the recording holds exactly the captured
            // samples (checked below: the input, bit for bit, and on PipeWire zeros around it).
            let recorded = try decodeWithSox(file)
            #expect(fedAudioProblem(recorded, [input], server: server) == nil)
            let wav = dir + "/captured.wav"
            try writeWav(recorded, to: wav)
            let a = try pulsemeter(["analyze", wav, "--bands", "16", "-f", "ndjson"], server: nil)
            let analyzed = try parseLines(a.readToEnd(timeout: 30))
            #expect(a.wait(timeout: 5) == 0, "stderr: \(a.stderrText)")
            let fileStart = try #require(analyzed.first)

            for key in ["hop", "window", "fft_size", "rate", "channels"] {
                #expect(liveStart.int(key) == fileStart.int(key), "start line \(key)")
            }
            #expect((liveStart.object["bands_hz"] as? NSArray) == (fileStart.object["bands_hz"] as? NSArray))

            let liveFrames = live.filter { $0.type == "frame" }
            let fileFrames = analyzed.filter { $0.type == "frame" }
            #expect(liveFrames.count == fileFrames.count)
            #expect(liveFrames.count == (duration + 1599) / 1600)
            #expect(liveFrames.allSatisfy { $0.double("ts") != nil && $0.doubles("level")?.count == 2 }, "live frames carry ts and level")
            var differences: [String] = []
            for (l, f) in zip(liveFrames, fileFrames) {
                var lo = l.object, fo = f.object
                lo["ts"] = nil
                fo["ts"] = nil
                lo["level"] = nil  // live only
                if !(lo as NSDictionary).isEqual(to: fo) { differences.append("live \(l.raw)\n  analyze \(f.raw)") }
                if differences.count >= 3 { break }
            }
            #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
            let fileEnd = try #require(analyzed.last)
            #expect(liveEnd.int("pos") == fileEnd.int("pos"))
            #expect(liveEnd.doubles("rms_db") == fileEnd.doubles("rms_db"))
            #expect(liveEnd.doubles("peak_db") == fileEnd.doubles("peak_db"))
        }

        @Test("a reader that stops reading for 3 s costs the recording nothing")
        func stalledReader() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("stall")
            defer { Live.removeTree(dir) }
            let fed = (server.alignedFeed ? 6 : 3) * 48000  // PipeWire feeds at real time
            let input = TestSignal.make(frames: fed, seed: 4)
            // On PipeWire the feed once started 3.003 s after this test's stream (in a CI run's
            // PipeWire stage, which runs alone): 6 s of slack, not the usual 3.
            let slack = 6
            let frames = server.feedDuration(frames: fed, slack: slack)
            let file = dir + "/x.wav"
            // 1000 meter frames per second with 32 bands: far more output than the 4 KiB pipe
            // holds, so the meter blocks on stdout within milliseconds.
            let (p, start) = try LiveSuite.startRecording(
                file, ["--duration", server.feedDurationArgument(frames: fed, slack: slack), "--fps", "1000", "--bands", "32"],
                server: server, pipeSize: 4096)
            let hop = try #require(start.int("hop"))
            #expect(hop == 48)
            let feeder = server.startFeeding(input, speed: nil)
            defer { server.stopFeeding(feeder) }
            // Not reading stdout: the recording must still complete meanwhile.
            let stall = 3 + (server.alignedFeed ? 0 : Double(frames) / 48000)
            let recordedWhileStalled = Wait.value(timeout: stall, interval: 0.25, { (try? soxFrames(file)) ?? 0 },
                                                  until: { $0 >= frames })
            #expect(p.isRunning, "the meter should still be blocked on its unread stdout")
            #expect(recordedWhileStalled == frames, "the recorder must not wait for the meter's reader")

            let lines = try parseLines(p.readToEnd(timeout: 60))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            #expect(p.stderrText == "")
            let end = try #require(lines.last)
            #expect(end.type == "end")
            #expect(end.int("pos") == frames)
            #expect(end.int("recorded_frames") == frames)
            let dropped = try #require(end.int("dropped"))
            #expect(dropped >= 0 && dropped < frames)
            let frameLines = lines.filter { $0.type == "frame" }
            #expect(LiveSuite.positionProblems(frameLines, hop: hop, endPos: frames) == [])
            // Every frame that was analysed is in some meter frame.
            #expect(frameLines.count * hop >= frames - dropped)
            let recorded = try decodeWithSox(file)
            #expect(fedAudioProblem(recorded, [input], server: server) == nil)
            print("live tests: stalled reader: dropped \(dropped) of \(frames) frames, \(frameLines.count) meter frames")
        }

        @Test("more channels than the server's default map (7 to 32): captured in the WAVE order, then auxiliary channels",
              arguments: [8, 32])
        func wideCapture(channels: Int) throws {
            let server = try Live.server()
            let dir = try Live.tempDir("wide")
            defer { Live.removeTree(dir) }
            let file = dir + "/w.wav"
            let r = try LiveSuite.recordFed(file, ["-c", String(channels)], input: TestSignal.make(frames: 48000, seed: 81),
                                            speed: 1, server: server)
            #expect(r.status == 0, "stderr: \(r.stderr)")
            #expect(r.start.int("channels") == channels)
            let soxi = try run(["soxi", "-c", file]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(soxi == String(channels))
            let rms = try #require(r.end?.doubles("rms_db"))
            #expect(rms.count == channels)
            #expect(rms[0] > -40 && rms[1] > -40, "front left and right carry the fed stereo: \(rms.prefix(2))")
        }

        @Test("`record … | head -n 5`: exit 0, nothing on stderr, a valid file")
        func readerGoesAway() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("head")
            defer { Live.removeTree(dir) }
            let input = TestSignal.make(frames: 4 * 48000, seed: 7)
            let file = dir + "/x.wav"
            let (p, _) = try LiveSuite.startRecording(file, [], server: server)
            let feeder = server.startFeeding(input, speed: 1)
            defer { server.stopFeeding(feeder) }
            var got = 1
            while got < 5, p.readLine(timeout: 10) != nil { got += 1 }
            #expect(got == 5)
            p.closeStdout()  // what head does after its 5 lines
            let closed = monotonic()
            let status = p.wait(timeout: 5)
            #expect(status == 0)
            #expect(monotonic() - closed < 3, "pulsemeter should notice the closed pipe at its next frame")
            #expect(p.stderrText == "")
            let recorded = try decodeWithSox(file)
            let w = try readWithPythonWave(file, expected: recorded)
            #expect(w.channels == 2 && w.rate == 48000 && w.sampleWidth == 2)
            #expect(w.frames >= 4 * 1600, "the frames metered before head left are recorded")
            #expect(w.matchesExpectedPrefix && w.frames == recorded.count / 2, "Python's wave reads what sox reads")
            #expect(fedAudioProblem(recorded, [input], server: server, complete: false) == nil)
        }

        @Test("SIGKILL while recording: the file is readable and lacks at most the last second")
        func sigkill() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("kill")
            defer { Live.removeTree(dir) }
            let input = TestSignal.make(frames: 4 * 48000, seed: 8)
            let file = dir + "/x.wav"
            let (p, _) = try LiveSuite.startRecording(file, [], server: server)
            let feeder = server.startFeeding(input, speed: 1)
            defer { server.stopFeeding(feeder) }
            // Up to ~2 s of audio, in real time, then SIGKILL.
            let (lines, reached) = try LiveSuite.readUntil(pos: 96_000, p, timeout: 15)
            #expect(reached)
            let metered = lines.last?.int("pos") ?? 0
            p.signal(SIGKILL)
            #expect(p.wait(timeout: 5) == 128 + SIGKILL)
            let fed = feeder.framesWritten

            let soxSamples = try decodeWithSox(file)
            let w = try readWithPythonWave(file, expected: soxSamples)
            #expect(w.channels == 2 && w.rate == 48000 && w.sampleWidth == 2)
            #expect(w.matchesExpectedPrefix, "Python's wave reads what sox reads")
            #expect(w.frames >= metered - 48000, "at most the last second may be missing (file \(w.frames), metered \(metered))")
            if server.alignedFeed { #expect(w.frames <= fed) }
            #expect(soxSamples.count / 2 == w.frames)
            #expect(fedAudioProblem(soxSamples, [input], server: server, complete: false) == nil,
                    "the file must hold a bit-exact prefix of the input")
        }

        @Test("SIGTERM, SIGINT and SIGHUP (the terminal closed) while recording: exit 0, end line, every captured frame in the file",
              arguments: [SIGTERM, SIGINT, SIGHUP])
        func stopSignal(sig: Int32) throws {
            let server = try Live.server()
            let dir = try Live.tempDir("sig")
            defer { Live.removeTree(dir) }
            let input = TestSignal.make(frames: 3 * 48000, seed: UInt64(10 + sig))
            let file = dir + "/x.wav"
            let (p, _) = try LiveSuite.startRecording(file, [], server: server)
            let feeder = server.startFeeding(input, speed: 1)
            defer { server.stopFeeding(feeder) }
            let (_, reached) = try LiveSuite.readUntil(pos: 48_000, p, timeout: 15)
            #expect(reached)
            p.signal(sig)
            let signalled = monotonic()
            let rest = try parseLines(p.readToEnd(timeout: 10))
            let status = p.wait(timeout: 5)
            #expect(status == 0)
            #expect(monotonic() - signalled < 3)
            #expect(p.stderrText == "")
            let end = try #require(rest.last)
            #expect(end.type == "end")
            let recorded = try #require(end.int("recorded_frames"))
            #expect(end.int("pos") == recorded, "every captured frame is recorded")
            #expect(recorded >= 48_000)
            let samples = try decodeWithSox(file)
            let w = try readWithPythonWave(file, expected: samples)
            #expect(w.frames == recorded)
            #expect(w.matchesExpectedPrefix)
            #expect(samples.count / 2 == recorded)
            #expect(fedAudioProblem(samples, [input], server: server, complete: false) == nil)
        }
    }
}
