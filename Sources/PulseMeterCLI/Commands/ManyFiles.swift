import MeterCore
import MeterIO

/// `analyze FILE...` and `waveform FILE...`: many files in one run (README.md "Many files").
///
/// The list is the positionals, then `--files-from` (one a line; `-0`/`--null` or
/// `--files-from0` for NUL-separated), cut to `--shard K/N`. `-j N` workers run the command's
/// own single-file code on one file each (`OrderedWorkPool`); each file's output comes back as
/// its lines and is written whole, in list order (`--unordered`: as each finishes). A file that
/// fails gives an `error` line and the rest go on; the exit status is the first failure's code.
enum ManyFiles {
    static let specs: [OptionSpec] = [
        OptionSpec("--files-from"), OptionSpec("--files-from0"), OptionSpec("-0", "--null", value: false),
        OptionSpec("-j", "--jobs"), OptionSpec("--shard"), OptionSpec("--unordered", value: false),
        OptionSpec("--recursive", value: false),
    ]

    /// What one file gave: its output lines (`complete` false when a stop signal cut it short:
    /// they say so), or a failure; and its warnings (a file that ends early), written to
    /// stderr when its turn comes.
    struct Outcome: Sendable, HasWarnings {
        enum Result: Sendable {
            case lines([UInt8], complete: Bool)
            case failed(PulsemeterError)
        }
        var result: Result
        var warnings: [String] = []
        /// analyze: the file's figures (for its verdict and its table row).
        var summary: StreamSummary?
        /// analyze --report DIR/: the file's row of the index (its page's name in DIR, the
        /// figures of its end line).
        var indexRow: ReportIndex.Entry?
    }

    /// A file's result that may carry warnings for stderr.
    protocol HasWarnings {
        var warnings: [String] { get }
    }

    /// True when the command line asks for the many-file mode: more than one file, or a list,
    /// or a shard, or directories to walk (then even one file or none gives one line per file).
    static func requested(_ a: ParsedArguments) -> Bool {
        a.positionals.count > 1 || a.has("files-from") || a.has("files-from0") || a.has("shard") || a.flag("recursive")
    }

    /// A directory named without `--recursive` is a usage error (64) saying to give it: the
    /// audio files under it are taken only when asked for.
    static func checkDirectories(_ a: ParsedArguments) throws(PulsemeterError) {
        guard !a.flag("recursive"), let dir = a.positionalPaths.first(where: { !$0.isDash && $0.isDirectory }) else { return }
        throw PulsemeterError(.usage, "\(dir) is a directory: give --recursive to take the audio files under it")
    }

    /// Runs `perFile` over the list and writes the lines; returns the exit status.
    /// `cancellation` (a stop signal) stops the hand-out of files; `perFile` gets it too, and
    /// the files it cut short give their lines so far. A run cut short says on stderr how many
    /// files were not done and exits 130. `failed`: where a file's failure goes (by default
    /// its `error` line on the output). With verdicts (analyze `--preset`), the last line
    /// counts passes and failures, and a file that fails makes the status 1 when no file had
    /// an error. With a `table` (analyze for a person), each file is a row of its figures
    /// instead of its lines (its header before the first), a file cut short gives none, a
    /// failure is its stderr line and the count of verdicts is the table's last line.
    /// `delivered`: each file's outcome, in the order delivered (a report's index).
    static func run(_ a: ParsedArguments, cancellation: Cancellation, table: LoudnessTable? = nil,
                    failed: ((FilePath, PulsemeterError, Delivery) throws -> Void)? = nil,
                    delivered: ((FilePath, Outcome) -> Void)? = nil,
                    perFile: @escaping @Sendable (FilePath) -> Outcome) throws -> Int32 {
        var firstFailure: (position: Int, code: Int32)?
        var tally = VerdictTally()
        var headerWritten = false
        let done = try forEach(a, cancellation: cancellation, work: perFile, finish: { to in
            guard tally.judged else { return }
            try to.output.write(table == nil ? tally.ndjsonLine : Array((tally.text + "\n").utf8))
        }) { position, path, outcome, to in
            delivered?(path, outcome)
            tally.add(outcome.summary)
            switch outcome.result {
            case .lines(let bytes, let complete):
                if let table {
                    guard complete, let loudness = outcome.summary?.loudness else { return complete }
                    if !headerWritten { try to.output.write(Array(table.header.utf8)) }
                    headerWritten = true
                    try to.output.write(Array(table.row(path, loudness).utf8))
                } else {
                    try to.output.write(bytes)
                }
                return complete
            case .failed(let e):
                if firstFailure == nil || position < firstFailure!.position { firstFailure = (position, e.exitCode) }
                if let failed {
                    try failed(path, e, to)
                } else if table != nil {
                    to.say(e.message)
                } else {
                    try to.output.write(errorLine(path, e))
                }
                return true
            }
        }
        guard let done else { return 0 }
        if let stopped = done.interruption() { return stopped }
        return firstFailure?.code ?? tally.status
    }

    /// Where a delivered file's results go: the output, and stderr (`say`: one line, the
    /// progress line cleared first; it comes back with the next file).
    struct Delivery {
        let output: FileDescriptorOutput
        let progress: FileProgress
        func say(_ message: String) {
            progress.clear()
            CLI.error(message)
        }
    }

    /// How far a run over the list came.
    struct Done {
        var finished: Int
        var cutShort: Int
        var total: Int?
        var reachedEnd: Bool
        var cancelled: Bool

        /// A run cut short by a stop signal: says so on stderr and gives the exit status (130).
        func interruption() -> Int32? {
            guard cancelled && (cutShort > 0 || !reachedEnd) else { return nil }
            return Interruption.reportMany(finished: finished, cutShort: cutShort, total: total)
        }
    }

    /// The list (positionals, `--files-from`, `--shard`) through `-j` workers: `work` on a
    /// worker thread per file, `deliver` on the caller's thread in list order (`--unordered`:
    /// as each finishes) with the output; it returns false for a file cut short. Warnings go
    /// to stderr, the progress line meanwhile on stderr when the output is not a terminal.
    /// `finish`: after the last file, with the output. nil when the output's reader went away.
    /// `output`: where the lines go when `-o` is not that (normalize's `-o` names its audio files).
    static func forEach<T: Sendable>(_ a: ParsedArguments, cancellation: Cancellation, output given: FileDescriptorOutput? = nil,
                                     work: @escaping @Sendable (FilePath) -> T,
                                     finish: (Delivery) throws -> Void = { _ in },
                                     deliver: (Int, FilePath, T, Delivery) throws -> Bool) throws -> Done? where T: HasWarnings {
        if a.positionals.contains("-") {
            throw PulsemeterError(.usage, "- (raw PCM on stdin) is one stream, not a list entry; give file names, or a list with --files-from -")
        }
        try RawInput.rejectLayout(a, file: "each file")
        try checkDirectories(a)
        if a.has("files-from") && a.has("files-from0") {
            throw PulsemeterError(.usage, "--files-from and --files-from0 both given; use one list (--files-from0 is --files-from with -0)")
        }
        let jobs = try self.jobs(a)
        MallocArenas.limit(to: jobs)  // memory flat in the number of files (see MallocArenas)
        let shard = try self.shard(a)
        var reader: PathListReader?
        if let list = a.path("files-from") ?? a.path("files-from0") {
            reader = try PathListReader(path: list, nulSeparated: a.flag("null") || a.has("files-from0"), cancellation: cancellation)
        }
        let list = FileList(positionals: a.positionalPaths, reader: reader, shard: shard, recursive: a.flag("recursive"))
        let output = try given ?? OutputChoice.open(a)
        // Progress on stderr, not when the lines go to that same terminal (it would split them).
        let total = list.total
        let progress = FileProgress(total: total, enabled: !output.isTerminal)

        var finished = 0, cutShort = 0
        do {
            try OrderedWorkPool.run(
                workers: jobs, ordered: !a.flag("unordered"),
                shouldStop: { cancellation.isCancelled },
                next: { list.next() },
                work: { path, _ in work(path) },
                deliver: { position, path, outcome in
                    if !outcome.warnings.isEmpty {
                        progress.clear()  // the progress line comes back with the next file
                        for w in outcome.warnings { CLI.warn(w) }
                    }
                    if try deliver(position, path, outcome, Delivery(output: output, progress: progress)) { finished += 1 } else { cutShort += 1 }
                    progress.advance()
                })
            progress.clear()
            try finish(Delivery(output: output, progress: progress))
        } catch is OutputClosed {
            progress.clear()
            return nil
        }
        progress.clear()
        if let e = list.failure { throw e }
        return Done(finished: finished, cutShort: cutShort, total: total, reachedEnd: list.reachedEnd,
                    cancelled: cancellation.isCancelled)
    }

    /// Runs one file's work on a worker thread: its lines (and whether they cover the whole
    /// file), or its error as an `error` line. `body` gets the function that keeps a warning
    /// for the caller's thread to write.
    static func outcome(command: String,
                        _ body: (_ warn: (String) -> Void) throws -> (lines: [UInt8], complete: Bool)) -> Outcome {
        var warnings: [String] = []
        let result: Outcome.Result
        do {
            let (bytes, complete) = try body { warnings.append($0) }
            result = .lines(bytes, complete: complete)
        } catch {
            result = .failed(failure(error, command: command))
        }
        return Outcome(result: result, warnings: warnings)
    }

    /// A file's error as the user sees it (a missing decoder names the pipe that would work).
    static func failure(_ error: any Error, command: String) -> PulsemeterError {
        if let e = error as? AudioFile.DecoderMissing { return RawInput.decoderMissing(e, command: command) }
        return ErrorWording.userError(error) ?? PulsemeterError(.io, "\(error)")
    }

    /// `{"type":"error","file":..,"code":..,"message":..}` and a newline.
    static func errorLine(_ path: FilePath, _ e: PulsemeterError) -> [UInt8] {
        let b = JSONLineBuilder()
        b.raw("{\"type\":\"error\"")
        b.field("file", path.string)
        b.field("code", Int(e.exitCode))
        b.field("message", e.message)
        b.raw("}\n")
        return b.bytes
    }

    /// `--shard K/N` as (K, N), 1 <= K <= N.
    /// `--jobs N`: files at once; the number of cores when not given.
    static func jobs(_ a: ParsedArguments) throws(PulsemeterError) -> Int {
        try a.count("jobs", .jobs, unit: "files at once") ?? OSThread.onlineProcessors
    }

    static func shard(_ a: ParsedArguments) throws(PulsemeterError) -> (index: Int, count: Int)? {
        guard let raw = a.string("shard") else { return nil }
        let parts = raw.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, n <= 1_000_000, k >= 1, k <= n else {
            throw PulsemeterError(.usage, "--shard \(raw) is not allowed: use K/N with 1 <= K <= N (task K of N), e.g. --shard 2/4")
        }
        return (k, n)
    }
}
