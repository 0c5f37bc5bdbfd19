import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// Loudness live, through the same pipeline as files.
    @Suite("loudness")
    struct Loudness {
        /// A stereo 1 kHz tone at -23 LUFS: -23 dBFS amplitude on both channels (at 1 kHz the
        /// K-weighting's gain cancels BS.1770's -0.691, and two channels add 3 dB to the
        /// 3 dB a sine's mean square is under its peak), as s16.
        static func tone(seconds: Double, lufs: Double) -> [Int16] {
            let frames = Int(seconds * 48000)
            var out = [Int16](repeating: 0, count: frames * 2)
            let a = pow(10, lufs / 20) * 32768
            for i in 0..<frames {
                let v = Int16((a * sin(2 * Double.pi * 1000 * Double(i) / 48000)).rounded())
                out[2 * i] = v
                out[2 * i + 1] = v
            }
            return out
        }

        @Test("monitor --target -23: a -23 LUFS tone through the pipe source reads short-term -23 +-0.15; the end line's loudness is analyze's of what it recorded")
        func monitorReadsTheTone() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("ltone")
            defer { Live.removeTree(dir) }
            let recording = dir + "/tone.wav"
            server.drainFeed()
            // On PipeWire the tone comes after some silence: more of run.
            let p = try pulsemeter(["monitor", "-d", server.feedSource, "-f", "ndjson", "--target", "-23",
                                    "--duration", server.feedDurationArgument(frames: 6 * 48000), "--fps", "10",
                                    "--record", recording],
                                   server: server)
            defer { p.kill() }
            let first = try #require(p.readLine(timeout: 15), "no start line; stderr: \(p.stderrText)")
            let start = try JSONLine(first)
            #expect(start.type == "start" && start.object["loudness"] as? Bool == true)
            let feeder = server.startFeeding(Self.tone(seconds: 6, lufs: -23), speed: 3)
            defer { server.stopFeeding(feeder) }
            let lines = try parseLines(p.readToEnd(timeout: 30))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            let frames = lines.filter { $0.type == "frame" }
            // Where the tone began (0 on PulseAudio): the hop before the first audible frame.
            let onset = (frames.first { ($0.doubles("rms_db")?.max() ?? -160) > -60 }?.int("pos") ?? 0) - 4800
            let steady = frames.filter { ($0.int("pos") ?? 0) >= max(0, onset) + 3 * 48000 && ($0.int("pos") ?? 0) <= onset + 6 * 48000 }
            #expect(steady.count >= 25)
            for f in steady {
                let s = try #require(f.double("lufs_s"))
                #expect(abs(s - -23) <= 0.15, "lufs_s \(s) at \(f.int("pos") ?? -1)")
                #expect(abs((f.double("lufs_m") ?? 0) - -23) <= 0.15)
            }
            let end = try #require(lines.last)
            #expect(end.type == "end" && end.int("dropped") == 0)
            // Live frames carry the loudness range so far; the last one is the end line's.
            #expect(frames.allSatisfy { $0.double("lra") != nil })
            // (Not near 0: on PipeWire silence comes before the tone, and windows over the onset
            // spread the short-term values.)
            #expect(frames.last?.double("lra") == end.double("lra"))
            let i = try #require(end.double("lufs_i"))
            // The integrated loudness is that of everything captured: analyze of the recording
            // gives the same end line's loudness.
            let a = try pulsemeter(["analyze", recording, "--loudness", "-f", "ndjson"], server: nil)
            let analyzed = try #require(try parseLines(a.readToEnd(timeout: 20)).last)
            #expect(a.wait(timeout: 5) == 0, "stderr: \(a.stderrText)")
            for key in ["lufs_i", "lra", "max_lufs_m", "max_lufs_s"] {
                #expect(end.double(key) == analyzed.double(key), "\(key): live \(end.double(key) ?? .nan), analyze \(analyzed.double(key) ?? .nan)")
            }
            #expect(end.doubles("true_peak_db") == analyzed.doubles("true_peak_db"))
            if server.alignedFeed {
                #expect(abs(i - -23) <= 0.15)
            } else {
                // On PipeWire silence comes before and after the tone: the 400 ms blocks over its
                // edges are part tone and pass the relative gate, so they pull I below the tone's
                // -23 (by up to 0.3 LU for 6 s of tone), never above it.
                #expect(i <= -22.95 && i >= -23.4, "I \(i)")
            }
            #expect(end.double("target_lufs") == -23 && abs((end.double("gain_db") ?? 99) - (-23 - i)) <= 0.011)
            // True peak of a -23 dBFS sine at 1 kHz (48 samples a period, so the samples come
            // within 0.02 dB of the peak).
            for tp in end.doubles("true_peak_db") ?? [] { #expect(abs(tp - -23) <= 0.2) }
        }

        @Test("monitor --preset ebu-r128: a -23.7 LUFS tone passes by the live ±1 LU (a file's ±0.5 would fail it); frames' psr_db is the last 3 s true peak minus lufs_s")
        func monitorJudgesByTheLiveTolerance() throws {
            let server = try Live.server()
            server.drainFeed()
            let p = try pulsemeter(["monitor", "-d", server.feedSource, "-f", "ndjson", "--preset", "ebu-r128",
                                    "--duration", server.feedDurationArgument(frames: 6 * 48000), "--fps", "10"],
                                   server: server)
            defer { p.kill() }
            let first = try #require(p.readLine(timeout: 15), "no start line; stderr: \(p.stderrText)")
            #expect(try JSONLine(first).type == "start")
            let feeder = server.startFeeding(Self.tone(seconds: 6, lufs: -23.7), speed: 3)
            defer { server.stopFeeding(feeder) }
            let lines = try parseLines(p.readToEnd(timeout: 30))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            let end = try #require(lines.last)
            #expect(end.type == "end")
            let frames = lines.filter { $0.type == "frame" }
            #expect(!frames.isEmpty && frames.allSatisfy { $0.double("psr_db") != nil }, "live frames carry psr_db")
            // 3 s into the tone the last 3 s hold only the tone: their true peak is the tone's,
            // the end line's true peak (a steady sine's, within 0.02 dB).
            let onset = (frames.first { ($0.doubles("rms_db")?.max() ?? -160) > -60 }?.int("pos") ?? 0) - 4800
            let truePeak = try #require(end.doubles("true_peak_db")?.max())
            let steady = frames.filter { ($0.int("pos") ?? 0) >= max(0, onset) + 3 * 48000 && ($0.int("pos") ?? 0) <= onset + 6 * 48000 }
            #expect(steady.count >= 25)
            for f in steady {
                let psr = try #require(f.double("psr_db")), s = try #require(f.double("lufs_s"))
                #expect(abs(psr - (truePeak - s)) <= 0.1, "psr_db \(psr), true peak \(truePeak), lufs_s \(s) at \(f.int("pos") ?? -1)")
            }
            // The verdict: integrated within -23 ±1 (the preset's live tolerance), true peak under -1.
            // I between -24 and -23.5: inside the live ±1 LU, outside a file's ±0.5. PulseAudio's
            // pipe source delivers the fed samples exactly, so there the reading is the tone's
            // within 0.15; PipeWire's feed, a sink's monitor on the clock, lost some of the tone
            // on a loaded machine (-23.85 in a fresh-clone run; its accuracy is
            // monitorReadsTheTone's).
            let i = try #require(end.double("lufs_i"))
            #expect(i > -24 && i < -23.5, "I \(i)")
            if server.alignedFeed { #expect(abs(i - -23.7) <= 0.15, "I \(i)") }
            let verdict = try #require(end.object["verdict"] as? [String: Any], "\(end.object)")
            #expect(verdict["pass"] as? Bool == true, "\(verdict)")
            let rules = try #require(verdict["rules"] as? [[String: Any]])
            let integrated = try #require(rules.first { $0["rule"] as? String == "integrated" })
            #expect((integrated["min"] as? NSNumber)?.doubleValue == -24 && (integrated["max"] as? NSNumber)?.doubleValue == -22,
                    "the live tolerance, ±1 LU: \(integrated)")
            #expect((integrated["value"] as? NSNumber)?.doubleValue == i && integrated["pass"] as? Bool == true)
            #expect(end.double("plr_db").map { abs($0 - (truePeak - i)) <= 0.011 } == true, "plr_db \(end.double("plr_db") ?? .nan)")
        }

        @Test("play --loudness: the same loudness as analyze --loudness of the file")
        func playEqualsAnalyze() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("lplay")
            defer { Live.removeTree(dir) }
            let file = dir + "/tone.wav"
            // A tone that steps from -30 to -18 LUFS: a range, a changing short-term.
            try writeWav(Self.tone(seconds: 1.5, lufs: -30) + Self.tone(seconds: 1.5, lufs: -18), to: file)
            let play = try pulsemeter(["play", file, "-d", "vsink", "--loudness"], server: server)
            let played = try parseLines(play.readToEnd(timeout: 20))
            #expect(play.wait(timeout: 5) == 0, "stderr: \(play.stderrText)")
            let a = try pulsemeter(["analyze", file, "--loudness", "-f", "ndjson"], server: nil)
            let analyzed = try parseLines(a.readToEnd(timeout: 20))
            #expect(a.wait(timeout: 5) == 0, "stderr: \(a.stderrText)")
            let pf = played.filter { $0.type == "frame" }, af = analyzed.filter { $0.type == "frame" }
            #expect(pf.count == af.count && !pf.isEmpty)
            // The same fields, the range so far included, whether the file is played or analyzed.
            for (p, q) in zip(pf, af) {
                for key in ["lufs_m", "lufs_s", "lufs_i", "lra"] {
                    #expect(p.double(key) != nil && p.double(key) == q.double(key), "\(key) at \(p.int("pos") ?? -1)")
                }
            }
            let pe = try #require(played.last), ae = try #require(analyzed.last)
            for key in ["lufs_i", "lra", "max_lufs_m", "max_lufs_s"] { #expect(pe.double(key) == ae.double(key), "\(key)") }
            #expect(pe.doubles("true_peak_db") == ae.doubles("true_peak_db"))
            #expect(abs((ae.double("max_lufs_m") ?? 0) - -18) <= 0.2, "the loud half's momentary loudness")
        }
    }
}
