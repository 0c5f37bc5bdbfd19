import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    @Suite("application sources")
    struct AppSource {
        /// A sine of RMS `rmsDb` dBFS on both channels, `seconds` long, interleaved s16.
        static func tone(rmsDb: Double, hz: Double, seconds: Double) -> [Int16] {
            let a = pow(10, rmsDb / 20) * sqrt(2) * 32767
            return (0..<Int(seconds * Double(Live.rate))).flatMap { i -> [Int16] in
                let v = Int16(a * sin(2 * Double.pi * hz * Double(i) / Double(Live.rate)))
                return [v, v]
            }
        }

        /// pacat playing `samples` into vsink as the application `name`.
        static func player(_ name: String, _ samples: [Int16], server: PulseServer, dir: String) throws -> Subprocess {
            let file = dir + "/\(name)-\(UUID().uuidString).raw"  // two players of one name: two files
            try writeRaw(samples, to: file)
            return try server.player(file: file, application: name)
        }

        /// The loudest frame level after the `device` line that says a stream is metered.
        static func check(_ lines: [JSONLine], expectDb: Double, sourceLocation: SourceLocation = #_sourceLocation) {
            let devices = lines.filter { $0.type == "device" }
            let playing = devices.firstIndex { $0.int("streams") == 1 && $0.object["waiting"] as? Bool == false }
            #expect(playing != nil, "a device line with one stream: \(devices.map(\.raw))", sourceLocation: sourceLocation)
            let levels = lines.filter { $0.type == "frame" }.compactMap { $0.doubles("rms_db")?.first }
            let loudest = levels.max() ?? -999
            #expect(abs(loudest - expectDb) < 0.5, "the application's level, not the louder one's: \(loudest)",
                    sourceLocation: sourceLocation)
            let steady = levels.filter { abs($0 - expectDb) < 0.2 }.count
            #expect(steady >= 30, "a second of frames at the level: \(steady)", sourceLocation: sourceLocation)
        }

        @Test("app:NAME started before the application: waits and says so, then meters only it while another plays louder")
        func byNameStartedFirst() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("app")
            defer { Live.removeTree(dir) }
            let p = try pulsemeter(["monitor", "-d", "app:PM-Tagged", "-f", "ndjson", "--duration", "6"], server: server)
            let waited = p.readLines(until: { $0.contains("\"type\":\"device\"") }, timeout: 10)
            #expect(waited.matched, "a device line while waiting; stderr: \(p.stderrText)")
            let first = try parseLines(waited.lines)
            #expect(first.first?.string("source") == "app:PM-Tagged")
            let waiting = try #require(first.last)
            #expect(waiting.object["waiting"] as? Bool == true && waiting.int("streams") == 0, "\(waiting.raw)")
            let tagged = try Self.player("pm-tagged", Self.tone(rmsDb: -15, hz: 440, seconds: 8), server: server, dir: dir)
            defer { tagged.kill() }
            let other = try Self.player("pm-other", Self.tone(rmsDb: -4, hz: 1000, seconds: 8), server: server, dir: dir)
            defer { other.kill() }
            let lines = try parseLines(p.readToEnd(timeout: 20))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            Self.check(first + lines, expectDb: -15)
            #expect(lines.last?.type == "end" && lines.last?.int("pos") == 6 * Live.rate)
        }

        @Test("app:PID meters the process's stream; devices --apps lists it with its pid and sink")
        func byPid() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("apppid")
            defer { Live.removeTree(dir) }
            let tagged = try Self.player("pm-bypid", Self.tone(rmsDb: -20, hz: 440, seconds: 8), server: server, dir: dir)
            defer { tagged.kill() }
            let other = try Self.player("pm-loud", Self.tone(rmsDb: -6, hz: 1000, seconds: 8), server: server, dir: dir)
            defer { other.kill() }
            let listed = try Wait.value(timeout: 5, interval: 0.1, {
                let l = try pulsemeter(["devices", "--apps", "--json"], server: server)
                let out = l.readToEnd(timeout: 10).joined()
                #expect(l.wait(timeout: 5) == 0, "stderr: \(l.stderrText)")
                let list = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
                return list.first { $0["application"] as? String == "pm-bypid" }
            }, until: { $0 != nil })
            let entry = try #require(listed, "devices --apps lists the player")
            #expect((entry["pid"] as? NSNumber)?.int32Value == tagged.pid)
            #expect(entry["binary"] as? String == "pacat" && entry["sink"] as? String == "vsink", "\(entry)")
            #expect(entry["index"] is NSNumber)
            let p = try pulsemeter(["monitor", "-d", "app:\(tagged.pid)", "-f", "ndjson", "--duration", "4"], server: server)
            let lines = try parseLines(p.readToEnd(timeout: 20))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            #expect(lines.first?.string("source") == "app:\(tagged.pid)")
            Self.check(lines, expectDb: -20)
        }

        @Test("app:NAME matching nothing waits (no error) and --duration still ends the run")
        func nothingMatches() throws {
            let server = try Live.server()
            let p = try pulsemeter(["monitor", "-d", "app:nobody-plays-this", "-f", "ndjson", "--duration", "1"], server: server)
            let lines = try parseLines(p.readToEnd(timeout: 15))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            let device = try #require(lines.first { $0.type == "device" })
            #expect(device.object["waiting"] as? Bool == true)
            #expect(lines.last?.type == "end" && lines.last?.int("pos") == Live.rate)
            #expect(lines.filter { $0.type == "frame" }.allSatisfy { $0.doubles("rms_db") == [-160, -160] })

            // The terminal meter says what it waits for (its closing line names it too).
            let ansi = try pulsemeter(["monitor", "-d", "app:nobody-plays-this", "-f", "ansi", "--duration", "0.5"],
                                      server: server, env: ["TERM": "dumb"])
            let screen = ansi.readToEnd(timeout: 15).joined(separator: "\n")
            #expect(ansi.wait(timeout: 5) == 0, "stderr: \(ansi.stderrText)")
            #expect(screen.contains("waiting for nobody-plays-this"), "\(screen)")
        }

        /// A second null sink on the test server, for an application playing on two sinks.
        static func secondSink(_ server: PulseServer) throws -> String {
            let name = "pmapp2"
            let listed = try run(["pactl", "list", "short", "sinks"], env: server.environment).stdout
            if !listed.split(separator: "\n").contains(where: { $0.split(separator: "\t").dropFirst().first == Substring(name) }) {
                let r = try run(["pactl", "load-module", "module-null-sink", "sink_name=\(name)", "rate=48000", "channels=2"],
                                env: server.environment)
                guard r.status == 0 else { throw LiveSetupError("pactl load-module: \(r.stderr)") }
            }
            let ready = Wait.until(timeout: 10, interval: 0.05) {
                (try? run(["pactl", "list", "short", "sinks"], env: server.environment).stdout.contains(name)) == true
            }
            guard ready else { throw LiveSetupError("the sink \(name) never appeared") }
            return name
        }

        /// The frames of one run that plays: once the application's audio starts, none reads
        /// silence (unless `silence` is false), and, when `levels`, every frame reads the two
        /// streams' sum on both channels (two -20 dBFS tones of 440 and 1000 Hz, whose powers add
        /// in any 50 ms window to 0.03 dB: 10 log10(2) dB more). A frame whose window reaches back
        /// into the silence before the application played (the first one after silent frames) is
        /// the window's, not a reading of silence, and is left out.
        static func inventedSilence(_ lines: [JSONLine], run k: Int, silence: Bool, levels checkLevels: Bool) -> [String] {
            let expected = -20 + 10 * log10(2.0)
            let levels = lines.filter { $0.type == "frame" }.compactMap { $0.doubles("rms_db") }
            guard let first = levels.firstIndex(where: { $0.allSatisfy { $0 > -100 } }) else {
                return ["run \(k): no frame of the application's audio in \(levels.count)"]
            }
            if silence, levels[first...].contains(where: { $0.contains(-160) }) {
                return ["run \(k): a frame of silence after the audio started"]
            }
            guard checkLevels else { return [] }
            let playing = levels[(first == 0 ? first : first + 1)...]
            let off = playing.enumerated().filter { _, l in l.contains { abs($0 - expected) > 0.5 } }
            guard off.isEmpty else {
                return ["run \(k): \(off.count) of \(playing.count) frames after the audio started are off \(expected): "
                        + "\(off.prefix(3).map { "#\($0.offset) \($0.element)" })"]
            }
            return []
        }

        /// A recording of one player's stream made beside the meters by the server's own client
        /// (`PulseServer.streamRecorder`), for run `run`.
        struct ServerCopy {
            let run: Int
            let file: String
            let recorder: Subprocess
        }

        /// Waits until each application of `names` has `streams` playback streams, then records
        /// every one of them (`ServerCopy`). Meanwhile `restartEnded` starts again the players
        /// that ended before their stream appeared and returns what they said (CI80: one stream
        /// of ten never appeared on PulseAudio).
        static func serverCopies(of names: [String], streams: Int, server: PulseServer, dir: String,
                                 restartEnded: () throws -> [String]) throws -> [ServerCopy] {
            func complete(_ inputs: [(index: Int, application: String)]) -> Bool {
                names.allSatisfy { n in inputs.filter { $0.application == n }.count == streams }
            }
            var ended: [String] = []
            let listed = try Wait.value(timeout: 10, interval: 0.05, {
                ended += try restartEnded()
                return (try? server.sinkInputs()) ?? []  // pactl refused (a busy PulseAudio): look again
            }, until: complete)
            guard complete(listed) else {
                throw LiveSetupError("the players' streams never all appeared: \(listed); players that ended: \(ended)")
            }
            return try listed.compactMap { input in
                guard let k = names.firstIndex(of: input.application) else { return nil }
                let file = dir + "/copy-\(input.index).raw"
                return ServerCopy(run: k, file: file, recorder: try server.streamRecorder(index: input.index, file: file))
            }
        }

        /// How the server's own copy of a stream of one -20 dBFS tone (float32 stereo) played:
        /// each 50 ms window (the meter's), every 10 ms from its first sound, that reads more than
        /// 0.3 dB off the tone ("0.23 s: -21.40"), and whether one held only zeros.
        static func serverDips(_ file: String) -> (dips: [String], silent: Bool) {
            let data = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
            let x: [Float] = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let channels = Live.channels, window = Live.rate / 20, step = Live.rate / 100
            let frames = x.count / channels
            guard let start = (0..<frames).first(where: { x[$0 * channels] != 0 }) else { return ([], false) }
            // Per channel, the running sum of squares from `start`: a window's energy is a difference.
            let sums = (0..<channels).map { c in
                (start..<frames).reduce(into: [0.0]) { s, i in s.append(s.last! + Double(x[i * channels + c]) * Double(x[i * channels + c])) }
            }
            var dips: [String] = []
            var silent = false
            for at in stride(from: 0, through: frames - start - window, by: step) {
                let energies = sums.map { $0[at + window] - $0[at] }
                silent = silent || energies.contains(0)
                let worst = energies.map { 10 * log10(max($0 / Double(window), 1e-20)) }.max { abs($0 + 20) < abs($1 + 20) }!
                if abs(worst + 20) > 0.3 { dips.append(String(format: "%.2f s: %.2f", Double(at) / Double(Live.rate), worst)) }
            }
            return (dips, silent)
        }

        @Test("app:NAME never reads silence while the application plays: 50 runs with it already playing, 50 with it starting after the meter (two streams on two sinks, two tones)",
              arguments: [true, false])
        func noInventedSilence(alreadyPlaying: Bool) throws {
            let server = try Live.server()
            let dir = try Live.tempDir("appsilence")
            defer { Live.removeTree(dir) }
            let sinks = ["vsink", try Self.secondSink(server)]
            // Each player plays a minute, longer than a batch can take on a loaded machine: CI52's
            // first batch started its meters more than the 10 s its players then played after
            // starting them (one stream of two left when the meters started, the other soon
            // after). One second holds whole cycles of both tones, and is repeated.
            let files = try [440.0, 1000.0].map { hz in
                let file = dir + "/tone\(Int(hz)).raw"
                try writeRaw(Array(repeatElement(Self.tone(rmsDb: -20, hz: hz, seconds: 1), count: 60).joined()), to: file)
                return file
            }
            // Five runs at once, each its own application name, ten times over; each run's first
            // 40 frames of the application's audio are checked, all made before any run of the
            // batch stops (a stream leaving a sink makes PulseAudio rewind it, which the others'
            // monitors see as a lump).
            //
            // The server's own audio can dip. On PipeWire, with streams connecting to the graph and
            // a busy core beside, a stream lost a quantum now and then (256 frames of zeros at the
            // quantum that 10 ms fragments ask for: 0.5 dB low in a 50 ms window), sometimes more,
            // up to frames of silence; parec's recording of the stream (its sink's monitor for that
            // stream, as the meter reads it) held the same dip, at the same moment for every run of
            // the batch. So every stream is recorded beside the meters (`serverCopies`), and a run
            // whose copies dipped is not held to the sum (nor, when a copy fell silent, to no
            // silence); at least half the runs must be held to both. The failures of CI67 and of
            // stop 53's CI (frames 0.5 to 0.9 dB low in four or five runs of one batch, at one
            // moment) have that signature. Not explained: one run in about 300 beside a busy core
            // read a frame 0.59 dB low with its copies steady.
            var problems: [String] = []
            var excused: [String] = []
            for batch in 0..<10 {
                let names = (0..<5).map { "pm-tones-\(alreadyPlaying ? "a" : "b")-\(batch)-\($0)" }
                var playing: [Subprocess] = []
                var starts: [() throws -> Subprocess] = []  // each player's start, to start it again
                defer { for p in playing { p.kill() } }
                func players(_ name: String) throws {
                    for (file, sink) in zip(files, sinks) {
                        let start = { try server.player(file: file, into: sink, application: name) }
                        starts.append(start)
                        playing.append(try start())
                    }
                }
                /// Starts again each player that ended (it plays a minute); says what each said.
                func restartEnded() throws -> [String] {
                    var said: [String] = []
                    for i in playing.indices where !playing[i].isRunning {
                        said.append("exit \(playing[i].exitStatus().map(String.init) ?? "?"): \(playing[i].stderrText)")
                        playing[i] = try starts[i]()
                    }
                    return said
                }
                var copies: [ServerCopy] = []
                defer { for c in copies { c.recorder.kill() } }
                let started = Wait.now()
                if alreadyPlaying {
                    for name in names { try players(name) }
                    copies = try Self.serverCopies(of: names, streams: sinks.count, server: server, dir: dir, restartEnded: restartEnded)
                }
                let meters = try names.map { try pulsemeter(["monitor", "-d", "app:\($0)", "-f", "ndjson"], server: server) }
                defer { for m in meters { m.kill() } }
                if !alreadyPlaying {
                    for m in meters {
                        #expect(m.readLines(until: { $0.contains("\"waiting\":true") }, timeout: 10).matched,
                                "no waiting line; stderr: \(m.stderrText)")
                    }
                    for name in names { try players(name) }
                    copies = try Self.serverCopies(of: names, streams: sinks.count, server: server, dir: dir, restartEnded: restartEnded)
                }
                let checked = try meters.enumerated().map { k, m in
                    var audible = 0
                    let read = m.readLines(until: { line in
                        if line.contains("\"type\":\"frame\""), !line.contains("-160.0") { audible += 1 }
                        return audible > 40
                    }, timeout: 20)
                    let ended = playing.filter { !$0.isRunning }.count
                    #expect(read.matched, "run \(batch * 5 + k): no 40 frames of audio \(Wait.now() - started) s after the players started (\(ended) of \(playing.count) ended); stderr: \(m.stderrText)")
                    return try parseLines(read.lines)
                }
                let read = String(format: "%.1f s after the players started, %d of %d ended", Wait.now() - started,
                                  playing.filter { !$0.isRunning }.count, playing.count)
                for m in meters { m.signal(SIGTERM) }
                for (k, m) in meters.enumerated() {
                    let rest = try parseLines(m.readToEnd(timeout: 10))
                    #expect(m.wait(timeout: 5) == 0, "stderr: \(m.stderrText)")
                    #expect(rest.last?.type == "end", "run \(batch * 5 + k) did not end")
                }
                for c in copies { c.recorder.kill() }  // before the players: their end is no dip
                for p in playing { p.kill() }
                for k in meters.indices {
                    let run = batch * 5 + k
                    let own = copies.filter { $0.run == k }.map { Self.serverDips($0.file) }
                    let dips = own.flatMap(\.dips), silent = own.contains(where: \.silent)
                    if !dips.isEmpty { excused.append("run \(run): the server's copies\(silent ? " fell silent," : "") \(dips.prefix(3))") }
                    problems += Self.inventedSilence(checked[k], run: run, silence: !silent, levels: dips.isEmpty)
                        .map { "\($0) (read \(read); the server's own copies \(dips.isEmpty ? "steady" : "\(dips.prefix(3))"))" }
                }
            }
            #expect(problems.isEmpty, "\(problems.count) of 50 runs: \(problems.prefix(5))")
            #expect(excused.count <= 25, "the server's own audio dipped in \(excused.count) of 50 runs, too few held to the sum: \(excused.prefix(5))")
        }

        @Test("several streams of the application at once are summed, and followed as they come and go")
        func summedAndFollowed() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("appsum")
            defer { Live.removeTree(dir) }
            // Longer than the test can take: the first application plays to the end.
            let first = try Self.player("pm-duo", Self.tone(rmsDb: -20, hz: 440, seconds: 30), server: server, dir: dir)
            defer { first.kill() }
            let p = try pulsemeter(["monitor", "-d", "app:pm-duo", "-f", "ndjson"], server: server)
            defer { p.kill() }
            let one = p.readLines(until: { $0.contains("\"streams\":1") }, timeout: 10)
            #expect(one.matched, "one stream; stderr: \(p.stderrText)")
            // The first stream as the server itself delivers it (see noInventedSilence).
            let copy = try #require(try Self.serverCopies(of: ["pm-duo"], streams: 1, server: server, dir: dir, restartEnded: { [] }).first)
            defer { copy.recorder.kill() }
            Wait.passing(seconds: 1.5)  // the input: a stretch with one stream
            let second = try Self.player("pm-duo", Self.tone(rmsDb: -20, hz: 660, seconds: 30), server: server, dir: dir)
            defer { second.kill() }
            let two = p.readLines(until: { $0.contains("\"streams\":2") }, timeout: 10)
            #expect(two.matched, "two streams")
            Wait.passing(seconds: 2)  // the input: a stretch with both
            second.kill()
            // Back to one stream, then 40 frames more: the last 20 of them are the first alone.
            let back = p.readLines(until: { $0.contains("\"streams\":1") }, timeout: 10)
            #expect(back.matched, "back to one stream; stderr: \(p.stderrText)")
            var after = 0
            let alone = p.readLines(until: { line in
                if line.contains("\"type\":\"frame\"") { after += 1 }
                return after >= 40
            }, timeout: 10)
            #expect(alone.matched, "40 frames after the second stream left")
            p.signal(SIGTERM)
            let rest = try parseLines(p.readToEnd(timeout: 20))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            #expect(rest.last?.type == "end")
            let lines = try parseLines(one.lines + two.lines + back.lines + alone.lines) + rest
            let devices = lines.filter { $0.type == "device" }.compactMap { $0.int("streams") }
            #expect(devices.starts(with: [0, 1, 2]) || devices.starts(with: [1, 2]), "\(devices)")
            #expect(devices.last == 1, "back to one stream when the second ended: \(devices)")
            // Two tones of -20 dBFS RMS at different frequencies add in power: 10*log10(2) = 3.01 dB more.
            let levels = lines.filter { $0.type == "frame" }.compactMap { $0.doubles("rms_db")?.first }
            let summed = levels.filter { abs($0 - (-20 + 10 * log10(2.0))) < 0.3 }.count
            #expect(summed >= 15, "frames at the summed level: \(summed) of \(levels.count)")
            let last = try parseLines(alone.lines).filter { $0.type == "frame" }.compactMap { $0.doubles("rms_db")?.first }.suffix(20)
            copy.recorder.kill()
            // Each frame reads the first stream alone: within 0.5 dB of -20; where the server's own
            // copy of it dipped (CI79: one frame 0.55 dB low on PipeWire), still nearer -20 than the
            // sum, and not silence.
            let steady = Self.serverDips(copy.file).dips.isEmpty
            let off = last.filter { abs($0 - -20) >= 0.5 }
            #expect(last.count == 20 && (off.isEmpty || (!steady && off.allSatisfy { $0 < -18.5 && $0 > -100 })),
                    "the first alone at the end: \(Array(last)); the server's own copy \(steady ? "steady" : "dipped")")
        }
    }
}
