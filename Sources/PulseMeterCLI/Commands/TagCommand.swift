import MeterCore
import MeterIO

/// `pulsemeter tag FILE... [--album] [--dry-run] [--skip-existing] [--true-peak]`: ReplayGain
/// 2.0 tags (Opus: R128 gains) from each file's loudness, written with TagLib.
///
/// Pass one measures every file through the same session `analyze` runs (the many-file
/// workers, `-j`); pass two tags, on the caller's thread: each file as its measurement arrives,
/// or with `--album` once every file is measured (the album's loudness is that of all the
/// files' gating blocks together, `IntegratedGate.merge`; its peak the largest). A file that
/// cannot be measured or tagged is one stderr line, and the exit status is the first such
/// file's code; the others are still tagged.
enum TagCommand {
    static let specs: [OptionSpec] = ManyFiles.specs + [
        OptionSpec("--album", value: false), OptionSpec("--dry-run", value: false),
        OptionSpec("--skip-existing", value: false), OptionSpec("--true-peak", value: false),
        OptionSpec("-f", "--format"), OptionSpec("-o", "--output"), OptionSpec("-h", "--help", value: false),
    ]

    /// One file's measurement.
    struct Measured: Sendable, ManyFiles.HasWarnings {
        enum Result: Sendable {
            case measured(ReplayGain.Figures, IntegratedGate)
            case cutShort
            case failed(PulsemeterError)
        }
        var result: Result
        var warnings: [String] = []
    }

    static func run(_ a: ParsedArguments) throws -> Int32 {
        guard !a.positionals.isEmpty || a.has("files-from") || a.has("files-from0") else {
            throw PulsemeterError(.usage, "tag needs the files to tag: pulsemeter tag FILE... (see pulsemeter tag --help)")
        }
        let album = a.flag("album")
        if album && a.has("shard") {
            throw PulsemeterError(.usage, "--shard splits a list between runs, but --album measures the album as one: drop --shard")
        }
        let truePeak = a.flag("true-peak")
        _ = try MeterOptions.format(a, outputIsTerminal: false, csv: true)  // its spelling checked before any file
        // A table on a terminal (its header before the first row), NDJSON elsewhere (or as -f
        // says), or CSV with its header row.
        var headerWritten = false
        func tagOne(_ position: Int, _ path: FilePath, _ track: ReplayGain.Figures, _ albumFigures: ReplayGain.Figures?,
                    _ to: ManyFiles.Delivery) throws {
            let format = try MeterOptions.format(a, outputIsTerminal: to.output.isTerminal, csv: true)
            let writer = Writer(dryRun: a.flag("dry-run"), skipExisting: a.flag("skip-existing"), format: format, album: album)
            do {
                let line = try writer.tag(path, track: track, album: albumFigures)
                if format != .ndjson && !headerWritten {
                    try to.output.write(writer.header())
                    headerWritten = true
                }
                try to.output.write(line)
            } catch let e as TagFileError {
                fail(position, ErrorWording.tagFile(e), to)
            }
        }
        let cancellation = try Signals.stopCancellation()
        var firstFailure: (position: Int, code: Int32)?
        func fail(_ position: Int, _ e: PulsemeterError, _ to: ManyFiles.Delivery) {
            if firstFailure == nil || position < firstFailure!.position { firstFailure = (position, e.exitCode) }
            to.say(e.message)
        }
        // The album's files as they were measured, in list order, and its gate.
        var measured: [(position: Int, path: FilePath, figures: ReplayGain.Figures)] = []
        var albumGate = IntegratedGate()
        var albumPeak = 0.0
        var delivery: ManyFiles.Delivery?
        let done = try ManyFiles.forEach(a, cancellation: cancellation, work: { path in
            measure(path, truePeak: truePeak, cancellation: cancellation)
        }, deliver: { position, path, m, to in
            delivery = to
            switch m.result {
            case .failed(let e):
                fail(position, e, to)
            case .cutShort:
                return false
            case .measured(let figures, let gate):
                if album {
                    measured.append((position, path, figures))
                    albumGate.merge(gate)
                    albumPeak = max(albumPeak, figures.peak)
                } else {
                    try tagOne(position, path, figures, nil, to)
                }
            }
            return true
        })
        guard let done else { return 0 }
        if let stopped = done.interruption() {
            if album { CLI.error("no file was tagged: the album was not measured to its end") }
            return stopped
        }
        if album, let to = delivery {
            let albumFigures = ReplayGain.Figures(integrated: albumGate.integratedLufs, peak: albumPeak)
            do {
                for file in measured {
                    if cancellation.isCancelled {
                        return Interruption.reportMany(finished: file.position, cutShort: 0, total: done.total)
                    }
                    try tagOne(file.position, file.path, file.figures, albumFigures, to)
                }
            } catch is OutputClosed {
                return 0
            }
        }
        return firstFailure?.code ?? 0
    }

    /// Pass one for one file, on a worker (`LoudnessPass`).
    static func measure(_ path: FilePath, truePeak: Bool, cancellation: Cancellation) -> Measured {
        var warnings: [String] = []
        do {
            guard let m = try LoudnessPass.measure(try AudioFile.open(path), cancellation: cancellation,
                                                   warn: { warnings.append($0) }) else { return Measured(result: .cutShort) }
            let figures = ReplayGain.Figures(integrated: m.integrated, peak: ReplayGain.ratio(db: truePeak ? m.truePeakDb : m.samplePeakDb))
            return Measured(result: .measured(figures, m.gate), warnings: warnings)
        } catch {
            return Measured(result: .failed(ManyFiles.failure(error, command: "tag")), warnings: warnings)
        }
    }

    /// Pass two: reads a file's tags, compares, writes (or with --dry-run only says) and gives
    /// its output line.
    struct Writer {
        let dryRun: Bool, skipExisting: Bool, format: MeterOptions.Format, album: Bool

        func tag(_ path: FilePath, track: ReplayGain.Figures, album albumFigures: ReplayGain.Figures?) throws(TagFileError) -> [UInt8] {
            let file = try TagFile(path)
            let opus = file.kind == .opus
            let new = ReplayGain.tags(track: track, album: albumFigures, opus: opus)
            let keys = ReplayGain.keys(album: album, opus: opus)
            let existing = keys.compactMap { k in file.value(k).map { (key: k, value: $0) } }
            let action: String
            if dryRun {
                action = "dry_run"
            } else if skipExisting && new.allSatisfy({ n in existing.contains { $0.key == n.key && $0.value == n.value } }) {
                action = "skipped"
            } else {
                for t in new { try file.set(t.key, t.value) }
                try file.save()
                action = "written"
            }
            switch format {
            case .ansi: return row(path, track: track, album: albumFigures, new: new, existing: existing, action: action)
            case .csv: return csvRow(path, track: track, album: albumFigures, new: new, existing: existing, action: action)
            case .ndjson: return line(path, track: track, album: albumFigures, new: new, existing: existing, action: action)
            }
        }

        /// `{"type":"tag","file":..,"lufs_i":..,"peak":..,["album_lufs_i":..,"album_peak":..,]
        /// "tags":{KEY:VALUE,..},"existing":{..},"action":"written"|"skipped"|"dry_run"}`.
        func line(_ path: FilePath, track: ReplayGain.Figures, album: ReplayGain.Figures?,
                  new: [(key: String, value: String)], existing: [(key: String, value: String)], action: String) -> [UInt8] {
            let b = JSONLineBuilder()
            b.raw("{\"type\":\"tag\"")
            b.field("file", path.string)
            b.field("lufs_i", track.integrated, decimals: 2)
            b.field("peak", track.peak, decimals: 6)
            if let album {
                b.field("album_lufs_i", album.integrated, decimals: 2)
                b.field("album_peak", album.peak, decimals: 6)
            }
            func object(_ name: StaticString, _ pairs: [(key: String, value: String)]) {
                b.key(name)
                b.raw("{")
                for (i, p) in pairs.enumerated() {
                    if i > 0 { b.raw(",") }
                    b.string(p.key)
                    b.raw(":")
                    b.string(p.value)
                }
                b.raw("}")
            }
            object("tags", new)
            object("existing", existing)
            b.field("action", action)
            b.raw("}\n")
            return b.bytes
        }

        /// The table's columns: loudness, each tag's value, what was done, the file (last, so
        /// that no name moves the columns).
        private var columns: [String] {
            ["track gain", "track peak"] + (album ? ["album gain", "album peak"] : [])
        }
        /// LUFS (right-aligned), each tag's column, the action, the file.
        private var layout: Listing.Columns {
            Listing.Columns(widths: [7] + columns.map { _ in 10 } + [7], rightAligned: [0])
        }

        func header() -> [UInt8] {
            if format == .csv { return CSVWriter().row(csvColumns) }
            return Array(layout.line(["LUFS"] + columns + ["action", "file"]).utf8)
        }

        /// Every tag key a file of the run may get, ReplayGain's then Opus's.
        private var csvKeys: [String] { ReplayGain.keys(album: album, opus: false) + ReplayGain.keys(album: album, opus: true) }

        /// The CSV columns: the NDJSON line's fields, then each key's new value and the value the
        /// file holds (`existing_KEY`); a key a file does not get (an Opus file's ReplayGain
        /// keys) is an empty field.
        private var csvColumns: [String] {
            ["file", "action", "lufs_i", "peak"] + (album ? ["album_lufs_i", "album_peak"] : [])
                + csvKeys + csvKeys.map { "existing_" + $0 }
        }

        func csvRow(_ path: FilePath, track: ReplayGain.Figures, album albumFigures: ReplayGain.Figures?,
                    new: [(key: String, value: String)], existing: [(key: String, value: String)], action: String) -> [UInt8] {
            let csv = CSVWriter()
            var fields = [path.string, action, csv.number(track.integrated, decimals: 2), csv.number(track.peak, decimals: 6)]
            if album, let albumFigures {
                fields += [csv.number(albumFigures.integrated, decimals: 2), csv.number(albumFigures.peak, decimals: 6)]
            }
            func values(_ pairs: [(key: String, value: String)]) -> [String] {
                csvKeys.map { k in pairs.first { $0.key == k }?.value ?? "" }
            }
            return csv.row(fields + values(new) + values(existing))
        }

        /// ` -20.99  2.99 dB     0.270294    dry run  a.flac`, and under it the values the file
        /// already holds (`existing`), when it holds any. Opus gains read `R128 -482`; its peak
        /// columns `-`.
        func row(_ path: FilePath, track: ReplayGain.Figures, album: ReplayGain.Figures?,
                 new: [(key: String, value: String)], existing: [(key: String, value: String)], action: String) -> [UInt8] {
            // The key each column shows: REPLAYGAIN_TRACK_GAIN, or R128_TRACK_GAIN for Opus.
            func cell(_ column: String, _ pairs: [(key: String, value: String)]) -> String {
                let words = column.uppercased().split(separator: " ")
                if let v = pairs.first(where: { $0.key == "REPLAYGAIN_\(words[0])_\(words[1])" })?.value { return SafeText.terminal(v) }
                if words[1] == "GAIN", let v = pairs.first(where: { $0.key == "R128_\(words[0])_GAIN" })?.value { return "R128 " + SafeText.terminal(v) }
                return pairs.isEmpty ? "" : "-"
            }
            let verb = ["dry_run": "dry run", "skipped": "skipped", "written": "tagged"][action] ?? action
            var text = layout.line([ReplayGain.fixed(track.integrated, decimals: 2)] + columns.map { cell($0, new) }
                                   + [verb, path.description])
            if !existing.isEmpty {
                text += layout.line([""] + columns.map { cell($0, existing) } + ["existing"])
            }
            return Array(text.utf8)
        }
    }
}
