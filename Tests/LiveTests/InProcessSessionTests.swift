import Foundation
import Glibc
import MeterCore
import MeterIO
import Synchronization
import Testing
import TestSupport

extension LiveSuite {
    /// MeterSession (its live sources and a played file) runs inside the test process (not as a subprocess),
    /// so that `swift test --sanitize=thread` (scripts/test) watches their threads, handoffs
    /// and cancellation against the real private server.
    @Suite("sessions in process")
    struct InProcess {
        /// Collects frames on the analysis thread; read after `run` returns (`count` meanwhile).
        typealias Collect = RecordingSink

        /// Points libpulse in this process at the test server.
        static func useServer(_ server: PulseServer) {
            setenv("PULSE_SERVER", server.address, 1)
        }

        @Test("live session: every fed frame recorded and metered, hop by hop, nothing dropped")
        func liveSessionRecordsAndMeters() throws {
            let server = try Live.server()
            Self.useServer(server)
            let dir = try Live.tempDir("inproc")
            defer { Live.removeTree(dir) }
            let frames = 48_000 + 300
            let input = TestSignal.make(frames: frames, seed: 21)
            let file = dir + "/x.wav"
            server.drainFeed()
            let settings = MeterSettings(rate: 48000, channels: 2, fps: 60, bands: 16)
            let duration = server.feedDuration(frames: frames)
            let session = try MeterSession(SessionDescription(sources: [.init(live: LiveOptions(
                device: server.feedSource, settings: ValidSettings(settings), durationFrames: duration, recordPath: FilePath(file)))]),
                cancellation: Cancellation())
            let feeder = server.startFeeding(input, speed: nil)
            defer { server.stopFeeding(feeder) }
            let sink = Collect()
            let summary = try #require(try session.run(into: [sink]).first)
            #expect(summary.pos == duration && summary.dropped == 0 && summary.recordedFrames == duration)
            #expect(sink.frames.map(\.pos) == Array(stride(from: 800, through: duration, by: 800)) + [duration])
            let recorded = try decodeWithSox(file)
            #expect(fedAudioProblem(recorded, [input], server: server) == nil)
        }

        @Test("live session: a cancellation from another thread ends the run with its summary")
        func liveSessionCancels() throws {
            let server = try Live.server()
            Self.useServer(server)
            let cancellation = Cancellation()
            server.drainFeed()
            let session = try MeterSession(SessionDescription(sources: [.init(live: LiveOptions(
                device: server.feedSource, settings: ValidSettings(MeterSettings(fps: 30))))]), cancellation: cancellation)
            let feeder = server.startFeeding(TestSignal.make(frames: 48000 * 5, seed: 8), speed: 1)
            defer { server.stopFeeding(feeder) }
            let sink = Collect()
            let canceller = Thread {
                // Half a second metered (15 frames at 30 fps): the run is under way.
                let underWay = Wait.until(timeout: 20, interval: 0.01) { sink.count.load(ordering: .acquiring) >= 15 }
                #expect(underWay, "the run never metered half a second")
                cancellation.cancel()
            }
            canceller.start()
            let summary = try #require(try session.run(into: [sink]).first)
            #expect(summary.pos > 0 && summary.pos < 48000 * 10)
            #expect(sink.summary != nil)
            #expect(sink.frames.last.map { summary.pos - $0.pos < 1600 } == true)
        }

        @Test("live session on a source that delivers nothing: a cancellation from another thread wakes the read, the run ends at once with its summary")
        func silentSourceCancels() throws {
            let server = try Live.server()
            Self.useServer(server)
            server.drainFeed()
            let cancellation = Cancellation()
            let session = try MeterSession(SessionDescription(sources: [.init(live: LiveOptions(
                device: server.feedSource, settings: ValidSettings(MeterSettings(fps: 30))))]), cancellation: cancellation)
            let sink = Collect()
            let cancelledAt = Atomic<Double>(0)
            let canceller = Thread {
                let started = Wait.until(timeout: 20, interval: 0.01) { sink.started.load(ordering: .acquiring) }
                #expect(started, "no start call")
                cancelledAt.store(monotonic(), ordering: .releasing)
                cancellation.cancel()
            }
            canceller.start()
            let summary = try #require(try session.run(into: [sink]).first)
            let seconds = monotonic() - cancelledAt.load(ordering: .acquiring)
            #expect(seconds < LiveSuite.StopLatency.bound, "the run ended \(seconds) s after the cancellation")
            #expect(summary.pos == 0, "nothing was fed")
            #expect(sink.summary != nil)
        }

        @Test("an application source in process: the application's stream, starting mid-run, is followed on the connection's loop thread while the capture reads, metered at its level, and a cancellation ends the run with its summary")
        func appSource() throws {
            let server = try Live.server()
            Self.useServer(server)
            let dir = try Live.tempDir("inapp")
            defer { Live.removeTree(dir) }
            let cancellation = Cancellation()
            let session = try MeterSession(SessionDescription(sources: [.init(live: LiveOptions(
                device: "app:pm-inproc", settings: ValidSettings(MeterSettings(fps: 30))))]), cancellation: cancellation)
            let sink = Collect()
            let canceller = Thread {
                #expect(Wait.until(timeout: 20, interval: 0.01) { sink.started.load(ordering: .acquiring) }, "no start call")
                let player = try? AppSource.player("pm-inproc", AppSource.tone(rmsDb: -15, hz: 440, seconds: 10),
                                                   server: server, dir: dir)
                defer { player?.kill() }
                #expect(player != nil, "pacat started")
                // Four seconds of frames after the player started: its monitor stream delivers
                // within 0.8 to 1.8 s, so two seconds of them are the application's.
                let from = sink.count.load(ordering: .acquiring)
                #expect(Wait.until(timeout: 20, interval: 0.01) { sink.count.load(ordering: .acquiring) >= from + 120 })
                cancellation.cancel()
            }
            canceller.start()
            let summary = try #require(try session.run(into: [sink]).first)
            #expect(Wait.until(timeout: 5) { canceller.isFinished })
            #expect(sink.summary != nil && summary.pos > 0)
            let devices = sink.journal.filter { $0.kind == "device" }
            #expect(devices.count >= 2, "waiting, then one stream: \(devices)")
            let levels = sink.frames.map { $0.rmsDb[0] }
            #expect(levels.filter { abs($0 + 15) < 0.2 }.count >= 30, "a second of frames at the application's level: \(levels)")
            #expect(levels.allSatisfy { $0 < -14.5 }, "nothing louder than the application: \(levels.max() ?? 0)")
        }

        @Test("two live sources in one MeterSession: their start calls first, then both metered to their ends, one call at a time")
        func sessionGroup() throws {
            let server = try Live.server()
            Self.useServer(server)
            let cancellation = Cancellation()
            let sources = try (0..<2).map { k in
                var o = try LiveOptions(device: "vsink.monitor", settings: ValidSettings(MeterSettings(fps: 30)), durationFrames: 24_000)
                o.stream = k
                return SessionDescription.Source(live: o)
            }
            // Every call's kind and stream, in order, unsynchronized (`RecordingSink`): the session
            // group must make the calls one at a time (ThreadSanitizer reports it otherwise).
            let sink = RecordingSink()
            let session = try MeterSession(SessionDescription(sources: sources), cancellation: cancellation)
            let summaries = try session.run(into: [sink])
            let calls = sink.journal.filter { $0.kind != "idle" }  // the calls but idle redraws
            #expect(summaries.map(\.pos) == [24_000, 24_000] && summaries.map(\.stream) == [0, 1])
            #expect(calls.prefix(2).map(\.kind) == ["start", "start"] && calls.prefix(2).map(\.stream) == [0, 1])
            #expect(calls.filter { $0.kind == "start" }.count == 2)
            for k in 0..<2 {
                let mine = calls.filter { $0.stream == k }
                #expect(mine.filter { $0.kind == "frame" }.count == 15 && mine.last?.kind == "end", "stream \(k)")
            }
        }

        @Test("playback session: plays a file to the end, metering every hop of it")
        func playbackSession() throws {
            let server = try Live.server()
            Self.useServer(server)
            let dir = try Live.tempDir("inplay")
            defer { Live.removeTree(dir) }
            let file = dir + "/t.wav"
            let frames = 24_000
            try writeWav(TestSignal.make(frames: frames, seed: 5), to: file)
            let sink = Collect()
            let source = try PlaybackSource(path: FilePath(file), device: "vsink")
            let settings = try ValidSettings(MeterSettings(rate: source.rate, channels: source.channels))
            let session = try MeterSession(SessionDescription(sources: [.init(played: source, settings: settings)]),
                                           cancellation: Cancellation())
            try session.start(into: [sink])
            try session.finish()
            #expect(session.isFinished && source.playedToEnd && source.position == frames)
            #expect(sink.frames.map(\.pos) == Array(stride(from: 1600, through: frames, by: 1600)))
            #expect(sink.summary?.pos == frames)
        }
    }
}
