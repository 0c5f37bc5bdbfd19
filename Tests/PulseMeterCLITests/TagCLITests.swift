import Foundation
import MeterCore
import MeterIO
import Testing
import TestSupport

/// `pulsemeter tag`: ReplayGain 2.0 and Opus R128 tags against Debian's loudgain (libebur128;
/// `-O` prints its values without writing) on the same files, read back by ffprobe and by
/// TagLib, the audio stream's bytes unchanged (ffmpeg's md5 of the stream copied), and the
/// dry run, --skip-existing and errors as the contract says.
@Suite struct TagCLITests {
    static let ffmpeg = Tool.which("ffmpeg"), ffprobe = Tool.which("ffprobe"), loudgain = Tool.which("loudgain")

    /// Three tracks of different loudness, a few seconds each (faded in: an abrupt onset rings
    /// in any true-peak oversampler), as FLAC made by sox, then `ext` made by ffmpeg.
    static func album(_ ext: String, in dir: TempDir) throws -> [String] {
        let ffmpeg = try #require(ffmpeg, "ffmpeg is not installed (scripts/setup installs it)")
        let sources: [[String]] = [
            ["synth", "4", "pinknoise", "vol", "0.3"],
            ["synth", "3", "sine", "440", "vol", "0.25"],
            ["synth", "5", "brownnoise", "vol", "0.6"],
        ]
        return try sources.enumerated().map { i, synth in
            let flac = dir.path("src\(i).flac")
            try Tool.sox(["-R", "-q", "-n", "-r", "48000", "-c", "2", "-b", "16", flac] + synth + ["fade", "0.1", "-0", "0.1"])
            guard ext != "flac" else { return flac }
            let out = dir.path("track\(i).\(ext)")
            var codec: [String] = []
            if ext == "mp3" { codec = ["-c:a", "libmp3lame", "-b:a", "192k"] }
            if ext == "m4a" { codec = ["-c:a", "aac", "-b:a", "192k"] }
            let r = try Tool.exec(ffmpeg, ["-nostdin", "-v", "error", "-y", "-i", flac] + codec + [out])
            #expect(r.status == 0, "ffmpeg \(ext): \(r.err)")
            return out
        }
    }

    /// The audio stream's packets' md5 (ffmpeg, stream copy): what tagging must not change.
    static func audioMD5(_ path: String) throws -> String {
        let r = try Tool.exec(try #require(ffmpeg), ["-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-c", "copy", "-f", "md5", "-"])
        #expect(r.status == 0, "ffmpeg md5: \(r.err)")
        return r.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Format and stream tags as ffprobe reads them, keys uppercased.
    static func probeTags(_ path: String) throws -> [String: String] {
        let r = try Tool.exec(try #require(ffprobe), ["-v", "error", "-show_entries", "format_tags:stream_tags", "-of", "flat=s=_", path])
        #expect(r.status == 0, "ffprobe: \(r.err)")
        var tags: [String: String] = [:]
        for line in r.out.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "="), let tag = line.range(of: "tags_") else { continue }
            let key = line[tag.upperBound..<eq].uppercased()
            tags[key] = String(line[line.index(after: eq)...]).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return tags
    }

    /// loudgain's values without writing (`-a -O`): per file and for the album, the gain (dB)
    /// and its peak (libebur128's true peak, a ratio).
    static func loudgainValues(_ files: [String]) throws -> (tracks: [(gain: Double, peak: Double)], album: (gain: Double, peak: Double)) {
        let lg = try #require(loudgain, "loudgain is not installed (scripts/setup installs it)")
        let r = try Tool.exec(lg, ["-q", "-a", "-O"] + files)
        #expect(r.status == 0, "loudgain: \(r.err)")
        var rows: [String: (Double, Double)] = [:]
        for line in r.out.split(separator: "\n").dropFirst() {
            let f = line.split(separator: "\t").map(String.init)
            guard f.count >= 9, let peak = Double(f[3]), let gain = Double(f[8].split(separator: " ")[0]) else { continue }
            rows[f[0] == "Album" ? "Album" : URL(fileURLWithPath: f[0]).lastPathComponent] = (gain, peak)
        }
        let tracks = try files.map { try #require(rows[URL(fileURLWithPath: $0).lastPathComponent], "loudgain: no row for \($0): \(r.out)") }
        return (tracks.map { ($0.0, $0.1) }, try #require(rows["Album"]).self)
    }

    static func db(_ text: String?) -> Double? { text.flatMap { Double($0.split(separator: " ")[0]) } }
    static func peakDb(_ text: String?) -> Double? { text.flatMap(Double.init).map { 20 * log10($0) } }

    @Test(arguments: ["flac", "ogg", "mp3", "m4a", "wv"])
    func tagsEqualLoudgainsAndLeaveTheAudio(_ ext: String) throws {
        let dir = try TempDir()
        let files = try Self.album(ext, in: dir)
        let reference = try Self.loudgainValues(files)
        let before = try files.map(Self.audioMD5)
        let r = try Tool.run(["tag", "--album", "--true-peak", "-f", "ndjson"] + files)
        #expect(r.status == 0, "tag: \(r.err)")
        let lines = try Tool.ndjson(r)
        #expect(lines.map { $0["file"] as? String } == files.map { Optional($0) })
        #expect(lines.allSatisfy { $0["action"] as? String == "written" })
        for (i, file) in files.enumerated() {
            let tags = try Self.probeTags(file)
            let track = reference.tracks[i]
            let gain = try #require(Self.db(tags["REPLAYGAIN_TRACK_GAIN"]), "\(file): \(tags)")
            #expect(abs(gain - track.gain) <= 0.1, "\(ext) track \(i): gain \(gain) vs loudgain \(track.gain)")
            // True peaks: libebur128's 4x oversampler reads up to 0.2 dB high through its
            // ripple (docs/architecture.md, "Loudness"); pulsemeter's peak is the band-limited
            // signal's (pink noise here: 0.12 dB under libebur128's). Never above it by more
            // than 0.1 dB, never below by more than 0.2.
            let peak = try #require(Self.peakDb(tags["REPLAYGAIN_TRACK_PEAK"]))
            let lgPeak = 20 * log10(track.peak)
            #expect(peak - lgPeak <= 0.1 && lgPeak - peak <= 0.2, "\(ext) track \(i): peak \(peak) dB vs loudgain \(lgPeak)")
            let albumGain = try #require(Self.db(tags["REPLAYGAIN_ALBUM_GAIN"]))
            #expect(abs(albumGain - reference.album.gain) <= 0.1, "\(ext) album gain \(albumGain) vs loudgain \(reference.album.gain)")
            let albumPeak = try #require(Self.peakDb(tags["REPLAYGAIN_ALBUM_PEAK"]))
            let lgAlbumPeak = 20 * log10(reference.album.peak)
            #expect(albumPeak - lgAlbumPeak <= 0.1 && lgAlbumPeak - albumPeak <= 0.2, "\(ext) album peak \(albumPeak) vs loudgain \(lgAlbumPeak)")
            // The texts as RG 2.0 writes them, and TagLib (through the wrapper) reads the same.
            #expect(tags["REPLAYGAIN_TRACK_GAIN"]?.range(of: #"^-?[0-9]+\.[0-9]{2} dB$"#, options: .regularExpression) != nil)
            #expect(tags["REPLAYGAIN_TRACK_PEAK"]?.range(of: #"^[0-9]+\.[0-9]{6}$"#, options: .regularExpression) != nil)
            let taglib = try TagFile(FilePath(file))
            for key in ["REPLAYGAIN_TRACK_GAIN", "REPLAYGAIN_TRACK_PEAK", "REPLAYGAIN_ALBUM_GAIN", "REPLAYGAIN_ALBUM_PEAK"] {
                #expect(taglib.value(key) == tags[key], "\(file) \(key): TagLib \(taglib.value(key) ?? "none"), ffprobe \(tags[key] ?? "none")")
            }
        }
        #expect(try files.map(Self.audioMD5) == before, "\(ext): the audio stream changed")
    }

    /// Without --true-peak the peak is the sample peak: sox's "Pk lev dB".
    @Test func peaksAreSamplePeaks() throws {
        let dir = try TempDir()
        let files = try Self.album("flac", in: dir)
        let r = try Tool.run(["tag", "-f", "ndjson"] + files)
        #expect(r.status == 0, "tag: \(r.err)")
        for file in files {
            let sox = try Tool.soxStats(file, channels: 2).peak.max()!
            let peak = try #require(Self.peakDb(try Self.probeTags(file)["REPLAYGAIN_TRACK_PEAK"]))
            #expect(abs(peak - sox) <= 0.01, "\(file): peak \(peak) dB vs sox \(sox)")
            #expect(try Self.probeTags(file)["REPLAYGAIN_ALBUM_GAIN"] == nil)
        }
    }

    /// Opus: R128_TRACK_GAIN / R128_ALBUM_GAIN, Q7.8 of -23 LUFS - I (RFC 7845), no
    /// REPLAYGAIN_* keys, and the header's output gain still 0.
    @Test func opusGetsR128Gains() throws {
        let dir = try TempDir()
        let files = try Self.album("opus", in: dir)
        let reference = try Self.loudgainValues(files)
        let before = try files.map(Self.audioMD5)
        let r = try Tool.run(["tag", "--album", "-f", "ndjson"] + files)
        #expect(r.status == 0, "tag: \(r.err)")
        let lines = try Tool.ndjson(r)
        for (i, file) in files.enumerated() {
            let tags = try Self.probeTags(file)
            let q = try #require(tags["R128_TRACK_GAIN"].flatMap { Int($0) }, "\(file): \(tags)")
            let albumQ = try #require(tags["R128_ALBUM_GAIN"].flatMap { Int($0) })
            // Exact from the measured I (the line's I has 2 decimals: 256 * 0.005 either way).
            let measured = try #require(Tool.double(lines[i]["lufs_i"])), albumI = try #require(Tool.double(lines[i]["album_lufs_i"]))
            #expect(abs(Double(q) - 256 * (-23 - measured)) <= 256 * 0.005 + 0.5, "R128 \(q) for I \(measured)")
            #expect(abs(Double(albumQ) - 256 * (-23 - albumI)) <= 256 * 0.005 + 0.5)
            // loudgain's Opus gain is relative to -23 LUFS too.
            #expect(abs(Double(q) / 256 - reference.tracks[i].gain) <= 0.1, "R128 \(q) vs loudgain \(reference.tracks[i].gain)")
            #expect(abs(Double(albumQ) / 256 - reference.album.gain) <= 0.1)
            #expect(tags.keys.allSatisfy { !$0.hasPrefix("REPLAYGAIN") })
            // OpusHead: output gain, little-endian int16 at byte 16 of the header packet.
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            let head = try #require(bytes.indices.first { i in i + 18 <= bytes.count && Array(bytes[i..<i + 8]) == Array("OpusHead".utf8) })
            #expect(Int16(bitPattern: UInt16(bytes[head + 16]) | UInt16(bytes[head + 17]) << 8) == 0)
        }
        #expect(try files.map(Self.audioMD5) == before)
    }

    /// --dry-run writes nothing and shows what is there; --skip-existing leaves files that
    /// already hold the values alone.
    @Test func dryRunAndSkipExisting() throws {
        let dir = try TempDir()
        let file = try Self.album("flac", in: dir)[0]
        let untouched = try Data(contentsOf: URL(fileURLWithPath: file))
        let dry = try Tool.ndjson(try Tool.run(["tag", "--dry-run", "-f", "ndjson", file]))
        #expect(dry.count == 1 && dry[0]["action"] as? String == "dry_run")
        #expect((dry[0]["existing"] as? [String: String]) == [:])
        let new = try #require(dry[0]["tags"] as? [String: String])
        #expect(Set(new.keys) == ["REPLAYGAIN_TRACK_GAIN", "REPLAYGAIN_TRACK_PEAK"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == untouched)

        #expect(try Tool.run(["tag", file]).status == 0)
        let tagged = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(tagged != untouched)
        let again = try Tool.ndjson(try Tool.run(["tag", "--dry-run", "-f", "ndjson", file]))
        #expect((again[0]["existing"] as? [String: String]) == new)
        let skip = try Tool.ndjson(try Tool.run(["tag", "--skip-existing", "-f", "ndjson", file]))
        #expect(skip[0]["action"] as? String == "skipped")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == tagged)
        // Values that differ are written, with or without --skip-existing.
        let album = try Tool.ndjson(try Tool.run(["tag", "--skip-existing", "--album", "-f", "ndjson", file]))
        #expect(album[0]["action"] as? String == "written")
        #expect((album[0]["existing"] as? [String: String]) == new)
    }

    /// `--dry-run -f csv`: a header row and a row per file that Python's csv module reads into
    /// the NDJSON line's values (a file whose name has a comma and a quote included), the
    /// existing values in their own columns; nothing written.
    @Test func dryRunAsCSV() throws {
        let dir = try TempDir()
        var files = try Self.album("flac", in: dir)
        let odd = dir.path("a, \"b\".flac")
        try FileManager.default.moveItem(atPath: files[1], toPath: odd)
        files[1] = odd
        #expect(try Tool.run(["tag", files[0]]).status == 0)  // the first holds a track gain already
        let before = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let nd = try Tool.ndjson(try Tool.run(["tag", "--album", "--dry-run", "-f", "ndjson"] + files))
        let r = try Tool.run(["tag", "--album", "--dry-run", "-f", "csv"] + files)
        #expect(r.status == 0, "\(r.err)")
        let rows = try CSVCLITests.parse(r.stdout)
        let keys = ReplayGain.keys(album: true, opus: false) + ReplayGain.keys(album: true, opus: true)
        #expect(rows.first == ["file", "action", "lufs_i", "peak", "album_lufs_i", "album_peak"] + keys + keys.map { "existing_" + $0 })
        #expect(rows.count == 1 + files.count)
        for (row, line) in zip(rows.dropFirst(), nd) {
            let field = Dictionary(uniqueKeysWithValues: zip(rows[0], row))
            #expect(field["file"] == line["file"] as? String && field["action"] == "dry_run")
            for key in ["lufs_i", "peak", "album_lufs_i", "album_peak"] {
                #expect(field[key].flatMap(Double.init) == line[key] as? Double, "\(key)")
            }
            let new = try #require(line["tags"] as? [String: String]), existing = try #require(line["existing"] as? [String: String])
            for key in keys {
                #expect(field[key] == new[key] ?? "", "\(key)")
                #expect(field["existing_" + key] == existing[key] ?? "", "existing \(key)")
            }
        }
        #expect(rows[1][rows[0].firstIndex(of: "existing_REPLAYGAIN_TRACK_GAIN")!] != "")
        #expect(try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
    }

    /// On a terminal (or -f ansi) a table: a header, a row per file with its values in the
    /// header's columns and the file last, and under it the values it already holds.
    @Test func aTableWithTheExistingValues() throws {
        let dir = try TempDir()
        let files = Array(try Self.album("flac", in: dir).prefix(2))
        #expect(try Tool.run(["tag", files[0]]).status == 0)
        let r = try Tool.run(["tag", "--dry-run", "--album", "-f", "ansi"] + files)
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(r.out)")
        let header = lines[0]
        for column in ["LUFS", "track gain", "track peak", "album gain", "album peak", "action", "file"] {
            #expect(header.contains(column), "\(header)")
        }
        let ndjson = try Tool.ndjson(try Tool.run(["tag", "--dry-run", "--album", "-f", "ndjson"] + files))
        for (row, line) in zip([lines[1], lines[3]], ndjson) {
            #expect(row.hasSuffix(files[ndjson.firstIndex { $0["file"] as? String == line["file"] as? String }!]))
            let tags = try #require(line["tags"] as? [String: String])
            // Each value starts where its column's heading starts.
            for (column, key) in [("track gain", "REPLAYGAIN_TRACK_GAIN"), ("album peak", "REPLAYGAIN_ALBUM_PEAK")] {
                let at = header.distance(from: header.startIndex, to: header.range(of: column)!.lowerBound)
                let value = try #require(tags[key])
                #expect(row.dropFirst(at).hasPrefix(value), "\(column): \(row)")
            }
            #expect(row.contains("dry run"))
        }
        // The first file's track tags, already there, in the row under it.
        #expect(lines[2].hasSuffix("existing"))
        let written = try Self.probeTags(files[0])["REPLAYGAIN_TRACK_GAIN"]!
        #expect(lines[2].contains(written))
    }

    /// A missing file, one that is not audio and one TagLib cannot tag: one stderr line each,
    /// naming it; the others tagged; the first failure's code.
    @Test func failuresAreOneLineEachAndTheRestAreTagged() throws {
        let dir = try TempDir()
        let good = try Self.album("flac", in: dir)[0]
        let text = try dir.write(Array("not audio\n".utf8), "notes.flac")
        let au = dir.path("tone.au")
        try Tool.sox(["-q", "-n", "-r", "48000", "-c", "1", au, "synth", "1", "sine", "1000", "vol", "0.5"])
        let r = try Tool.run(["tag", "-f", "ndjson", dir.path("missing.flac"), text, au, good])
        #expect(r.status == 66, "exit \(r.status): \(r.err)")
        let errors = r.err.split(separator: "\n")
        #expect(errors.count == 3, "\(r.err)")
        #expect(errors.allSatisfy { $0.hasPrefix("pulsemeter: ") })
        #expect(errors[0].contains("missing.flac") && errors[1].contains("notes.flac") && errors[2].contains("tone.au"))
        #expect(errors[2].contains("cannot tag"))
        let lines = try Tool.ndjson(r)
        #expect(lines.map { $0["file"] as? String } == [good])
        #expect(try Self.probeTags(good)["REPLAYGAIN_TRACK_GAIN"] != nil)
        let notAudio = try Tool.run(["tag", text, au])
        #expect(notAudio.status == 65)

        Tool.expectError(try Tool.run(["tag"]), 64, mentions: ["FILE"])
        Tool.expectError(try Tool.run(["tag", "--album", "--shard", "1/2", good]), 64, mentions: ["--shard", "--album"])
    }

    /// A file that cannot be written (immutable, `chattr +i`: refused to root as well, where
    /// the tests run): exit 73, one line saying so, and the file as it was.
    @Test func anUnwritableFileIsExit73() throws {
        let dir = try TempDir()
        let file = try Self.album("flac", in: dir)[0]
        let chattr = try #require(Tool.which("chattr"), "chattr is not installed (e2fsprogs; scripts/setup installs it)")
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let locked = try Tool.exec(chattr, ["+i", file])
        try #require(locked.status == 0, "this file system does not take chattr +i: \(locked.err)")
        defer { _ = try? Tool.exec(chattr, ["-i", file]) }
        let r = try Tool.run(["tag", "-f", "ndjson", file])
        Tool.expectError(r, 73, mentions: ["cannot write the tags", "src0.flac"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }
}
