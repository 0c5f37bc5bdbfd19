import Foundation
import Glibc
import Testing
import TestSupport

extension LiveSuite {
    /// m4a/AAC recorded through an ffmpeg encoder process.
    @Suite("m4a and aac through ffmpeg")
    struct AACRecording {
        /// ffprobe's view of a file: codec, rate, channels, duration, bit rate.
        struct Probe {
            var codec = "", rate = 0, channels = 0, duration = 0.0, bitRate = 0
        }

        static func probe(_ path: String) throws -> Probe {
            let r = try run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels:format=duration,bit_rate",
                             "-of", "default=nw=1", "file:" + path])
            guard r.status == 0 else { throw LiveSetupError("ffprobe cannot read \(path): \(r.stderr)") }
            var p = Probe()
            for line in r.stdout.split(separator: "\n") {
                let kv = line.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2 else { continue }
                switch kv[0] {
                case "codec_name": p.codec = kv[1]
                case "sample_rate": p.rate = Int(kv[1]) ?? 0
                case "channels": p.channels = Int(kv[1]) ?? 0
                case "duration": p.duration = Double(kv[1]) ?? 0
                case "bit_rate": p.bitRate = Int(kv[1]) ?? 0
                default: break
                }
            }
            return p
        }

        /// ffmpeg's decoding as mono s16 at `rate` (what was recorded), with its stderr.
        static func decodeMono(_ path: String, rate: Int) throws -> (samples: [Int16], stderr: String) {
            let out = path + ".raw"
            defer { unlink(out) }
            let r = try run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", "file:" + path, "-f", "s16le", "-ac", "1", "-ar", String(rate), "file:" + out], timeout: 60)
            let data = (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data()
            return (data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }, r.stderr)
        }

        static func rmsDb(_ s: ArraySlice<Int16>) -> Double {
            let sum = s.reduce(0.0) { $0 + Double($1) * Double($1) / (32768.0 * 32768.0) }
            return 10 * log10(sum / Double(max(1, s.count)))
        }

        /// A 1 kHz tone at 0.25 of full scale on both channels (the same after a mono downmix).
        static func tone(frames: Int) -> [Int16] { Containers.tone(frames: frames, left: 8192, right: 8192) }

        @Test("3 s as m4a (12 kHz mono, as the voice-memo app), m4a at --bitrate 32, and .aac: ffprobe reads AAC at the asked spec, length and level")
        func voiceMemo() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("aac")
            defer { Live.removeTree(dir) }
            let cases: [(name: String, args: [String])] = [
                ("memo.m4a", []), ("memo32.m4a", ["--bitrate", "32"]), ("memo.aac", []),
            ]
            var running: [(String, Subprocess)] = []
            defer { for (_, p) in running { p.kill() } }
            // 3 s of tone; on PipeWire 3 s more (the feed comes after some silence, at 1x).
            let seconds = Double(server.feedDuration(frames: 3 * 48000)) / 48000
            let frames = Int(seconds * 12000)
            let duration = String(seconds)
            for c in cases {
                let (p, start) = try LiveSuite.startRecording(dir + "/" + c.name, ["-r", "12000", "-c", "1", "--duration", duration] + c.args, server: server)
                #expect(start.int("rate") == 12000 && start.int("channels") == 1)
                running.append((c.name, p))
            }
            // monitor --record takes the same path.
            let monitor = try pulsemeter(["monitor", "--record", dir + "/monitor.m4a", "-d", server.feedSource, "-f", "ndjson",
                                          "-r", "12000", "-c", "1", "--duration", duration], server: server)
            #expect(monitor.readLine(timeout: 15) != nil, "no start line from monitor --record: \(monitor.stderrText)")
            running.append(("monitor.m4a", monitor))
            let feeder = server.startFeeding(Self.tone(frames: 3 * 48000 + 4800), speed: nil)
            defer { server.stopFeeding(feeder) }
            for (name, p) in running {
                let lines = try parseLines(p.readToEnd(timeout: 30))
                #expect(p.wait(timeout: 10) == 0, "\(name): \(p.stderrText)")
                #expect(p.stderrText == "", "\(name)")
                let end = try #require(lines.last, "\(name)")
                #expect(end.int("recorded_frames") == frames, "\(name): \(end.raw)")
                let live = try #require(end.doubles("rms_db")?.first)
                let file = dir + "/" + name
                let probe = try Self.probe(file)
                #expect(probe.codec == "aac" && probe.rate == 12000 && probe.channels == 1, "\(name): \(probe)")
                let decoded = try Self.decodeMono(file, rate: 12000)
                #expect(decoded.stderr == "", "\(name): \(decoded.stderr)")
                // Within one AAC frame (1024) plus the encoder's priming (1024) of 3 s.
                #expect(abs(decoded.samples.count - frames) <= 2048 , "\(name): decodes \(decoded.samples.count) frames of \(frames)")
                if name.hasSuffix(".m4a") { #expect(abs(probe.duration - seconds) <= 0.1, "\(name): duration \(probe.duration)") }
                // The tone's level (PulseAudio: the tone fills the file), or the whole file's,
                // silence around the tone included (PipeWire), against the live end line's.
                let level = server.alignedFeed ? Self.rmsDb(decoded.samples[6000..<30000]) : Self.rmsDb(decoded.samples[...])
                #expect(abs(level - live) <= 0.5, "\(name): \(level) dB read back, \(live) dB metered live")
                if name == "memo32.m4a" {
                    let bytes = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
                    let kbps = Double(bytes) * 8 / seconds / 1000
                    // Checked where the file is all tone (PulseAudio); silence costs AAC fewer bits.
                    if server.alignedFeed { #expect(kbps > 32 * 0.8 && kbps < 32 * 1.25, "--bitrate 32 gave \(kbps) kbps") }
                    #expect(kbps < 32 * 1.25, "--bitrate 32 gave \(kbps) kbps")
                    print("live tests: m4a at --bitrate 32: \(String(format: "%.1f", kbps)) kbps over \(seconds) s, \(bytes) bytes")
                }
            }
        }

        @Test("SIGKILL at 1.5 s: ffmpeg finishes the file from what it was given, at least 1 s; ffmpeg killed: exit 74 with its report, the part written readable")
        func killed() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("aack")
            defer { Live.removeTree(dir) }
            let a = dir + "/a.m4a", b = dir + "/b.m4a"
            let (p, _) = try LiveSuite.startRecording(a, ["-r", "12000", "-c", "1"], server: server)
            let (q, _) = try LiveSuite.startRecording(b, ["-r", "12000", "-c", "1"], server: server)
            defer { p.kill(); q.kill() }
            let feeder = server.startFeeding(Self.tone(frames: 5 * 48000), speed: 1)
            defer { server.stopFeeding(feeder) }
            #expect(try LiveSuite.readUntil(pos: 18000, p, timeout: 15).reached)
            p.signal(SIGKILL)
            #expect(p.wait(timeout: 5) == 128 + SIGKILL)
            // The encoder of b dies (as if killed or out of disk) after 2 s.
            #expect(try LiveSuite.readUntil(pos: 24000, q, timeout: 15).reached)
            let encoder = try #require(Self.childPids(of: q.pid).first, "no ffmpeg child of pulsemeter")
            Glibc.kill(encoder, SIGKILL)
            _ = q.readToEnd(timeout: 10)
            #expect(q.wait(timeout: 10) == 74)
            let err = try #require(LiveSuite.errorLine(q.stderrText), "one stderr line: \(q.stderrText)")
            #expect(err.contains("ffmpeg") && err.contains("signal 9"), "\(err)")
            for file in [a, b] {
                // The orphaned encoder of a finishes on its own once its input ends.
                let got = try Wait.value(timeout: 10, interval: 0.2, { try Self.decodeMono(file, rate: 12000).samples.count },
                                         until: { $0 >= 12000 })
                #expect(got >= 12000, "\(file): ffmpeg decodes \(got) frames, want at least 1 s")
            }
        }

        @Test("SIGTERM while recording m4a: exit 0, recorded_frames acknowledged by ffmpeg, the file that long")
        func terminated() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("aact")
            defer { Live.removeTree(dir) }
            let file = dir + "/t.m4a"
            let (p, _) = try LiveSuite.startRecording(file, ["--bitrate", "96"], server: server)
            defer { p.kill() }
            let feeder = server.startFeeding(Self.tone(frames: 3 * 48000), speed: 1)
            defer { server.stopFeeding(feeder) }
            #expect(try LiveSuite.readUntil(pos: 48000, p, timeout: 15).reached)
            p.signal(SIGTERM)
            let end = try #require(try parseLines(p.readToEnd(timeout: 10)).last)
            #expect(p.wait(timeout: 5) == 0)
            #expect(p.stderrText == "")
            let recorded = try #require(end.int("recorded_frames"))
            #expect(recorded == end.int("pos") && recorded >= 48000)
            let probe = try Self.probe(file)
            #expect(probe.codec == "aac" && probe.rate == 48000 && probe.channels == 2)
            #expect(abs(probe.duration - Double(recorded) / 48000) <= 0.1, "duration \(probe.duration), recorded \(recorded) frames")
        }

        @Test("without ffmpeg on PATH: exit 64 naming the containers there are, no file left")
        func noFFmpeg() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("aacn")
            defer { Live.removeTree(dir) }
            let file = dir + "/memo.m4a"
            let p = try pulsemeter(["record", file, "-d", server.feedSource, "-f", "ndjson"], server: server, env: ["PATH": dir])
            _ = p.readToEnd(timeout: 10)
            #expect(p.wait(timeout: 5) == 64)
            let err = try #require(LiveSuite.errorLine(p.stderrText), "\(p.stderrText)")
            #expect(err.contains("ffmpeg") && err.contains("wav") && err.contains("flac"), "\(err)")
            #expect(!FileManager.default.fileExists(atPath: file))
        }

        /// The pids whose parent is `pid` (/proc/PID/task/*/children).
        static func childPids(of pid: pid_t) -> [pid_t] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            return tasks.flatMap { t -> [pid_t] in
                let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(t)/children", encoding: .utf8)) ?? ""
                return text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            }
        }
    }
}
