import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// The disk fills up while recording. A 512 KiB tmpfs of our own holds
    /// about 2.7 s of 48 kHz stereo s16; the feed is longer.
    @Suite("disk full")
    struct DiskFull {
        @Test("recording onto a full filesystem: exit 74, one line, a valid file of what fitted")
        func recordingFillsTheDisk() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("smallfs")
            let scratch = try Live.tempDir("smallfs-check")
            defer {
                Live.removeTree(dir)
                Live.removeTree(scratch)
            }
            try Live.mountTmpfs(dir, "size=512k")
            defer { Live.unmount(dir) }

            let file = dir + "/full.wav"
            let input = TestSignal.make(frames: 6 * 48000, seed: 31)
            let (p, _) = try LiveSuite.startRecording(file, [], server: server)
            let feeder = server.startFeeding(input, speed: 20)
            defer { server.stopFeeding(feeder) }
            let lines = try parseLines(p.readToEnd(timeout: 20))
            let status = p.wait(timeout: 5)
            #expect(status == 74)
            let line = LiveSuite.errorLine(p.stderrText)
            #expect(line != nil, "one `pulsemeter: ` line, got: \(p.stderrText)")
            #expect(line?.contains("No space left on device") == true, "\(line ?? "")")
            #expect(line?.contains(file) == true, "names the file: \(line ?? "")")

            // The end line still comes, and agrees with the file.
            let end = try #require(lines.last { $0.type == "end" }, "no end line")
            let recorded = try #require(end.int("recorded_frames"))
            #expect(recorded > 48000, "at least a second fitted before the disk filled: \(recorded)")
            #expect(recorded < input.count / 2, "the disk cannot hold it all")

            // Valid for libsndfile's peers: the header says exactly what the data holds, and the
            // data is the input's prefix, bit for bit (checked on a copy: the tmpfs is full).
            let copy = scratch + "/full.wav"
            try FileManager.default.copyItem(atPath: file, toPath: copy)
            let samples = try decodeWithSox(copy)
            let w = try readWithPythonWave(copy, expected: samples)
            #expect(w.channels == 2 && w.rate == 48000 && w.sampleWidth == 2)
            #expect(w.frames == recorded)
            #expect(w.matchesExpectedPrefix, "Python's wave reads what sox reads")
            #expect(samples.count / 2 == recorded)
            #expect(fedAudioProblem(samples, [input], server: server, complete: false) == nil)
        }

        @Test("an m4a filling the disk: ffmpeg fails, exit 74 with its last line, the part written plays")
        func m4aFillsTheDisk() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("smallfs-aac")
            let scratch = try Live.tempDir("smallfs-aac-check")
            defer {
                Live.removeTree(dir)
                Live.removeTree(scratch)
            }
            // 32 KiB: about 2 s of AAC at ffmpeg's default 128 kbps for stereo.
            try Live.mountTmpfs(dir, "size=32k")
            defer { Live.unmount(dir) }
            let file = dir + "/full.m4a"
            let (p, _) = try LiveSuite.startRecording(file, [], server: server)
            let feeder = server.startFeeding(Containers.tone(frames: 8 * 48000), speed: 4)
            defer { server.stopFeeding(feeder) }
            let lines = try parseLines(p.readToEnd(timeout: 20))
            #expect(p.wait(timeout: 5) == 74)
            let line = try #require(LiveSuite.errorLine(p.stderrText), "one `pulsemeter: ` line, got: \(p.stderrText)")
            #expect(line.contains("ffmpeg") && line.contains(file), "\(line)")
            #expect(line.contains("No space left on device"), "ffmpeg's own report: \(line)")
            let copy = scratch + "/full.m4a"
            try FileManager.default.copyItem(atPath: file, toPath: copy)
            let decoded = try decodeWithFFmpeg(copy)
            let plays = decoded.samples.count / 2
            #expect(plays >= 24000, "at least half a second plays: \(plays) frames")
            // The end line says what the file is known to hold: its complete fragments (less
            // the encoder's 1024 frames of priming). ffmpeg may also decode part of a last,
            // cut fragment (at most half a second).
            let end = try #require(lines.last { $0.type == "end" }, "no end line")
            let recorded = try #require(end.int("recorded_frames"))
            #expect(recorded > 0 && recorded <= plays && plays - recorded <= 24000 + 2048,
                    "recorded_frames \(recorded), ffmpeg decodes \(plays)")
        }

        /// `normalize` onto a 256 KiB tmpfs that 20 s of stereo cannot fit in any of the
        /// containers: exit 74 naming the file and the reason, one line, nothing left there (the
        /// hidden file removed), an existing OUT given with --force left as it was; a read-only
        /// one is 73 (the output cannot be created). No server: the tmpfs helper is here.
        @Test("normalize onto a full filesystem: exit 74, one line, nothing partial left")
        func normalizeFillsTheDisk() throws {
            let dir = try Live.tempDir("smallfs-norm")
            let scratch = try Live.tempDir("smallfs-norm-in")
            defer {
                Live.removeTree(dir)
                Live.removeTree(scratch)
            }
            let input = scratch + "/twenty.wav"
            let made = try run(["sox", "-q", "-n", "-r", "48000", "-c", "2", "-b", "16", input, "synth", "20", "pinknoise", "vol", "0.3"])
            #expect(made.status == 0, "sox: \(made.stderr)")
            try Live.mountTmpfs(dir, "size=256k")
            defer { Live.unmount(dir) }
            let kept = dir + "/kept.wav"
            try Data("keep".utf8).write(to: URL(fileURLWithPath: kept))
            for (name, force) in [("out.wav", false), ("out.flac", false), ("out.ogg", false), ("out.mp3", false),
                                  ("out.m4a", false), ("kept.wav", true)] {
                let out = dir + "/" + name
                let r = try run([try Live.bin(), "normalize", input, "-o", out, "--target", "-16"] + (force ? ["--force"] : []))
                #expect(r.status == 74, "\(name): exit \(r.status), \(r.stderr)")
                let line = LiveSuite.errorLine(r.stderr)
                #expect(line != nil, "\(name): one `pulsemeter: ` line, got: \(r.stderr)")
                #expect(line?.contains("No space left on device") == true && line?.contains(out) == true, "\(line ?? "")")
                #expect(r.stdout.isEmpty, "\(name): no end line for a file not written: \(r.stdout)")
                let names = try FileManager.default.contentsOfDirectory(atPath: dir)
                #expect(names == ["kept.wav"], "\(name): nothing partial left: \(names)")
            }
            #expect(try String(contentsOfFile: kept, encoding: .utf8) == "keep", "the existing OUT intact")
            Live.unmount(dir)
            try Live.mountTmpfs(dir, "ro,size=64k")
            let ro = try run([try Live.bin(), "normalize", input, "-o", dir + "/out.wav", "--target", "-16"])
            #expect(ro.status == 73, "read-only: exit \(ro.status), \(ro.stderr)")
            let roLine = LiveSuite.errorLine(ro.stderr)
            #expect(roLine?.contains("Read-only file system") == true, "\(roLine ?? ro.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        }

        @Test("recording into a read-only directory: exit 73 before capture starts")
        func readOnlyDirectory() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("rofs")
            defer { Live.removeTree(dir) }
            // Root may write anywhere on a writable filesystem, so make one that is read-only.
            try Live.mountTmpfs(dir, "ro,size=64k")
            defer { Live.unmount(dir) }
            for args in [["record", dir + "/x.wav"], ["monitor", "--record", dir + "/x.flac"]] {
                let p = try pulsemeter(args + ["-d", server.feedSource, "-f", "ndjson"], server: server)
                let out = p.readToEnd(timeout: 10)
                #expect(p.wait(timeout: 5) == 73, "\(args)")
                let line = LiveSuite.errorLine(p.stderrText)
                #expect(line?.contains("Read-only file system") == true, "\(line ?? p.stderrText)")
                #expect(out.isEmpty, "no capture, so no meter output: \(out)")
            }
        }
    }
}
