import CSndFile
import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// Voice-memo and logger features: the frames' normalized level, recording sample
    /// formats, pause and resume, the rolling archive.
    @Suite("voice memos and loggers")
    struct VoiceMemo {
        /// A stereo sine of amplitude `amplitude` at 1 kHz (48 samples a period at 48 kHz, so
        /// a 50 ms window holds whole periods): rms_db = 20*log10(A) - 3.01.
        static func sine(frames: Int, amplitude: Double) -> [Int16] {
            var out = [Int16](repeating: 0, count: 2 * frames)
            for i in 0..<frames {
                let v = Int16((amplitude * 32768 * sin(2 * Double.pi * Double(i) / 48)).rounded())
                out[2 * i] = v
                out[2 * i + 1] = v
            }
            return out
        }

        @Test("live frames carry level = clamp((rms_db - floor) / -floor, 0, 1) with --floor",
              arguments: [nil, -40.0])
        func levelPerChannel(floor: Double?) throws {
            let server = try Live.server()
            let dir = try Live.tempDir("level")
            defer { Live.removeTree(dir) }
            let frames = 48_000
            let input = Self.sine(frames: frames, amplitude: 0.1)
            let args = ["--duration", server.feedDurationArgument(frames: frames)] + (floor.map { ["--floor", "\($0)"] } ?? [])
            let (p, _) = try LiveSuite.startRecording(dir + "/l.wav", args, server: server)
            let feeder = server.startFeeding(input, speed: nil)
            defer { server.stopFeeding(feeder) }
            let lines = try parseLines(p.readToEnd(timeout: 30))
            #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
            let f = floor ?? -60
            let frameLines = lines.filter { $0.type == "frame" }
            #expect(frameLines.count >= 25)
            var bad: [String] = []
            var steady = 0
            let expectedSteady = (20 * log10(0.1) - 10 * log10(2) - f) / -f  // the analytic level of the sine
            for line in frameLines {
                guard let rms = line.doubles("rms_db"), let level = line.doubles("level"), level.count == 2, rms.count == 2 else {
                    bad.append("frame at \(line.int("pos") ?? -1) has no level per channel")
                    continue
                }
                for c in 0..<2 {
                    // rms_db is printed with 2 decimals, level with 4.
                    let want = min(1, max(0, (rms[c] - f) / -f))
                    if abs(level[c] - want) > 0.005 / -f + 0.00005 + 1e-9 { bad.append("level \(level[c]) for rms \(rms[c])") }
                }
                if abs(rms[0] - (20 * log10(0.1) - 10 * log10(2))) < 0.02 {
                    steady += 1
                    if abs(level[0] - expectedSteady) > 0.02 / -f + 0.00005 { bad.append("steady level \(level[0]), want \(expectedSteady)") }
                }
            }
            #expect(bad.isEmpty, "\(bad.prefix(4))")
            #expect(steady >= 20, "the sine's level was seen in \(steady) frames")
            // analyze frames carry no level (live only).
            #expect(lines.first { $0.type == "end" }?.object["level"] == nil)
        }
    
        /// The containers that hold each `--bits` format.
        static let bitsCases: [(bits: String, ext: String)] =
            ["wav", "flac", "aiff", "caf", "w64", "rf64", "au"].map { ("24", $0) }
            // 32-bit and float take the same writer path in every container: one little- and
            // one big-endian container prove them.
            + ["wav", "aiff"].flatMap { [("32", $0), ("float", $0)] }

        @Test("record --bits: the file holds the captured samples bit for bit, as libsndfile and ffmpeg read it (every case recorded at once)")
        func bitsBitExact() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("bits")
            defer { Live.removeTree(dir) }
            let frames = 36_000
            // The fed signal, with both rails in it: the conversions from s16 are exact.
            var input = TestSignal.make(frames: frames, seed: 26)
            input[200] = .max; input[201] = .min; input[402] = .min; input[403] = .max
            var running: [(bits: String, file: String, p: Subprocess)] = []
            defer { for r in running { r.p.kill() } }
            for (bits, ext) in Self.bitsCases {
                let file = dir + "/b-\(bits)." + ext
                let (p, _) = try LiveSuite.startRecording(
                    file, ["--bits", bits, "--duration", server.feedDurationArgument(frames: frames)], server: server)
                running.append((bits, file, p))
            }
            let feeder = server.startFeeding(input, speed: nil)
            defer { server.stopFeeding(feeder) }
            for (bits, file, p) in running {
                let lines = try parseLines(p.readToEnd(timeout: 60))
                #expect(p.wait(timeout: 5) == 0, "\(file): stderr: \(p.stderrText)")
                let end = try #require(lines.last)
                #expect(end.type == "end" && end.int("recorded_frames") == server.feedDuration(frames: frames), "\(file)")
                try Self.checkBits(file, bits: bits, input: input, server: server)
            }
        }

        /// libsndfile (the subtype, then the samples) and ffmpeg read `file` as the fed s16
        /// samples scaled exactly.
        static func checkBits(_ file: String, bits: String, input: [Int16], server: PulseServer) throws {
            // libsndfile, through its own C API: the subtype, then the samples.
            var info = SF_INFO()
            let h = try #require(sf_open(file, Int32(SFM_READ), &info), "libsndfile cannot open \(file)")
            defer { sf_close(h) }
            let subtype = info.format & Int32(SF_FORMAT_SUBMASK)
            let wantSubtype = bits == "24" ? SF_FORMAT_PCM_24 : (bits == "32" ? SF_FORMAT_PCM_32 : SF_FORMAT_FLOAT)
            #expect(subtype == Int32(wantSubtype), "\(file): subtype \(subtype)")
            #expect(info.channels == 2 && info.samplerate == 48000)
            let n = Int(info.frames) * 2
            var viaSndfile: [Int16]?
            if bits == "float" {
                var f = [Float](repeating: 0, count: n)
                #expect(sf_readf_float(h, &f, info.frames) == info.frames)
                viaSndfile = Self.exactS16(floats: f)
            } else {
                var i = [Int32](repeating: 0, count: n)
                #expect(sf_readf_int(h, &i, info.frames) == info.frames)
                viaSndfile = Self.exactS16(ints: i)
            }
            let s = try #require(viaSndfile, "libsndfile reads samples that are not the fed s16 ones scaled exactly")
            #expect(fedAudioProblem(s, [input], server: server) == nil, "\(file), libsndfile: \(fedAudioProblem(s, [input], server: server) ?? "")")

            // ffmpeg, decoding on its own.
            let raw = file + ".raw"
            let ff = try run(["ffmpeg", "-nostdin", "-v", "error", "-i", "file:" + file, "-f", bits == "float" ? "f32le" : "s32le", "file:" + raw], timeout: 60)
            #expect(ff.status == 0, "ffmpeg: \(ff.stderr)")
            let data = try Data(contentsOf: URL(fileURLWithPath: raw))
            let viaFFmpeg = bits == "float"
                ? data.withUnsafeBytes { Self.exactS16(floats: Array($0.bindMemory(to: Float.self))) }
                : data.withUnsafeBytes { Self.exactS16(ints: Array($0.bindMemory(to: Int32.self))) }
            let f = try #require(viaFFmpeg, "ffmpeg reads samples that are not the fed s16 ones scaled exactly")
            #expect(f == s, "\(file): ffmpeg and libsndfile disagree")
        }

        /// 32-bit samples that are s16 ones shifted up 16 bits, back to s16; nil if any is not.
        static func exactS16(ints: [Int32]) -> [Int16]? {
            var out = [Int16](repeating: 0, count: ints.count)
            for (k, v) in ints.enumerated() {
                guard v & 0xFFFF == 0 else { return nil }
                out[k] = Int16(v >> 16)
            }
            return out
        }

        /// Float samples that are s16 ones over 32768, back to s16; nil if any is not.
        static func exactS16(floats: [Float]) -> [Int16]? {
            var out = [Int16](repeating: 0, count: floats.count)
            for (k, v) in floats.enumerated() {
                let x = v * 32768
                guard x == x.rounded(), x >= -32768, x <= 32767 else { return nil }
                out[k] = Int16(x)
            }
            return out
        }

        @Test("--bits with a container that cannot hold it: exit 64 naming those that can")
        func bitsRefusedContainers() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("bitsno")
            defer { Live.removeTree(dir) }
            for (bits, ext) in [("32", "flac"), ("float", "flac"), ("24", "ogg"), ("24", "mp3"), ("float", "opus"), ("24", "m4a")] {
                let p = try pulsemeter(["record", dir + "/x." + ext, "--bits", bits, "-d", server.feedSource, "-f", "ndjson"], server: server)
                _ = p.readToEnd(timeout: 15)
                #expect(p.wait(timeout: 5) == 64, "\(bits) \(ext)")
                let err = p.stderrText
                #expect(err.contains("--bits \(bits)") && err.contains("wav") && err.contains("aiff") && err.contains("w64") && err.contains("rf64"), "\(err)")
                let holding = err.components(separatedBy: "record one of ").last ?? ""
                #expect(holding.contains("flac") == (bits == "24"), "\(err)")
                #expect(!FileManager.default.fileExists(atPath: dir + "/x." + ext))
            }
            let bad = try pulsemeter(["record", dir + "/x.wav", "--bits", "20", "-d", server.feedSource], server: server)
            _ = bad.readToEnd(timeout: 15)
            #expect(bad.wait(timeout: 5) == 64 && bad.stderrText.contains("16, 24, 32 or float"))
        }

        /// A recording that reads its NDJSON as it comes, to act between pieces of the feed.
        final class Session {
            let p: Subprocess
            let server: PulseServer
            var lines: [JSONLine] = []
            init(_ p: Subprocess, server: PulseServer) { (self.p, self.server) = (p, server) }

            /// Reads until a line satisfies `predicate`; the test fails without one.
            func wait(_ what: String, timeout: Double = 20, _ predicate: (JSONLine) -> Bool) throws {
                let deadline = monotonic() + timeout
                while monotonic() < deadline, let raw = p.readLine(timeout: max(0, deadline - monotonic())) {
                    let line = try JSONLine(raw)
                    lines.append(line)
                    if predicate(line) { return }
                }
                Issue.record("no line for: \(what); stderr: \(p.stderrText)")
                throw LiveSetupError("timed out waiting for \(what)")
            }

            static func loud(_ l: JSONLine) -> Bool { l.type == "frame" && (l.doubles("rms_db")?.max() ?? -160) > -60 }
            static func silent(_ l: JSONLine) -> Bool { l.type == "frame" && (l.doubles("rms_db")?.max() ?? 0) == -160 }

            /// Frames fed so far.
            var fed = 0

            /// Feeds `piece` and reads until the meter has seen it pass: on PulseAudio's pipe
            /// source (the capture is the feed, nothing between pieces) a frame at or past the
            /// frames fed so far; on PipeWire (silence flows between pieces) loud frames, then
            /// digital silence after them.
            func feed(_ piece: [Int16]) throws {
                let feeder = server.startFeeding(piece, speed: 4)
                defer { server.stopFeeding(feeder) }
                fed += piece.count / 2
                if server.alignedFeed {
                    try wait("a frame at \(fed)") { $0.type == "frame" && ($0.int("pos") ?? 0) >= fed }
                } else {
                    try wait("the piece's audio", Self.loud)
                    try wait("silence after the piece", Self.silent)
                }
                #expect(feeder.wait(timeout: 10), "the feed source did not take the piece: \(feeder.error ?? "")")
            }

            /// Reads until a `file` line with this event, unless one came already.
            func fileEvent(_ name: String) throws {
                if lines.contains(where: { $0.type == "file" && $0.string("event") == name }) { return }
                try wait("the \(name) line") { $0.type == "file" && $0.string("event") == name }
            }

            /// Feeds `a`, pauses (SIGUSR1), feeds `b`, resumes (SIGUSR2), feeds `c`. The pause
            /// takes effect at the first capture read that ends after it: on PulseAudio's pipe
            /// source nothing is read between pieces, so its line comes with the next piece.
            func feedPausing(_ a: [Int16], _ b: [Int16], _ c: [Int16]) throws {
                try feed(a)
                p.signal(SIGUSR1)
                if !server.alignedFeed { try fileEvent("pause") }
                try feed(b)  // metered, not recorded
                try fileEvent("pause")
                p.signal(SIGUSR2)
                if !server.alignedFeed { try fileEvent("resume") }
                try feed(c)
                try fileEvent("resume")
            }
        }

        /// The decoded recording without the silence after its last sound (the pipe source posts
        /// zeros once the feed has stopped).
        static func trimmed(_ x: [Int16]) -> [Int16] {
            var n = x.count / 2
            while n > 0 && x[2 * n - 1] == 0 && x[2 * n - 2] == 0 { n -= 1 }
            return Array(x[..<(2 * n)])
        }

        @Test("SIGUSR1 pauses and SIGUSR2 resumes: the file holds only the unpaused audio, bit for bit (m4a: its length); file lines say pause and resume",
              arguments: ["wav", "split", "m4a"])
        func pauseAndResumeBySignal(mode: String) throws {
            let split = mode == "split"
            let server = try Live.server()
            let dir = try Live.tempDir("pause")
            defer { Live.removeTree(dir) }
            // Whole meter hops (1600 frames): on PulseAudio each piece ends on a read boundary,
            // so the pause falls between pieces.
            let a = TestSignal.make(frames: 30_400, seed: 61), b = TestSignal.make(frames: 30_400, seed: 62)
            let c = TestSignal.make(frames: 30_400, seed: 63)
            let file = dir + (mode == "m4a" ? "/memo.m4a" : "/memo.wav")
            let (p, _) = try LiveSuite.startRecording(file, split ? ["--split", "0.5"] : [], server: server)
            let s = Session(p, server: server)
            try s.feedPausing(a, b, c)
            p.signal(SIGTERM)
            s.lines += try parseLines(p.readToEnd(timeout: 30))
            #expect(p.wait(timeout: 10) == 0, "stderr: \(p.stderrText)")

            let fileLines = s.lines.filter { $0.type == "file" }
            let pause = try #require(fileLines.first { $0.string("event") == "pause" })
            let resume = try #require(fileLines.first { $0.string("event") == "resume" })
            #expect(fileLines.filter { ["pause", "resume"].contains($0.string("event")) }.count == 2)
            #expect((pause.int("pos") ?? 0) < (resume.int("pos") ?? 0))
            // B was metered while paused: its loud frames lie between the two positions.
            let loudB = s.lines.filter { Session.loud($0) && ($0.int("pos") ?? 0) > (pause.int("pos") ?? 0) && ($0.int("pos") ?? 0) <= (resume.int("pos") ?? 0) }
            #expect(loudB.count >= 10, "the meter kept metering while paused")

            if mode == "m4a" {
                // AAC is lossy: the frames handed to ffmpeg are A and C (and on PipeWire the
                // silence around them), and the file is that long.
                let end = try #require(s.lines.last)
                let frames = try #require(end.int("recorded_frames"))
                if server.alignedFeed { #expect(frames == 60_800) } else { #expect(frames >= 60_800 && frames < (end.int("pos") ?? 0) - 30_400) }
                let probe = try run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", "file:" + file])
                let seconds = try #require(Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "ffprobe: \(probe.stderr)")
                #expect(abs(seconds - Double(frames) / 48000) < 0.1, "\(seconds) s for \(frames) frames")
                return
            }
            let files: [String]
            if split {
                files = fileLines.filter { $0.string("event") == "open" }.compactMap { $0.string("file") }
                #expect(files.count >= 2)
            } else {
                files = [file]
                #expect(pause.string("file") == file && resume.string("file") == file)
            }
            var recorded: [Int16] = []
            for f in files { recorded += try decodeWithSox(f) }
            let end = try #require(s.lines.last)
            #expect(end.type == "end" && end.int("recorded_frames") == recorded.count / 2)
            let problem = fedAudioProblem(Self.trimmed(recorded), [a, c], server: server)
            #expect(problem == nil, "\(problem ?? "")")
            // And B is nowhere in it.
            let probe = Array(b[2000..<2064])
            #expect(!stride(from: 0, to: max(0, recorded.count - 64), by: 2).contains { Array(recorded[$0..<($0 + 64)]) == probe })
        }

        /// The head line's clocks: the stream time, and the recorded time after the file name.
        static func clocks(_ head: String?) -> (stream: Int, recorded: Int)? {
            guard let head else { return nil }
            let all = head.matches(of: /(\d+):(\d\d)/).map { Int($0.output.1)! * 60 + Int($0.output.2)! }
            guard all.count >= 2 else { return nil }
            return (all[0], all[all.count - 1])
        }

        @Test("record under tmux: space pauses (PAUSED on the header, the recorded time stands), p resumes, q quits; the file is the feed without the paused span, bit for bit")
        func pauseWithSpaceUnderTmux() throws {
            typealias Tmux = TerminalMeter.Tmux
            let server = try Live.server()
            let bin = try Live.bin()
            let dir = try Live.tempDir("pausetmux")
            defer { Live.removeTree(dir) }
            let tmux = Tmux(socket: dir + "/tmux.sock")
            defer { _ = try? tmux("kill-server") }
            server.drainFeed()
            let input = TestSignal.make(frames: 30 * 48000, seed: 81)
            let file = dir + "/memo.wav"
            try JobControl.shell(tmux, "pm")
            try tmux("send-keys", "-t", "pm",
                     "env PULSE_SERVER='\(server.address)' LANG=C.UTF-8 '\(bin)' record '\(file)' -d \(server.feedSource)", "Enter")
            var rows = try tmux.waitFor("pm") { rows, f in f.alternate == "1" && rows.first?.contains("REC") == true }
            #expect(rows.first?.contains("REC") == true, "the meter is up: \(rows.first ?? "")")
            let feeder = server.startFeeding(input, speed: 1)  // a live source: audio all along
            defer { server.stopFeeding(feeder) }
            rows = try tmux.waitFor("pm", timeout: 20) { rows, _ in (Self.clocks(rows.first)?.recorded ?? 0) >= 2 }
            try tmux("send-keys", "-t", "pm", "Space")
            rows = try tmux.waitFor("pm") { rows, _ in rows.first?.contains("PAUSED") == true }
            #expect(rows.first?.contains("PAUSED \(file)") == true, "PAUSED on the header: \(rows.first ?? "")")
            let atPause = try #require(Self.clocks(rows.first))
            rows = try tmux.waitFor("pm", timeout: 20) { rows, _ in (Self.clocks(rows.first)?.stream ?? 0) >= atPause.stream + 3 }
            let later = try #require(Self.clocks(rows.first))
            #expect(rows.first?.contains("PAUSED") == true && later.recorded <= atPause.recorded + 1, "the recorded time stands while paused: \(rows.first ?? "")")
            try tmux("send-keys", "-t", "pm", "p")
            rows = try tmux.waitFor("pm") { rows, _ in rows.first?.contains("REC \(file)") == true }
            #expect(rows.first?.contains("PAUSED") == false, "REC again: \(rows.first ?? "")")
            rows = try tmux.waitFor("pm", timeout: 20) { rows, _ in (Self.clocks(rows.first)?.recorded ?? 0) >= later.recorded + 2 }
            try tmux("send-keys", "-t", "pm", "q")
            rows = try tmux.waitFor("pm") { _, f in f.alternate == "0" }
            #expect(try JobControl.lastStatus(tmux, "pm", dir: dir) == "0")

            // The file: a stretch of the feed up to the pause, then one from the resume to the
            // end, each bit for bit (on PipeWire with silence before the feed, and the feed's
            // underruns as `fedAudioProblem` allows them).
            let recorded = try decodeWithSox(file)
            let loose = !server.alignedFeed
            let frames = recorded.count / 2
            let first = loose ? FeedFollow.pastZeros(recorded, from: 0) : 0
            let before = FeedFollow(recorded, from: first, input, from: 0, loose: loose)
            #expect(before.i >= 48000, "the first stretch holds the audio before the pause (\(before.i) frames)")
            #expect(before.j < frames, "the file goes on after the pause")
            let j = loose ? FeedFollow.pastZeros(recorded, from: before.j) : before.j
            guard j + 32 <= frames else { return }
            let resumeAt = try #require(FeedFollow.find(recorded, at: j, in: input, from: before.i + 1),
                                        "the audio after the pause is a later part of the feed")
            #expect(resumeAt - before.i >= 2 * 48000, "the paused span (\(resumeAt - before.i) frames) is left out")
            let after = FeedFollow(recorded, from: j, input, from: resumeAt, loose: loose)
            let end = loose ? FeedFollow.pastZeros(recorded, from: after.j) : after.j
            #expect(end == frames, "after the resume the file is the feed bit for bit (it differs from frame \(after.j) of \(frames))")
            FeedFollow.reportUnderruns(inserted: before.inserted + after.inserted, lost: before.lost + after.lost,
                                       skips: before.skips + after.skips)
        }

        @Test("--split 0.1 --keep 3: of many short files only the newest three stay, each removal a file line, the kept ones the end of the capture bit for bit")
        func rollingArchive() throws {
            typealias ST = SplitAndTrigger
            let server = try Live.server()
            let dir = try Live.tempDir("keep")
            defer { Live.removeTree(dir) }
            let frames = 100_800  // 2.1 s: 21 files of 0.1 s on PulseAudio
            let input = TestSignal.make(frames: frames, seed: 91)
            let r = try LiveSuite.recordFed(dir + "/log.wav", ["--split", "0.1", "--keep", "3"], input: input, speed: 4, server: server)
            #expect(r.status == 0, "stderr: \(r.stderr)")
            let files = ST.takes(r.lines)  // every file opened and closed, in order
            #expect(files.count >= 21)
            if server.alignedFeed { #expect(files.count == 21) }
            let removed = r.lines.filter { $0.type == "file" && $0.string("event") == "removed" }
            #expect(removed.compactMap { $0.string("file") } == files.dropLast(3).map(\.file), "the oldest are removed, in order")
            #expect(zip(removed, files).allSatisfy { $0.int("frames") == $1.frames })
            // Each removal comes right after the close that made a fourth file.
            let events = ST.fileLines(r.lines).map(\.event)
            for (k, e) in events.enumerated() where e == "removed" { #expect(k > 0 && events[k - 1] == "close") }
            let left = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".wav") }.sorted()
            #expect(left == files.suffix(3).map { ($0.file as NSString).lastPathComponent }, "\(left)")
            // The kept files: the last frames of the capture, end to end.
            let kept = try ST.joined(files.suffix(3).map(\.file))
            let end = try #require(r.end)
            #expect(end.int("recorded_frames") == files.reduce(0) { $0 + $1.frames })
            if server.alignedFeed {
                #expect(kept == Array(input.suffix(kept.count)), "the kept files are the end of the feed")
            } else {
                #expect(kept.count == 2 * files.suffix(3).reduce(0) { $0 + $1.frames })
            }
        }

        @Test("--trigger with --split: a take longer than the split length goes on in new files, end to end the take bit for bit; --keep counts them")
        func splitTakes() throws {
            typealias ST = SplitAndTrigger
            let server = try Live.server()
            let dir = try Live.tempDir("splittake")
            defer { Live.removeTree(dir) }
            // Silence, 1.5 s of sound, silence: one take of about 1.5 + 0.3 + 0.5 s, split every 0.5 s.
            let start = 48_000, length = 72_000
            var input = [Int16](repeating: 0, count: 2 * 240_000)
            let burst = TestSignal.make(frames: length, seed: 92, start: start)
            for i in 0..<(2 * length) { input[2 * start + i] = burst[i] }
            let r = try LiveSuite.recordFed(dir + "/take.wav", ["--trigger", "-40", "--hold", "0.5", "--pre-roll", "0.3", "--split", "0.5", "--keep", "100"],
                                            input: input, speed: 4, server: server)
            #expect(r.status == 0, "stderr: \(r.stderr)")
            let parts = ST.takes(r.lines)
            #expect(parts.count >= 4, "\(parts.map(\.frames))")
            guard parts.count >= 2 else { return }
            for (k, part) in parts.enumerated() {
                if k < parts.count - 1 {
                    #expect(part.frames == 24_000, "part \(k) holds \(part.frames) frames")
                    #expect(parts[k + 1].pos == part.pos + part.frames, "the parts are contiguous")
                } else {
                    #expect(part.frames <= 24_000 && part.frames > 0)
                }
            }
            let joined = try ST.joined(parts.map(\.file))
            let total = parts.reduce(0) { $0 + $1.frames }
            #expect(joined.count == 2 * total)
            if server.alignedFeed {
                #expect(sampleMismatch(joined, ST.span(input, parts[0].pos, total)) == nil)
            } else {
                #expect(fedAudioProblem(joined, [burst], server: server) == nil)
            }
            #expect(r.lines.filter { $0.string("event") == "removed" }.isEmpty)
        }

        @Test("record under tmux: the level history strip scrolls under the scale; --no-history hides it", arguments: [false, true])
        func historyStripUnderTmux(hidden: Bool) throws {
            typealias Tmux = TerminalMeter.Tmux
            let server = try Live.server()
            let dir = try Live.tempDir("history")
            defer { Live.removeTree(dir) }
            let tmux = Tmux(socket: dir + "/tmux.sock")
            defer { _ = try? tmux("kill-server") }
            server.drainFeed()
            let input = TestSignal.make(frames: 20 * 48000, seed: 95)
            let status = dir + "/status"
            try tmux("new-session", "-d", "-s", "h", "-x", "80", "-y", "16",
                     try server.paneCommand("record '\(dir)/h.wav' -d \(server.feedSource)" + (hidden ? " --no-history" : ""), status: status, env: "NO_COLOR=1 "))
            try tmux.waitFor("h") { rows, f in f.alternate == "1" && rows.first?.contains("REC") == true }
            let feeder = server.startFeeding(input, speed: 1)
            defer { server.stopFeeding(feeder) }
            // The strip: a row below the scale (after the correlation bar, for stereo) of
            // vertical blocks filling in from the right.
            let blocks = Set("▁▂▃▄▅▆▇█")
            func strip(_ rows: [String]) -> String? {
                guard let scale = rows.firstIndex(where: { $0.contains("-60") && $0.contains("-20") }) else { return nil }
                return rows.dropFirst(scale + 1).prefix(2).first { row in
                    !row.hasPrefix("corr") && row.contains(where: { blocks.contains($0) })
                }
            }
            let rows = try tmux.waitFor("h", timeout: 15) { rows, _ in
                (JobControl.recordedSeconds(rows) ?? 0) >= 2 && (hidden || (strip(rows)?.filter { blocks.contains($0) }.count ?? 0) >= 40)
            }
            #expect((JobControl.recordedSeconds(rows) ?? 0) >= 2, "\(rows)")
            if hidden {
                #expect(strip(rows) == nil, "no strip with --no-history: \(rows)")
            } else {
                let s = try #require(strip(rows), "a strip under the scale: \(rows)")
                #expect(s.filter { blocks.contains($0) }.count >= 40, "columns fill in as frames come: \(s)")
                // Right-aligned under the bars: the newest column ends the row (a quiet frame
                // would draw a space there, and the fed noise is never quiet).
                #expect(s.last.map { blocks.contains($0) } == true, "newest at the right: \(s)")
                #expect(s.hasPrefix("  "), "under the bars, past the labels: \(s)")
            }
            try tmux("send-keys", "-t", "h", "q")
            try tmux.waitFor("h") { _, f in f.alternate == "0" }
        }

        /// True when the 32 frames of `piece` from frame 2000 appear anywhere in `x`.
        static func holds(_ x: [Int16], _ piece: [Int16]) -> Bool {
            let probe = Array(piece[4000..<4064])
            return stride(from: 0, to: max(0, x.count - 64), by: 2).contains { Array(x[$0..<($0 + 64)]) == probe }
        }

        @Test("--trigger with a pause inside a take: what was fed while paused is in no take, what came before and after is")
        func pauseInsideTake() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("pausetake")
            defer { Live.removeTree(dir) }
            let a = TestSignal.make(frames: 30_400, seed: 71), b = TestSignal.make(frames: 30_400, seed: 72)
            let c = TestSignal.make(frames: 30_400, seed: 73)
            let quiet = [Int16](repeating: 0, count: 2 * 96_000)  // 2 s: the take closes after its hold
            let (p, _) = try LiveSuite.startRecording(dir + "/t.wav", ["--trigger", "-40", "--hold", "1", "--pre-roll", "0.2"], server: server)
            let s = Session(p, server: server)
            try s.feedPausing(a, b, c)
            if server.alignedFeed { try s.feed(quiet) }
            try s.fileEvent("close")
            p.signal(SIGTERM)
            s.lines += try parseLines(p.readToEnd(timeout: 30))
            #expect(p.wait(timeout: 10) == 0, "stderr: \(p.stderrText)")
            let files = SplitAndTrigger.fileLines(s.lines)
            let closes = files.filter { $0.event == "close" }
            #expect(!closes.isEmpty)
            // A close says where the take ended in the capture: past the paused span, so its
            // pos is beyond its open pos plus its frames by that span.
            let pause = try #require(files.first { $0.event == "pause" }), resume = try #require(files.first { $0.event == "resume" })
            if let open = files.first(where: { $0.event == "open" }), let close = closes.first, open.pos < pause.pos, close.pos > resume.pos {
                #expect(close.pos == open.pos + close.frames + (resume.pos - pause.pos), "close at \(close.pos)")
            }
            var all: [Int16] = []
            for t in closes { all += try decodeWithSox(t.file) }
            #expect(Self.holds(all, a), "the audio before the pause is in a take")
            #expect(Self.holds(all, c), "the audio after the resume is in a take")
            #expect(!Self.holds(all, b), "the audio fed while paused is in no take")
        }
    }
}
