import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    /// `play` through the test server's null sink, checked by metering its monitor.
    @Suite("play")
    struct Play {
        typealias Tmux = TerminalMeter.Tmux

        /// A steady stereo tone at -12 dBFS RMS per channel (amplitude 0.355), `seconds` long.
        static func tone(seconds: Double) -> [Int16] {
            let frames = Int(seconds * 48000)
            var out = [Int16](repeating: 0, count: frames * 2)
            let a = pow(10, -12.0 / 20) * sqrt(2) * 32767
            for i in 0..<frames {
                let v = Int16(a * sin(2 * Double.pi * 330 * Double(i) / 48000))
                out[2 * i] = v
                out[2 * i + 1] = v
            }
            return out
        }

        /// Frames of a monitor run as (ts, loudest channel's rms_db).
        static func levels(_ lines: [JSONLine]) -> [(ts: Double, db: Double)] {
            lines.filter { $0.type == "frame" }.compactMap { l in
                guard let ts = l.double("ts"), let rms = l.doubles("rms_db") else { return nil }
                return (ts, rms.max() ?? -160)
            }
        }

        @Test("off a terminal: plays to the end, NDJSON frames for the whole file, the sink hears it at its level")
        func ndjson() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("play")
            defer { Live.removeTree(dir) }
            let file = dir + "/tone.wav"
            let samples = Self.tone(seconds: 2)
            try writeWav(samples, to: file)
            let frames = samples.count / 2

            let monitor = try pulsemeter(["monitor", "-d", "vsink.monitor", "-f", "ndjson"], server: server)
            defer { monitor.kill() }
            _ = monitor.readLine(timeout: 10)  // start line: the monitor is connected
            let play = try pulsemeter(["play", file, "-d", "vsink"], server: server)
            let lines = try parseLines(play.readToEnd(timeout: 20))
            #expect(play.wait(timeout: 5) == 0, "stderr: \(play.stderrText)")
            let start = try #require(lines.first)
            #expect(start.type == "start")
            let hop = try #require(start.int("hop"))
            let frameLines = lines.filter { $0.type == "frame" }
            #expect(frameLines.count == (frames + hop - 1) / hop)
            #expect(frameLines.last?.int("pos") == frames, "the last frame ends at the file's end")
            #expect(frameLines.allSatisfy { $0.double("ts") != nil }, "frames of what is playing carry ts")
            let end = try #require(lines.last)
            #expect(end.type == "end" && end.int("pos") == frames)
            #expect(abs((end.doubles("rms_db")?.first ?? 0) - -12.0) < 0.05)

            // The sink got it at its own level: the monitor's loudest frames read -12 dBFS.
            monitor.signal(SIGINT)
            let heard = Self.levels(try parseLines(monitor.readToEnd(timeout: 10)))
            let loud = heard.map(\.db).max() ?? -160
            #expect(abs(loud - -12.0) < 0.5, "the monitor heard \(loud) dBFS")
        }

        @Test("an m4a plays through ffmpeg: the frames of what plays equal analyze's of the WAV of the same samples")
        func m4a() throws {
            let server = try Live.server()
            let bin = try Live.bin()
            let dir = try Live.tempDir("playm4a")
            defer { Live.removeTree(dir) }
            try writeWav(Self.tone(seconds: 1.5), to: dir + "/tone.wav")
            for args in [["-i", dir + "/tone.wav", "-c:a", "aac", dir + "/voice.m4a"],
                         ["-i", dir + "/voice.m4a", "-c:a", "pcm_f32le", dir + "/voice.wav"]] {
                let r = try run(["ffmpeg", "-nostdin", "-v", "error", "-y"] + args)
                #expect(r.status == 0, "ffmpeg: \(r.stderr)")
            }
            let play = try pulsemeter(["play", dir + "/voice.m4a", "-d", "vsink"], server: server)
            let played = try parseLines(play.readToEnd(timeout: 20))
            #expect(play.wait(timeout: 5) == 0, "stderr: \(play.stderrText)")
            let analyzed = try parseLines(try run([bin, "analyze", dir + "/voice.wav", "-f", "ndjson"]).stdout.split(separator: "\n").map(String.init))
            func levels(_ lines: [JSONLine]) -> [String] {
                let kept = lines.filter { $0.type == "frame" || $0.type == "end" }
                return kept.enumerated().map { i, l in
                    // Not the last frame's rms: through ffmpeg the length is not known in advance,
                    // so a last partial hop's window reaches back to its block (docs/architecture.md, Levels).
                    let rms = i == kept.count - 2 ? [] : (l.doubles("rms_db") ?? [])
                    return "\(l.type) \(l.int("pos") ?? -1) \(rms) \(l.doubles("peak_db") ?? [])"
                }
            }
            #expect(levels(played).count > 40)
            #expect(levels(played) == levels(analyzed))
        }

        @Test("play and analyze of the same surround file: the same start fields, frames and end line, but ts",
              arguments: ["4.0", "5.1(side)"])
        func sameLinesAsAnalyze(layout: String) throws {
            let server = try Live.server()
            let bin = try Live.bin()
            let dir = try Live.tempDir("playlayout")
            defer { Live.removeTree(dir) }
            let file = dir + "/surround.wav"
            // A length off the hop grid (a last partial frame), a level of its own per channel,
            // and a channel mask (WAVE_FORMAT_EXTENSIBLE) naming the channels.
            let channels = layout == "4.0" ? 4 : 6
            let pan = (0..<channels).map { "c\($0)=\(1.0 / Double($0 + 1))*c0" }.joined(separator: "|")
            let r = try run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                             "sine=frequency=440:sample_rate=48000:duration=1.01", "-af", "pan=\(layout)|\(pan)", file])
            #expect(r.status == 0, "ffmpeg: \(r.stderr)")
            let play = try pulsemeter(["play", file, "-d", "vsink", "--loudness"], server: server)
            let played = try parseLines(play.readToEnd(timeout: 20))
            #expect(play.wait(timeout: 5) == 0, "stderr: \(play.stderrText)")
            let analyzed = try parseLines(try run([bin, "analyze", file, "--loudness", "-f", "ndjson"])
                .stdout.split(separator: "\n").map(String.init))
            // Each line as printed, less what play documents as its own: a frame's `ts`, and
            // `psr_db` (the last 3 s of what is heard, as live frames carry it).
            func printed(_ lines: [JSONLine]) throws -> [String] {
                try lines.map { l in
                    var object = l.object
                    object["ts"] = nil
                    object["psr_db"] = nil
                    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                    return String(decoding: data, as: UTF8.self)
                }
            }
            let start = try #require(played.first)
            #expect(start.object["channel_names"] as? [String] == analyzed.first?.object["channel_names"] as? [String])
            #expect(played.count == analyzed.count && played.count > 30)
            #expect(try printed(played) == printed(analyzed))
            #expect(played.filter { $0.type == "frame" }.allSatisfy { $0.object["psr_db"] != nil }, "play's frames carry psr_db")
        }

        @Test("on a terminal: waveform and times, space pauses the clock and the sound, q exits 0 with the cursor back")
        func interactive() throws {
            let server = try Live.server()
            let bin = try Live.bin()
            let dir = try Live.tempDir("playtty")
            defer { Live.removeTree(dir) }
            let file = dir + "/voice.wav"
            try writeWav(Self.tone(seconds: 8), to: file)
            let tmux = Tmux(socket: dir + "/tmux.sock")
            defer { _ = try? tmux("kill-server") }

            let monitor = try pulsemeter(["monitor", "-d", "vsink.monitor", "-f", "ndjson"], server: server)
            defer { monitor.kill() }
            _ = monitor.readLine(timeout: 10)

            let status = dir + "/status"
            try tmux("new-session", "-d", "-s", "play", "-x", "80", "-y", "12",
                     "env -u NO_COLOR PULSE_SERVER='\(server.address)' LANG=C.UTF-8 '\(bin)' play '\(file)' -d vsink; echo $? > '\(status)'; exec sleep 600")
            func screen() throws -> [String] { try tmux.rows("play") }
            func elapsed(_ rows: [String]) -> String? {
                rows.lazy.compactMap { $0.firstMatch(of: /([0-9]+:[0-9]{2}) \/ 0:08/).map { String($0.output.1) } }.first
            }
            let playing = try tmux.waitFor("play", timeout: 10) { elapsed($0) == "0:01" }
            #expect(elapsed(playing) == "0:01", "the clock runs: \(playing)")
            #expect(playing.contains { $0.hasPrefix("▶ voice.wav") }, "title row: \(playing)")
            let glyphs = Set("▁▂▃▄▅▆▇█")
            let wave = try #require(playing.first { row in
                let t = row.trimmingCharacters(in: .whitespaces)
                return !t.isEmpty && t.allSatisfy { glyphs.contains($0) }
            }, "a waveform row: \(playing)")
            #expect(wave.count >= 70, "the waveform spans the width: \(wave.count)")
            #expect(try tmux.flags("play").cursor == "0")

            // Pause: the clock stops, and within half a second the sink hears silence.
            try tmux("send-keys", "-t", "play", "Space")
            let pausedAt = Date().timeIntervalSince1970
            let paused = try tmux.waitFor("play", timeout: 3) { $0.contains { $0.contains("paused") } }
            #expect(paused.contains { $0.hasPrefix("⏸ voice.wav") }, "\(paused)")
            let clock = elapsed(paused)
            Wait.passing(seconds: 1.5)  // the input: time, in which a running clock would move
            #expect(elapsed(try screen()) == clock, "the clock stands still while paused")
            let resumedAt = Date().timeIntervalSince1970
            try tmux("send-keys", "-t", "play", "Space")
            let resumed = try tmux.waitFor("play", timeout: 4) { elapsed($0) != clock && !$0.contains { $0.contains("paused") } }
            #expect(elapsed(resumed) != clock, "the clock runs again")
            // Its next tick: a second more played since the first, all after the resume.
            try tmux.waitFor("play", timeout: 4) { elapsed($0) != elapsed(resumed) && elapsed($0) != nil }

            // q: exit 0, cursor visible, main screen back.
            try tmux("send-keys", "-t", "play", "q")
            #expect(Wait.statusFile(status, timeout: 5) == "0")
            let after = try tmux.flags("play")
            #expect(after.cursor == "1" && after.alternate == "0", "terminal restored: \(after)")

            monitor.signal(SIGINT)
            let heard = Self.levels(try parseLines(monitor.readToEnd(timeout: 10)))
            let before = heard.filter { $0.ts < pausedAt }.map(\.db)
            let silent = heard.filter { $0.ts > pausedAt + 0.5 && $0.ts < resumedAt }.map(\.db)
            let again = heard.filter { $0.ts > resumedAt + 0.5 && $0.ts < resumedAt + 1.0 }.map(\.db)
            #expect((before.max() ?? -160) > -13, "heard the tone before the pause: \(before.max() ?? -160)")
            #expect(!silent.isEmpty && silent.allSatisfy { $0 < -60 }, "silence while paused: \(silent.max() ?? 0)")
            #expect((again.max() ?? -160) > -13, "heard the tone again after resuming: \(again.max() ?? -160)")
        }
    }
}
