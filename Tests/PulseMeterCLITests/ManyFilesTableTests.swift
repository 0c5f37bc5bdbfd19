import Foundation
import MeterCore
import MeterIO
@testable import PulseMeterCLI
import Testing
import TestSupport

/// A many-file `analyze` for a person (a terminal, or `-f ansi`): a table of one row a file
/// (`LoudnessTable`), and `--recursive`, which walks directories (`DirectoryWalk`). The run on a
/// real terminal is LiveTests' "many files on a terminal" (tmux).
@Suite struct ManyFilesTableTests {
    /// A stereo 1 kHz sine of `seconds` at `peakDb` dBFS: its integrated loudness is `peakDb`
    /// LUFS within 0.01 (BS.1770: -3.01 a channel, two channels), its true peak `peakDb`.
    static func sine(_ path: String, peakDb: Double, seconds: Int = 3) throws {
        try Tool.sox(["-q", "-n", "-r", "48000", "-c", "2", "-b", "24", path, "synth", String(seconds), "sine", "1000",
                      "vol", String(format: "%.2fdB", peakDb)])
    }

    /// The column each heading starts at.
    static func start(_ header: String, _ heading: String) throws -> Int {
        let r = try #require(header.range(of: heading), "\(heading) in \(header)")
        return header.distance(from: header.startIndex, to: r.lowerBound)
    }

    @Test("the renderer: headings over right-aligned figures, the verdict's column as wide as every rule failing, the name last and escaped")
    func renderer() throws {
        let rules = DeliveryRules(DeliveryPreset.named("ebu-r128-s1")!, live: false)
        let table = LoudnessTable(gain: true, rules: rules)
        var loud = LoudnessSummary(integrated: -20.004, range: 3.456, maxMomentary: -17, maxShortTerm: -17.5,
                                   truePeakDb: [-0.5, -0.75], target: -23)
        loud.rules = rules
        var fine = LoudnessSummary(integrated: -23.1, range: 12.5, maxMomentary: -20, maxShortTerm: -19,
                                   truePeakDb: [-3], target: -23)
        fine.rules = rules
        let header = table.header
        let a = table.row(FilePath("loud \u{1B}[2J.wav"), loud)
        let b = table.row(FilePath("a/very/long/name/that/moves/nothing.flac"), fine)
        #expect(header == " I LUFS  LRA LU  TP dBTP  gain dB  verdict                                     file\n")
        #expect(a == " -20.00    3.46    -0.50    -3.00  FAIL integrated, true peak, max short-term  loud \\e[2J.wav\n")
        #expect(b == " -23.10   12.50    -3.00    +0.10  PASS                                        a/very/long/name/that/moves/nothing.flac\n")
        // Each figure ends where its heading ends; the file starts where "file" does.
        for (heading, cell) in [("I LUFS", "-20.00"), ("LRA LU", "3.46"), ("TP dBTP", "-0.50"), ("gain dB", "-3.00")] {
            let end = try Self.start(header, heading) + heading.count
            #expect(String(a.prefix(end)).hasSuffix(cell), "\(heading): \(a)")
        }
        #expect(a.dropFirst(try Self.start(header, "file")).hasPrefix("loud "))
        #expect(b.dropFirst(try Self.start(header, "file")).hasPrefix("a/very"))
        // No target, no rules: three figures and the file.
        let plain = LoudnessTable(gain: false, rules: nil)
        #expect(plain.header == " I LUFS  LRA LU  TP dBTP  file\n")
        #expect(plain.row(FilePath("x.wav"), fine) == " -23.10   12.50    -3.00  x.wav\n")
    }

    @Test("tag's table pads through the same columns: its rows unchanged")
    func tagTableLayout() {
        let w = TagCommand.Writer(dryRun: true, skipExisting: false, format: .ansi, album: false)
        #expect(String(decoding: w.header(), as: UTF8.self) == "   LUFS  track gain  track peak  action   file\n")
        let row = w.row(FilePath("a.flac"), track: .init(integrated: -20.99, peak: 0.27), album: nil,
                        new: [("REPLAYGAIN_TRACK_GAIN", "2.99 dB"), ("REPLAYGAIN_TRACK_PEAK", "0.270000")],
                        existing: [("REPLAYGAIN_TRACK_GAIN", "1.00 dB")], action: "dry_run")
        #expect(String(decoding: row, as: UTF8.self)
            == " -20.99  2.99 dB     0.270000    dry run  a.flac\n         1.00 dB     -           existing\n")
    }

    @Test("-f ansi with many files: a row a file in list order, figures equal to the end lines', errors on stderr, the verdicts last")
    func tableOfFiles() throws {
        let dir = try TempDir()
        let quiet = dir.path("quiet.wav"), hot = dir.path("hot.flac"), ok = dir.path("ok.wav")
        try Self.sine(quiet, peakDb: -30)
        try Self.sine(hot, peakDb: -0.5)
        try Self.sine(ok, peakDb: -23)
        let bad = try dir.write(Array("not audio\n".utf8), "bad.wav")
        let files = [quiet, bad, hot, ok]
        let r = try Tool.run(["analyze", "-f", "ansi", "--preset", "ebu-r128", "-j", "2"] + files)
        #expect(r.status == 65, "the error's code comes first: \(r.err)")
        let err = r.err.split(separator: "\n")
        #expect(err.count == 1 && err[0].hasPrefix("pulsemeter: ") && err[0].contains("bad.wav"), "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(r.out)")
        let header = lines[0]
        #expect(header.hasSuffix("file") && header.contains("verdict") && header.contains("gain dB"))
        #expect(lines[4] == "3 files judged: 1 pass, 2 fail")
        let ndjson = try Tool.ndjson(try Tool.run(["analyze", "--preset", "ebu-r128"] + [quiet, hot, ok]))
        let verdicts = ["FAIL integrated", "FAIL integrated, true peak", "PASS"]
        for (i, (row, end)) in zip(lines[1...3], ndjson.filter { $0["type"] as? String == "end" }).enumerated() {
            #expect(row.hasSuffix("  " + (end["file"] as! String)), "\(row)")
            let cells = row.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            #expect(Double(cells[0]) == Tool.double(end["lufs_i"]), "\(row) \(end)")
            #expect(Double(cells[1]) == Tool.double(end["lra"]))
            #expect(Double(cells[2]) == Tool.doubles(end["true_peak_db"]).max())
            #expect(Double(cells[3]) == Tool.double(end["gain_db"]))
            #expect(row.contains("  " + verdicts[i] + " "), "\(row)")
            let tp = try Self.start(header, "TP dBTP") + "TP dBTP".count
            #expect(String(row.prefix(tp)).hasSuffix(cells[2]), "the true peak under its heading: \(row)")
        }
        // Without rules there is no verdict column and no count; --loudness is not needed.
        let plain = try Tool.run(["analyze", "-f", "ansi", quiet, ok])
        #expect(plain.status == 0 && plain.err.isEmpty, "\(plain.err)")
        #expect(plain.out.split(separator: "\n").count == 3 && !plain.out.contains("verdict") && !plain.out.contains("judged"), "\(plain.out)")
        // Off a terminal NDJSON stays; --frames asks for NDJSON lines, which the table is not.
        #expect(try Tool.run(["analyze", quiet, ok]).out.hasPrefix("{\"type\":\"end\""))
        Tool.expectError(try Tool.run(["analyze", "-f", "ansi", "--frames", quiet, ok]), 64, mentions: ["--frames", "--format ansi"])
    }

    /// A nested tree: audio in directories at two depths, a non-audio file, a hidden file and
    /// directory, a symbolic link to a directory (a loop), a link to a file, upper-case
    /// extensions, names that sort differently as paths than as components.
    @Test("--recursive: the audio files under a directory by extension, sorted by path bytewise, dot names and linked directories left out")
    func recursive() throws {
        let dir = try TempDir()
        let fm = FileManager.default
        for d in ["tree/sub/deep", "tree/.hidden", "tree/B"] {
            try fm.createDirectory(atPath: dir.path(d), withIntermediateDirectories: true)
        }
        let tone = dir.path("tree/a.wav")
        try Self.sine(tone, peakDb: -20, seconds: 1)
        for name in ["tree/sub.wav", "tree/sub/deep/z.WAV", "tree/sub/c.wav", "tree/B/x.wav", "tree/.hidden/h.wav", "tree/.dot.wav"] {
            try fm.copyItem(atPath: tone, toPath: dir.path(name))
        }
        try Tool.sox(["-q", tone, dir.path("tree/sub/b.flac")])
        _ = try dir.write(Array("notes\n".utf8), "tree/sub/notes.txt")
        try fm.createSymbolicLink(atPath: dir.path("tree/sub/loop"), withDestinationPath: "..")
        try fm.createSymbolicLink(atPath: dir.path("tree/link.wav"), withDestinationPath: "a.wav")
        let root = dir.path("tree")
        let expected = ["B/x.wav", "a.wav", "link.wav", "sub.wav", "sub/b.flac", "sub/c.wav", "sub/deep/z.WAV"].map { root + "/" + $0 }

        let r = try Tool.run(["analyze", "--recursive", root + "/"])
        #expect(r.status == 0, "\(r.err)")
        #expect(try Tool.ndjson(r).map { $0["file"] as? String } == expected)
        // A file named beside the directory is taken as it is, in its place in the list.
        let mixed = try Tool.run(["analyze", "--recursive", dir.path("tree/sub/notes.txt"), dir.path("tree/sub/deep")])
        #expect(try Tool.ndjson(mixed).map { $0["file"] as? String } == [dir.path("tree/sub/notes.txt"), root + "/sub/deep/z.WAV"])
        #expect(mixed.status == 65)
        // The one list reader: waveform and tag walk the same way.
        func files(_ r: Tool.Result) throws -> [String?] {
            try r.out.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .map { $0?["file"] as? String }
        }
        let w = try Tool.run(["waveform", "--recursive", "--bars", "4", root])
        #expect(w.status == 0, "\(w.err)")
        #expect(try files(w) == expected)
        let t = try Tool.run(["tag", "--recursive", "--dry-run", "-f", "ndjson", root])
        #expect(t.status == 0, "\(t.err)")
        #expect(try files(t) == expected)

        // Without --recursive a directory is a usage error saying to give it, before any file.
        for command in [["analyze"], ["analyze", tone], ["waveform"], ["tag"]] {
            let e = try Tool.run(command + [root])
            Tool.expectError(e, 64, mentions: ["tree is a directory", "--recursive"])
            #expect(e.stdout.isEmpty)
        }
    }

    @Test("the shell completions offer audio files by the extensions --recursive takes")
    func completionsOfferTheWalksExtensions() throws {
        let bash = try InstallTests.text("completions/pulsemeter.bash")
        let fish = try InstallTests.text("completions/pulsemeter.fish")
        let zsh = try InstallTests.text("completions/_pulsemeter")
        for (name, text, pattern) in [("bash", bash, #"_pulsemeter_audio_ext='@\(([^)]*)\)'"#),
                                      ("fish", fish, #"'\\\.\(([^)]*)\)\$'"#),
                                      ("zsh", zsh, #"\(#i\)\(([^)]*)\)"#)] {
            let match = try #require(try Regex(pattern).firstMatch(in: text), "\(name): no list of extensions")
            let list = try #require(match.output[1].substring)
            #expect(Set(list.split(separator: "|").map { $0.lowercased() }) == AudioFile.extensions, "\(name): \(list)")
        }
    }
}
