import MeterCore
import MeterIO

/// `pulsemeter normalize IN... (-o OUT | -o DIR/) [--preset NAME | --target LUFS]
/// [--max-true-peak DB] [--limit] [--album] [-j N] [--force]`: each input written with one
/// static gain, target minus its integrated loudness (`--album`: minus the inputs' joint
/// loudness), capped so that the true peak stays at or under the ceiling unless `--limit`
/// holds the peaks with the true-peak limiter.
///
/// The files go through the many-file workers (`-j`): each worker measures a file and writes
/// it (`NormalizeFile`); with `--album` every file is measured first, then the workers write
/// them with the album's gain. One `end` line a file on stdout, in list order; a file that
/// fails is one stderr line and writes nothing; the exit status is the first failure's.
enum NormalizeCommand {
    static let specs: [OptionSpec] = ManyFiles.specs + NormalizeTarget.specs + [
        OptionSpec("-o", "--output"), OptionSpec("--limit", value: false), OptionSpec("--album", value: false),
        OptionSpec("--force", value: false), OptionSpec("-h", "--help", value: false),
    ]

    /// Where the outputs go: one file, or a directory that takes each input's name.
    enum Destination {
        case file(FilePath)
        case directory(FilePath)

        func output(for input: FilePath) -> FilePath {
            switch self {
            case .file(let path): return path
            case .directory(let dir): return input.inDirectory(dir)
            }
        }
    }

    static func run(_ a: ParsedArguments) throws -> Int32 {
        guard !a.positionals.isEmpty || a.has("files-from") || a.has("files-from0") else {
            throw PulsemeterError(.usage, "normalize needs the files to normalize: pulsemeter normalize IN... -o OUT (see pulsemeter normalize --help)")
        }
        let target = try NormalizeTarget.parse(a)
        let destination = try self.destination(a)
        if case .directory(let dir) = destination { try dir.makeDirectory() }
        let album = a.flag("album")
        if album && a.has("shard") {
            throw PulsemeterError(.usage, "--shard splits a list between runs, but --album measures the album as one: drop --shard")
        }
        let one = NormalizeFile(target: target, limit: a.flag("limit"), force: a.flag("force"), seed: UInt64.random(in: 0...UInt64.max))
        let cancellation = try Signals.stopCancellation()
        let run = Run(destination: destination, one: one)
        let done: ManyFiles.Done?
        if album {
            done = try run.album(a, cancellation: cancellation)
        } else {
            done = try ManyFiles.forEach(a, cancellation: cancellation, output: .standardOutput, work: { path in
                one.run(path, output: destination.output(for: path), position: 0, cancellation: cancellation)
            }, deliver: run.deliver)
        }
        guard let done else { return 0 }
        if done.cancelled && (done.cutShort > 0 || !done.reachedEnd) {
            CLI.error("interrupted: \(done.total.map { "\($0 - done.finished) of \($0)" } ?? "the rest of the") files not written; nothing partial was left")
            return Interruption.exitCode
        }
        return run.firstFailure?.code ?? 0
    }

    /// `-o OUT` (one input) or `-o DIR/` (a name ending in /, made when missing, or an
    /// existing directory).
    static func destination(_ a: ParsedArguments) throws(PulsemeterError) -> Destination {
        guard let out = a.path("output"), !out.bytes.isEmpty else {
            throw PulsemeterError(.usage, "normalize needs where to write: -o OUT for one file, or -o DIR/ for a directory that takes each input's name")
        }
        if out.isDash {
            throw PulsemeterError(.usage, "-o - is not allowed: normalize writes files (stdout carries the end lines); give -o OUT or -o DIR/")
        }
        if out.bytes.last == UInt8(ascii: "/") || out.isDirectory { return .directory(out) }
        if ManyFiles.requested(a) {
            throw PulsemeterError(.usage, "-o \(out) names one file, but several inputs were given: give a directory, -o DIR/")
        }
        return .file(out)
    }

    /// The state the caller's thread keeps while files are delivered.
    final class Run {
        let destination: Destination
        let one: NormalizeFile
        var firstFailure: (position: Int, code: Int32)?

        init(destination: Destination, one: NormalizeFile) {
            self.destination = destination
            self.one = one
        }

        func fail(_ position: Int, _ e: PulsemeterError, _ to: ManyFiles.Delivery) {
            if firstFailure == nil || position < firstFailure!.position { firstFailure = (position, e.exitCode) }
            to.say(e.message)
        }

        /// A written file's line (and, when the true peak capped its gain, the stderr line).
        func deliver(_ position: Int, _ path: FilePath, _ r: NormalizeFile.Result, _ to: ManyFiles.Delivery) throws -> Bool {
            switch r.kind {
            case .written(let line):
                if line.gain.limitedByTruePeak {
                    to.say(NormalizeWording.capped(path, reached: line.reachedLufs, target: line.target.target, gainDb: line.gain.gainDb))
                }
                try to.output.write(line.bytes)
            case .failed(let e):
                fail(position, e, to)
            case .measured:
                preconditionFailure("a measurement is delivered to the album")
            case .cutShort:
                return false
            }
            return true
        }

        /// `--album`: every file measured (the workers), then written with the album's gain
        /// (the workers again, over the files measured).
        func album(_ a: ParsedArguments, cancellation: Cancellation) throws -> ManyFiles.Done? {
            var measured: [(position: Int, path: FilePath, figures: LoudnessPass.Figures)] = []
            var gate = IntegratedGate()
            var peak = Decibels.floor
            let one = self.one, destination = self.destination
            guard let first = try ManyFiles.forEach(a, cancellation: cancellation, output: .standardOutput, work: { path in
                one.measure(path, output: destination.output(for: path), cancellation: cancellation)
            }, deliver: { position, path, r, to in
                switch r.kind {
                case .measured(let m):
                    measured.append((position, path, m))
                    gate.merge(m.gate)
                    peak = max(peak, m.truePeakDb)
                case .failed(let e):
                    fail(position, e, to)
                case .cutShort:
                    return false
                case .written:
                    preconditionFailure("the album's first pass only measures")
                }
                return true
            }) else { return nil }
            if first.cancelled && (first.cutShort > 0 || !first.reachedEnd) {
                return ManyFiles.Done(finished: 0, cutShort: first.cutShort, total: first.total, reachedEnd: false, cancelled: true)
            }
            let albumFigures = LoudnessPass.Figures(integrated: gate.integratedLufs, truePeakDb: peak, samplePeakDb: peak, gate: gate)
            let files = measured
            let next = Locked(0)
            var finished = 0, cutShort = 0
            let to = ManyFiles.Delivery(output: .standardOutput, progress: FileProgress(total: files.count, enabled: false))
            do {
                try OrderedWorkPool.run(
                    workers: try ManyFiles.jobs(a), ordered: true,
                    shouldStop: { cancellation.isCancelled },
                    next: { next.withLock { i in i < files.count ? { i += 1; return i - 1 }() : nil } },
                    work: { i, _ in
                        let f = files[i]
                        return one.run(f.path, output: destination.output(for: f.path), position: f.position,
                                       cancellation: cancellation, album: (albumFigures, f.figures))
                    },
                    deliver: { _, i, r in
                        if try deliver(files[i].position, files[i].path, r, to) { finished += 1 } else { cutShort += 1 }
                    })
            } catch is OutputClosed {
                return nil
            }
            return ManyFiles.Done(finished: finished, cutShort: cutShort, total: files.count,
                                  reachedEnd: finished + cutShort == files.count, cancelled: cancellation.isCancelled)
        }
    }
}
