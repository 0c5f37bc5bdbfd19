import Foundation
import Testing
import TestSupport

/// `analyze FILE...`, `waveform FILE...`, `--files-from`, `-j`, `--shard`: one line per
/// file carrying `file`, identical to the single-file run's, in list order.
@Suite struct ManyFilesCLITests {
    /// A small corpus: mono and stereo, WAV, FLAC and Ogg, different rates and lengths.
    static func corpus(_ dir: TempDir, count: Int = 6) throws -> [String] {
        let kinds: [(ext: String, rate: Int, channels: Int)] = [
            ("wav", 16000, 1), ("flac", 48000, 2), ("ogg", 22050, 2), ("wav", 44100, 2), ("flac", 8000, 1), ("ogg", 16000, 1),
        ]
        return try (0..<count).map { i in
            let k = kinds[i % kinds.count]
            let path = dir.path("m\(i).\(k.ext)")
            try Tool.sox(["-q", "-n", "-r", "\(k.rate)", "-c", "\(k.channels)", path,
                          "synth", String(format: "%.2f", 0.3 + Double(i % 5) * 0.11), "pinknoise", "vol", String(format: "%.2f", 0.2 + Double(i % 4) * 0.15)])
            return path
        }
    }

    /// The single-file run's lines of `analyze FILE args`.
    static func single(_ path: String, _ args: [String]) throws -> [String] {
        let r = try Tool.run(["analyze", path, "-f", "ndjson"] + args)
        #expect(r.status == 0, "\(r.err)")
        return r.out.split(separator: "\n").map(String.init)
    }

    /// A many-file run's lines with their `"file"` field taken out (wherever the encoder put it),
    /// checking that the lines carrying one name `files` in order: what is left must equal the
    /// single-file runs' lines bit for bit.
    static func strippingFile(_ out: String, files: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let field = try NSRegularExpression(pattern: #","file":"(?:[^"\\]|\\.)*""#)
        var named: [String] = []
        let lines = try out.split(separator: "\n").map { raw -> String in
            let line = String(raw)
            let obj = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if let f = obj["file"] as? String { named.append(f) }
            return field.stringByReplacingMatches(in: line, range: NSRange(line.startIndex..., in: line), withTemplate: "")
        }
        #expect(named == files, "one line per file carries its name, in list order", sourceLocation: sourceLocation)
        return lines
    }

    @Test("each file's end line equals the single-file run's plus file, in list order, for -j 1, 2, 4",
          arguments: [[], ["--bands", "16"], ["--duration", "0.25", "--window", "20"], ["--events", "--clip-db", "-12"], ["--loudness", "--target", "-16"]])
    func equalsSingleFileRuns(options: [String]) throws {
        let dir = try TempDir()
        let files = try Self.corpus(dir)
        let expected = try files.map { try #require(Self.single($0, options).last) }
        for jobs in ["1", "2", "4"] {
            let r = try Tool.run(["analyze"] + files + options + ["-j", jobs])
            #expect(r.status == 0, "\(r.err)")
            #expect(try Self.strippingFile(r.out, files: files) == expected, "-j \(jobs)")
            #expect(r.stderr.isEmpty)
        }
    }

    @Test("--frames: every line of each file, start, frames and events included, as a single-file run",
          arguments: [[], ["--events", "--silence-db", "-8", "--silence-min", "0.05", "--clip-db", "-10"]])
    func frames(options: [String]) throws {
        let dir = try TempDir()
        let files = try Self.corpus(dir, count: 3)
        var expected: [String] = []
        for f in files { expected += try Self.single(f, options) }
        if !options.isEmpty { #expect(expected.contains { $0.contains("\"type\":\"event\"") }, "the options give events") }
        let r = try Tool.run(["analyze", "--frames", "-j", "2"] + files + options)
        #expect(r.status == 0, "\(r.err)")
        #expect(try Self.strippingFile(r.out, files: files) == expected)
    }

    @Test("an m4a among the files is decoded through ffmpeg, as in a single run")
    func m4aThroughFFmpeg() throws {
        let dir = try TempDir()
        var files = try Self.corpus(dir, count: 2)
        let ffmpeg = try #require(Tool.which("ffmpeg"), "ffmpeg is not installed (scripts/setup installs it)")
        let m4a = dir.path("voice.m4a")
        let made = try Tool.exec(ffmpeg, ["-nostdin", "-loglevel", "error", "-i", files[0], "-c:a", "aac", m4a])
        #expect(made.status == 0, "\(made.err)")
        files.insert(m4a, at: 1)
        let expected = try files.map { try #require(Self.single($0, []).last) }
        let r = try Tool.run(["analyze", "-j", "2"] + files)
        #expect(r.status == 0, "stderr: \(r.err); stdout: \(r.out)")
        #expect(try Self.strippingFile(r.out, files: files) == expected)
    }

    @Test("a missing and an undecodable file give error lines among the good ones; exit is the first failure's code")
    func errorLines() throws {
        let dir = try TempDir()
        let files = try Self.corpus(dir, count: 3)
        let text = try dir.write(Array("not audio\n".utf8), "notes.wav")
        let missing = dir.path("gone.wav")
        let list = [files[0], text, files[1], missing, files[2]]
        let r = try Tool.run(["analyze", "-j", "2"] + list)
        #expect(r.status == 65, "the first failure in list order is the undecodable file: \(r.err)")
        let lines = try Tool.ndjson(r)
        #expect(lines.map { $0["file"] as? String } == list)
        #expect(lines.map { $0["type"] as? String } == ["end", "error", "end", "error", "end"])
        #expect(Tool.int(lines[1]["code"]) == 65 && Tool.int(lines[3]["code"]) == 66)
        #expect((lines[3]["message"] as? String)?.contains("gone.wav") == true)
        // Missing first: 66.
        let r2 = try Tool.run(["waveform", missing, text] + files)
        #expect(r2.status == 66)
        let objects = try r2.out.split(separator: "\n").map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.map { $0["file"] as? String } == [missing, text] + files)
        #expect(objects.map { $0["type"] as? String } == ["error", "error", nil, nil, nil], "waveform objects are the single run's, no type")
    }

    @Test("files that end early: each one's warning on stderr once, in list order, and exit 0, for analyze and waveform")
    func endsEarly() throws {
        let dir = try TempDir()
        let files = try Self.corpus(dir, count: 3)
        let truncated = try (0..<2).map { i -> String in
            let audio = TestAudio.make(rate: 8000, channels: 1, seconds: 1, encoding: .s16, seed: UInt64(40 + i))
            // The header claims 8000 frames; 3000 + 1000 i made it to disk.
            let bytes = WAV.file(rate: 8000, channels: 1, bits: 16, float: false,
                                 payload: Array(audio.rawBytes.prefix((3000 + 1000 * i) * 2)), dataSize: audio.rawBytes.count)
            return try dir.write(bytes, "cut\(i).wav")
        }
        let list = [truncated[0], files[0], files[1], truncated[1], files[2]]
        let expected = "pulsemeter: warning: \(truncated[0]) ends early: the header promises 8000 frames, found 3000\n"
            + "pulsemeter: warning: \(truncated[1]) ends early: the header promises 8000 frames, found 4000\n"
        for command in [["analyze"], ["waveform", "--bars", "5"]] {
            let r = try Tool.run(command + ["-j", "2"] + list)
            #expect(r.status == 0, "\(r.err)")
            #expect(r.err == expected)
            #expect(r.out.split(separator: Character("\n")).count == list.count)
        }
    }

    @Test("--files-from - (newlines) and --files-from0 / -0 (NUL), after the positionals")
    func filesFrom() throws {
        let dir = try TempDir()
        let files = try Self.corpus(dir, count: 4)
        let expected = try Tool.run(["analyze"] + files).out
        let newline = Data((files[1...].joined(separator: "\n") + "\n\n").utf8)
        let r = try Tool.run(["analyze", files[0], "--files-from", "-"], stdin: newline)
        #expect(r.status == 0 && r.out == expected, "\(r.err)")
        let nul = Data((files[1...].joined(separator: "\0") + "\0").utf8)
        for flags in [["-0", "--files-from", "-"], ["--files-from0", "-"], ["--null", "--files-from=-"]] {
            let r0 = try Tool.run(["analyze", files[0]] + flags, stdin: nul)
            #expect(r0.status == 0 && r0.out == expected, "\(flags): \(r0.err)")
        }
        let listFile = try dir.write(Array(files.joined(separator: "\n").utf8), "list.txt")
        let rf = try Tool.run(["analyze", "--files-from", listFile])
        #expect(rf.out == expected)
        // An empty list: no lines, exit 0. A missing list: exit 66.
        let empty = try Tool.run(["analyze", "--files-from", "-"], stdin: Data())
        #expect(empty.status == 0 && empty.stdout.isEmpty)
        Tool.expectError(try Tool.run(["analyze", "--files-from", dir.path("nolist")]), 66, mentions: ["nolist"])
    }

    @Test("--files-from0 with names that are not UTF-8, hold a newline, a quote or an escape sequence")
    func nulListOfOddNames() throws {
        let dir = try TempDir()
        let good = try Self.corpus(dir, count: 1)[0]
        let names: [[UInt8]] = [
            Array("caf".utf8) + [0xE9] + Array(".wav".utf8), Array("two\nlines.wav".utf8),
            Array("say \"hi\".wav".utf8), Array("\u{1B}]0;pwned\u{07}.wav".utf8), Array("-x.wav".utf8),
        ]
        var list: [UInt8] = []
        for n in names {
            let full = Array(dir.url.path.utf8) + [UInt8(ascii: "/")] + n
            try Tool.link(good, as: full)
            list += full + [0]
        }
        let expected = try #require(Self.single(good, []).last)
        let r = try Tool.run(["analyze", "--files-from0", "-", "-j", "2"], stdin: Data(list))
        #expect(r.status == 0, "\(r.err)")
        let lines = try Tool.ndjson(r)
        #expect(lines.count == names.count)
        for (line, n) in zip(lines, names) {
            let name = String(decoding: Array(dir.url.path.utf8) + [UInt8(ascii: "/")] + n, as: UTF8.self)
            #expect(line["file"] as? String == name)
        }
        // The numbers are the single run's (the file field aside).
        for raw in r.out.split(separator: "\n") {
            #expect(raw.hasPrefix(String(expected.dropLast()) + ",\"file\":"))
        }
        #expect(!r.stdout.contains(0x1B) && !r.stdout.contains(0x07), "JSON escapes control characters")
    }

    @Test("--shard K/N: the shards' lines put together are the whole run's, each file once")
    func shards() throws {
        let dir = try TempDir()
        let files = try Self.corpus(dir, count: 7)
        let whole = Set(try Tool.run(["analyze", "-j", "2"] + files).out.split(separator: "\n"))
        #expect(whole.count == 7)
        for n in [1, 2, 3, 7, 9] {
            var union: [Substring] = []
            for k in 1...n {
                let r = try Tool.run(["analyze", "--shard", "\(k)/\(n)", "--files-from", "-"], stdin: Data(files.joined(separator: "\n").utf8))
                #expect(r.status == 0, "\(r.err)")
                let lines = r.out.split(separator: "\n")
                // Shard k keeps list positions k, k+n, ... (1-based).
                let mine = stride(from: k - 1, to: files.count, by: n).map { files[$0] }
                #expect(try Tool.ndjson(r).map { $0["file"] as? String } == mine)
                union += lines
            }
            #expect(union.count == 7 && Set(union) == whole, "\(n) shards")
        }
        for bad in ["0/3", "3/2", "x/y", "1/0", "2", "1/2/3", "-1/2"] {
            Tool.expectError(try Tool.run(["analyze", "--shard", bad] + files), 64, mentions: ["--shard"])
        }
    }

    @Test("waveform FILE...: one JSON object per file, the single run's plus file; --unordered gives the same set")
    func waveforms() throws {
        let dir = try TempDir()
        let files = try Self.corpus(dir)
        let expected = try files.map { f -> String in String(try Tool.run(["waveform", f, "--bars", "12"]).out.dropLast()) }
        let r = try Tool.run(["waveform", "--bars", "12", "-j", "3"] + files)
        #expect(r.status == 0, "\(r.err)")
        #expect(try Self.strippingFile(r.out, files: files) == expected)
        let u = try Tool.run(["waveform", "--bars", "12", "--unordered"] + files)
        let unordered = u.out.split(separator: "\n").map(String.init)
        #expect(unordered.count == files.count)
        #expect(Set(unordered) == Set(r.out.split(separator: "\n").map(String.init)))
        Tool.expectError(try Tool.run(["waveform", "--format", "svg"] + files), 64, mentions: ["--format"])
        #expect(try Tool.run(["analyze", "-f", "ansi"] + files).out.hasPrefix(" I LUFS"), "many files with -f ansi: a table (ManyFilesTableTests)")
        Tool.expectError(try Tool.run(["analyze", "-j", "0"] + files), 64, mentions: ["--jobs"])
        // Files decode by their own headers: the raw stdin layout is refused, for both commands.
        for command in ["waveform", "analyze"] {
            Tool.expectError(try Tool.run([command, "--raw", "s16le"] + files), 64, mentions: ["--raw", "each file"])
            Tool.expectError(try Tool.run([command, "-r", "8000", "-c", "1", "--files-from", "/dev/null"]), 64,
                             mentions: ["--rate", "each file"])
        }
    }

    @Test("the GNU parallel recipe: two shards through parallel give the same set of lines as one run")
    func gnuParallel() throws {
        let dir = try TempDir()
        let files = try Self.corpus(dir, count: 6)
        let list = try dir.write(Array((files.joined(separator: "\n") + "\n").utf8), "list.txt")
        let whole = try Tool.run(["analyze", "--files-from", list]).out
        let parallel = try #require(Tool.which("parallel"), "GNU parallel is not installed (Debian: parallel)")
        // The README's recipe, run here with the built binary.
        let r = try Tool.exec(parallel, ["--will-cite", "-j", "2", Tool.binary, "analyze", "--files-from", list, "--shard", "{}/2", ":::", "1", "2"])
        #expect(r.status == 0, "\(r.err)")
        #expect(Set(r.out.split(separator: "\n")) == Set(whole.split(separator: "\n")))
        #expect(r.out.split(separator: "\n").count == 6)
    }

    @Test("docs/kubernetes-indexed-job.yaml: its pods' command, run for every completion index, covers the list once")
    func kubernetesIndexedJob() throws {
        let dir = try TempDir()
        let files = try Self.corpus(dir, count: 5)
        _ = try dir.write(Array(files.map { String($0.split(separator: "/").last!) }.joined(separator: "\n").utf8), "list.txt")
        let whole = Set(try Tool.exec("/bin/sh", ["-c", "cd \"$1\" && \"$0\" analyze --files-from list.txt", Tool.binary, dir.url.path]).out.split(separator: "\n"))
        #expect(whole.count == files.count)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let yaml = root.appendingPathComponent("docs/kubernetes-indexed-job.yaml").path
        // The Job's completions, its SHARDS value and its container command, read by a YAML parser.
        let py = try Tool.exec(try #require(Tool.which("python3")), ["-c", """
            import sys, yaml
            d = yaml.safe_load(open(sys.argv[1]))
            c = d["spec"]["template"]["spec"]["containers"][0]
            env = {e["name"]: e["value"] for e in c["env"]}
            assert d["spec"]["completionMode"] == "Indexed"
            print(d["spec"]["completions"]); print(env["SHARDS"]); print(c["args"][0])
            """, yaml])
        #expect(py.status == 0, "\(py.err)")
        let parts = py.out.split(separator: "\n", maxSplits: 2).map(String.init)
        #expect(parts.count == 3 && parts[0] == parts[1], "completions equal SHARDS")
        let shards = 3  // the same command with a smaller N
        let binDir = URL(fileURLWithPath: Tool.binary).deletingLastPathComponent().path
        for index in 0..<shards {
            let r = try Tool.exec("/bin/sh", ["-c", "cd '\(dir.url.path)' && " + parts[2]],
                                  environment: ["JOB_COMPLETION_INDEX": "\(index)", "SHARDS": "\(shards)",
                                                "PATH": binDir + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")])
            #expect(r.status == 0, "\(r.err)")
        }
        var union: [Substring] = []
        for k in 1...shards {
            union += try String(contentsOfFile: dir.path("results/shard-\(k).ndjson"), encoding: .utf8).split(separator: "\n")
        }
        #expect(union.count == files.count && Set(union) == whole)
    }

    @Test("progress on a terminal's stderr: files done of the total, files per second, ETA; erased at the end")
    func progressOnATerminal() throws {
        let dir = try TempDir()
        let files = try Self.corpus(dir, count: 3)
        // script(1) gives the run a terminal; stdout goes to a file, stderr stays on the terminal.
        let out = dir.path("out.ndjson")
        let command = ([Tool.binary, "analyze"] + files).map { "'\($0)'" }.joined(separator: " ") + " > '\(out)'"
        let r = try Tool.exec(try #require(Tool.which("script")), ["-qec", command, "/dev/null"])
        #expect(r.status == 0, "\(r.err)")
        let screen = r.out
        #expect(screen.contains("3/3 files"), "\(screen.debugDescription)")
        #expect(screen.contains("files/s") && screen.contains("ETA"))
        #expect(screen.hasSuffix("\r\u{1B}[K"), "the line is erased at the end")
        #expect(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count == 3, "stdout has only the lines")
    }

    @Test("stdout and stderr both the terminal, -f ndjson: no progress line mixed into the NDJSON")
    func noProgressIntoLinesOnTheSameTerminal() throws {
        let dir = try TempDir()
        let files = try Self.corpus(dir, count: 3)
        let command = ([Tool.binary, "analyze", "-f", "ndjson"] + files).map { "'\($0)'" }.joined(separator: " ")
        let r = try Tool.exec(try #require(Tool.which("script")), ["-qec", command, "/dev/null"])
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\r\n").map(String.init)
        #expect(lines.count == 3, "\(r.out.debugDescription)")
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "a whole JSON line: \(line.debugDescription)")
        }
        #expect(!r.out.contains("files/s") && !r.out.contains("\u{1B}[K"), "\(r.out.debugDescription)")
    }

    @Test("on a terminal: a table, a row a file with its verdict, the count last; an error on stderr; no progress")
    func aTableOnATerminal() throws {
        let dir = try TempDir()
        let files = try Self.corpus(dir, count: 3)
        let bad = try dir.write(Array("not audio\n".utf8), "bad.wav")
        let command = ([Tool.binary, "analyze", "--preset", "podcast", files[0], bad] + files.dropFirst()).map { "'\($0)'" }.joined(separator: " ")
        let r = try Tool.exec(try #require(Tool.which("script")), ["-qec", command, "/dev/null"])
        #expect(r.status == 65, "\(r.out.debugDescription)")
        let lines = r.out.split(separator: "\r\n").map(String.init)
        #expect(lines.count == 6, "\(r.out.debugDescription)")
        #expect(lines.first?.hasPrefix(" I LUFS  LRA LU  TP dBTP  gain dB  verdict") == true)
        let rows = lines.filter { $0.hasSuffix(".ogg") || $0.hasSuffix(".flac") || $0.hasSuffix("m0.wav") }
        #expect(rows.count == 3 && zip(rows, files).allSatisfy { $0.hasSuffix("  " + $1) }, "one row a file, in list order: \(lines)")
        #expect(rows.allSatisfy { $0.contains("  PASS  ") || $0.contains("  FAIL ") }, "\(rows)")
        let passed = rows.filter { $0.contains("  PASS  ") }.count
        #expect(lines.contains { $0.hasPrefix("pulsemeter: ") && $0.contains("bad.wav") }, "the error's stderr line: \(lines)")
        #expect(lines.last == "3 files judged: \(passed) pass, \(3 - passed) fail")
        #expect(!r.out.contains("{") && !r.out.contains("files/s"), "no NDJSON, no progress: \(r.out.debugDescription)")
    }
}
