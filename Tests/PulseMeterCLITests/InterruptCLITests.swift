import Foundation
import Glibc
import Testing
import TestSupport

/// `analyze` and `waveform` stopped by a signal before the end of their input: the output so
/// far says `"complete":false`, one stderr line says how far the run got, exit 130. Each run is
/// stopped at a point the test controls (a stalled input, or a stdout pipe the test has not
/// read yet, which holds the tool back once it is full), never after a guessed time.
@Suite struct InterruptCLITests {
    /// A running pulsemeter with its stdin, stdout and stderr on pipes.
    final class Running {
        let process = Process()
        let input = Pipe(), output = Pipe(), errors = Pipe()
        private var collected = Data()

        init(_ args: [String], cwd: String? = nil) throws {
            process.executableURL = URL(fileURLWithPath: Tool.binary)
            process.arguments = args
            if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
        }

        /// Waits (up to `timeout` s) until `condition` holds; false on timeout or exit.
        func wait(timeout: Double = 60, for condition: () -> Bool) -> Bool {
            Wait.until(timeout: timeout, interval: 0.005) { condition() || !process.isRunning } && condition()
        }

        /// Bytes waiting in the stdout pipe, unread (`FIONREAD`).
        var pending: Int {
            var n: Int32 = 0
            return ioctl(output.fileHandleForReading.fileDescriptor, UInt(FIONREAD), &n) == 0 ? Int(n) : 0
        }

        /// Waits until the tool has written `bytes` into the stdout pipe, unread: from then on
        /// it runs only until the pipe is full (it holds 64 KiB, less than any test's output),
        /// so it cannot reach its end before the signal.
        func waitUntilWritten(_ bytes: Int = 16384) -> Bool { wait { pending >= bytes } }

        /// Reads what has come so far (for a stalled input: the lines up to there).
        func readAvailable(until: (String) -> Bool) -> Bool {
            wait {
                if pending > 0 { collected += output.fileHandleForReading.availableData }
                return until(String(decoding: collected, as: UTF8.self))
            }
        }

        /// The tool's threads now: id and name (`/proc/PID/task/TID/comm`).
        var threads: [(id: pid_t, name: String)] {
            let pid = process.processIdentifier
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            return tasks.compactMap { tid in
                guard let id = pid_t(tid),
                      let comm = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8)
                else { return nil }
                return (id, comm.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }

        /// The names of the tool's threads now.
        var threadNames: [String] { threads.map(\.name) }

        /// The id of the tool's thread named `name`, once it runs.
        func thread(named name: String) -> pid_t? {
            Wait.value(timeout: 10, interval: 0.005, { threads.first { $0.name == name }?.id },
                       until: { $0 != nil }) ?? nil
        }

        /// Signals the process, reads stdout and stderr to their end and waits for the exit
        /// status. With `thread`, the signal goes by that thread's id: the kernel gives a
        /// process's signal to any of its threads, and to the one whose id `kill(2)` names when
        /// it can take it.
        /// A run still going 20 s after the signal is killed (SIGKILL): the test fails on its
        /// status rather than hang.
        func stop(with signal: Int32, thread: pid_t? = nil) -> (status: Int32, lines: [String], stderr: String, output: Data) {
            kill(thread ?? process.processIdentifier, signal)
            nonisolated(unsafe) let running = process
            Thread.detachNewThread {
                if !Wait.until(timeout: 20, interval: 0.05, { !running.isRunning }) { kill(running.processIdentifier, SIGKILL) }
            }
            collected += output.fileHandleForReading.readDataToEndOfFile()
            let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
            let lines = String(decoding: collected, as: UTF8.self).split(separator: "\n").map(String.init)
            return (process.terminationStatus, lines, err, collected)
        }
    }

    static func object(_ line: String?) -> [String: Any] {
        guard let line, let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return [:] }
        return o
    }

    /// A sine of `seconds` at 48 kHz stereo, by sox.
    static func sine(_ dir: TempDir, _ name: String, seconds: Int) throws -> String {
        let path = dir.path(name)
        _ = try Tool.sox(["-n", "-r", "48000", "-c", "2", "-b", "16", path, "synth", String(seconds), "sine", "440", "vol", "0.5"])
        return path
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aStalledStdinStopsWithItsEndLineMarkedIncomplete(signal: Int32) throws {
        let p = try Running(["analyze", "-", "--raw", "s16le", "-r", "48000", "-c", "2"])
        // One second of audio, then nothing more (the writer stays open).
        p.input.fileHandleForWriting.write(Data(count: 48000 * 4))
        #expect(p.readAvailable { $0.contains("\"pos\":48000") }, "the frames of the second fed")
        let r = p.stop(with: signal)
        #expect(r.status == 130)
        #expect(r.lines.first?.contains("\"type\":\"start\"") == true)
        let end = Self.object(r.lines.last)
        #expect(end["type"] as? String == "end" && Tool.int(end["pos"]) == 48000, "\(r.lines.last ?? "")")
        #expect(end["complete"] as? Bool == false)
        #expect(r.stderr == "pulsemeter: interrupted at 1.0 s of stdin; the end line covers what was read and says \"complete\":false\n")
    }

    /// One input's `analyze` reads ahead on a thread of its own and encodes and writes its
    /// lines where it analyses them; only octave bands get an output thread (their filter bank
    /// runs there, beside the analysis). Either way the lines of what came are out while the
    /// input stalls.
    @Test(arguments: [([String](), false), (["--bands", "64"], false), (["--octaves", "3"], true)])
    func anOutputThreadOnlyForOctaveBands(options: [String], outputThread: Bool) throws {
        let p = try Running(["analyze", "-", "--raw", "s16le", "-r", "48000", "-c", "2"] + options)
        p.input.fileHandleForWriting.write(Data(count: 48000 * 4))
        #expect(p.readAvailable { $0.contains("\"pos\":48000") }, "the frames of the second fed")
        #expect(p.thread(named: "pm-decoder") != nil, "\(p.threadNames)")
        #expect(p.threadNames.contains("pm-output") == outputThread, "\(p.threadNames)")
        #expect(p.stop(with: SIGINT).status == 130)
    }

    /// The signal reaches a thread other than the one blocked reading stdin (here: the
    /// signal watcher's own): the read ends all the same, for analyze (which meters stdin as
    /// it comes) and waveform (which spools it first).
    @Test func aStopSignalThatReachesAnotherThreadEndsAStalledRead() throws {
        for command in ["analyze", "waveform"] {
            let p = try Running([command, "-", "--raw", "s16le", "-r", "48000", "-c", "2"] + (command == "waveform" ? ["--bars", "4"] : []))
            p.input.fileHandleForWriting.write(Data(count: 48000 * 4))
            if command == "analyze" {
                #expect(p.readAvailable { $0.contains("\"pos\":48000") }, "the frames of the second fed")
            } else {
                // The spool has taken it in once the pipe is empty.
                #expect(p.wait { var n: Int32 = 0; return ioctl(p.input.fileHandleForWriting.fileDescriptor, UInt(FIONREAD), &n) == 0 && n == 0 },
                "the tool took everything fed to its stdin")
            }
            let watcher = try #require(p.thread(named: "pm-signals"), "the signal watcher thread runs")
            let r = p.stop(with: SIGINT, thread: watcher)
            #expect(r.status == 130, "\(command): \(r.stderr)")
            #expect(r.stderr.hasPrefix("pulsemeter: interrupted at 1.0 s of stdin"), "\(command): \(r.stderr)")
        }
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aLongFileStoppedPartWay(signal: Int32) throws {
        let dir = try TempDir()
        let long = try Self.sine(dir, "long.wav", seconds: 60)
        let p = try Running(["analyze", long, "--loudness"])
        #expect(p.waitUntilWritten(), "the NDJSON fills the pipe")
        let r = p.stop(with: signal)
        #expect(r.status == 130, "\(r.stderr)")
        let end = Self.object(r.lines.last)
        let pos = try #require(Tool.int(end["pos"]), "\(r.lines.last ?? "")")
        #expect(end["type"] as? String == "end" && end["complete"] as? Bool == false)
        #expect(pos > 0 && pos < 60 * 48000, "part of the file: \(pos)")
        #expect(end["lufs_i"] != nil, "the figures so far, loudness included")
        // The figures are those of the part read: the sine's RMS, to the hundredth.
        #expect(Tool.doubles(end["rms_db"]).allSatisfy { abs($0 - (20 * log10(0.5) - 3.0103)) < 0.02 }, "\(end["rms_db"] ?? "")")
        let tenths = pos * 10 / 48000
        #expect(r.stderr == "pulsemeter: interrupted at \(tenths / 10).\(tenths % 10) s of 60.0 s of long.wav; the end line covers what was read and says \"complete\":false\n")
        // Read to its end, the same file says "complete":true.
        let short = try Self.sine(dir, "short.wav", seconds: 1)
        let whole = try Tool.ndjson(try Tool.run(["analyze", short]))
        #expect(whole.last?["complete"] as? Bool == true)
        let many = try Tool.ndjson(try Tool.run(["analyze", short, short]))
        #expect(many.count == 2 && many.allSatisfy { $0["complete"] as? Bool == true })
    }

    /// A many-file run held back by its reader, then stopped: the lines written are whole
    /// files, the rest are counted on stderr as not done, exit 130.
    @Test(arguments: ["analyze", "waveform"])
    func aManyFileRunStoppedSaysHowManyFilesWereNotDone(command: String) throws {
        let dir = try TempDir()
        _ = try Self.sine(dir, "s.wav", seconds: 1)
        let count = 3000
        let list = try dir.write(Array(String(repeating: "s.wav\n", count: count).utf8), "list")
        let p = try Running([command, "-j", "2", "--files-from", list], cwd: dir.url.path)
        #expect(p.waitUntilWritten(), "the lines fill the pipe")
        let r = p.stop(with: SIGINT)
        #expect(r.status == 130, "\(r.stderr)")
        let objects = r.lines.map { Self.object($0) }
        #expect(objects.allSatisfy { $0["file"] as? String == "s.wav" }, "one line per file")
        let complete = objects.filter { ($0["complete"] as? Bool) ?? true }.count  // waveform says it only when false
        let cut = objects.count - complete
        #expect(objects.count > 0 && objects.count < count)
        let part = cut == 0 ? "" : "; \(cut) stopped part way (their lines say \"complete\":false)"
        #expect(r.stderr == "pulsemeter: interrupted: \(count - complete) of \(count) files not done\(part)\n")
    }

    /// A list on stdin that stalls: the files named so far are delivered as they finish, and
    /// a stop ends the run there (the list is not waited for).
    @Test func aStalledListOnStdin() throws {
        let dir = try TempDir()
        _ = try Self.sine(dir, "s.wav", seconds: 1)
        let p = try Running(["analyze", "--files-from", "-", "-j", "2"], cwd: dir.url.path)
        p.input.fileHandleForWriting.write(Data("s.wav\ns.wav\n".utf8))
        #expect(p.readAvailable { $0.split(separator: "\n").count == 2 }, "both lines come before the list ends")
        let r = p.stop(with: SIGTERM)
        #expect(r.status == 130)
        #expect(r.lines.count == 2 && r.lines.allSatisfy { $0.contains("\"complete\":true") }, "\(r.lines)")
        #expect(r.stderr == "pulsemeter: interrupted after 2 files: the rest of the list was not done\n")
    }

    /// The ANSI summary of a run cut short says so in its heading.
    @Test func theAnsiSummarySaysInterrupted() throws {
        let p = try Running(["analyze", "-", "--raw", "s16le", "-r", "8000", "-c", "1", "-f", "ansi"])
        p.input.fileHandleForWriting.write(Data(count: 8000 * 2))
        #expect(p.wait { var n: Int32 = 0; return ioctl(p.input.fileHandleForWriting.fileDescriptor, UInt(FIONREAD), &n) == 0 && n == 0 },
                "the tool took everything fed to its stdin")
        let r = p.stop(with: SIGINT)
        #expect(r.status == 130)
        // (The analysis may stop before all it was fed: how far it got is the line's own figure.)
        #expect(r.lines.first?.contains(" frames)  interrupted: the figures cover what was read") == true, "\(r.lines)")
        #expect(r.stderr.hasPrefix("pulsemeter: interrupted at ") && r.stderr.hasSuffix(" s of stdin; the summary covers what was read\n"), "\(r.stderr)")
    }

    /// waveform of a stalled stdin: the waveform of what came, marked, exit 130.
    @Test func waveformOfAStalledStdin() throws {
        let p = try Running(["waveform", "-", "--raw", "s16le", "-r", "8000", "-c", "1", "--bars", "4"])
        // Two seconds of a constant half-scale signal, then nothing more.
        let half = Data([0x00, 0x40])
        p.input.fileHandleForWriting.write(Data((0..<16000).flatMap { _ in half }))
        // The spool has taken it in once the pipe is empty.
        #expect(p.wait { var n: Int32 = 0; return ioctl(p.input.fileHandleForWriting.fileDescriptor, UInt(FIONREAD), &n) == 0 && n == 0 },
                "the tool took everything fed to its stdin")
        let r = p.stop(with: SIGINT)
        #expect(r.status == 130, "\(r.stderr)")
        let w = Self.object(r.lines.first)
        #expect(w["complete"] as? Bool == false && Tool.int(w["frames"]) == 16000, "\(r.lines)")
        #expect(Tool.doubles(w["rms_db"]).allSatisfy { abs($0 - 20 * log10(0.5)) < 0.01 })
        #expect(r.stderr == "pulsemeter: interrupted at 2.0 s of stdin; the waveform covers what was read and says \"complete\":false\n")
    }

    /// The pixel formats of a file stopped part way (held back by the stdout pipe): exit 130,
    /// the stderr line, and a document that ends in form. peaks: `length` the pixels written,
    /// `duration` the frames read, each pixel within the sine's peak. dat: its header's length
    /// kept (60 s at 1000 pixels a second), the sine's pixels up to the point reached, empty
    /// ones (0, 0) after it, none missing.
    @Test func pixelFormatsStoppedPartWay() throws {
        let dir = try TempDir()
        let long = try Self.sine(dir, "long.wav", seconds: 60)
        func said(_ seconds: Double) -> String {
            let tenths = Int((seconds * 10).rounded(.down))
            return "pulsemeter: interrupted at \(tenths / 10).\(tenths % 10) s of 60.0 s of long.wav; the waveform covers what was read\n"
        }

        let p = try Running(["waveform", long, "--format", "peaks", "--pixels-per-second", "1000"])
        #expect(p.waitUntilWritten(), "the JSON fills the pipe")
        let r = p.stop(with: SIGINT)
        #expect(r.status == 130, "\(r.stderr)")
        let peaks = Self.object(r.lines.joined())
        let data = Tool.doubles(peaks["data"])
        let length = try #require(Tool.int(peaks["length"]), "a whole document: \(r.lines.last?.suffix(80) ?? "")")
        let duration = try #require((peaks["duration"] as? NSNumber)?.doubleValue)
        #expect(length > 0 && length < 60_000 && data.count == 2 * length, "\(length) pixels, \(data.count) values")
        #expect(abs(duration * 1000 - Double(length)) < 1, "the pixels cover the frames read: \(duration) s, \(length)")
        #expect(data.allSatisfy { abs($0) <= 0.5001 } && data.max()! > 0.49, "the sine's peak: \(data.max() ?? 0)")
        #expect(r.stderr == said(duration), "\(r.stderr)")

        let q = try Running(["waveform", long, "--format", "dat", "--pixels-per-second", "1000"])
        #expect(q.waitUntilWritten(), "the data fills the pipe")
        let d = q.stop(with: SIGTERM)
        #expect(d.status == 130, "\(d.stderr)")
        let bytes = [UInt8](d.output)
        try #require(bytes.count >= 24, "a header")
        #expect(Array(bytes[..<24]) == [2, 0, 48000, 48, 60_000, 1].flatMap(WAV.le32), "version, flags, rate, samples per pixel, length, channels")
        #expect(bytes.count == 24 + 60_000 * 4, "every pixel the header states: \(bytes.count) bytes")
        let values = stride(from: 24, to: bytes.count - 1, by: 2).map { Int(Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)) }
        let reached = values.lastIndex { $0 != 0 }.map { $0 / 2 + 1 } ?? 0
        #expect(reached > 0 && reached < 60_000, "pixels of the sine: \(reached)")
        #expect(values[..<(2 * reached)].max().map { (16380...16385).contains($0) } == true, "the sine's peak at 16 bits")
        let tenths = d.stderr.dropFirst("pulsemeter: interrupted at ".count).prefix { $0 != " " }
        #expect(d.stderr == said(Double(tenths) ?? -1) && abs((Double(tenths) ?? -1) - Double(reached) / 1000) <= 0.1,
                "\(d.stderr) after \(reached) pixels")
    }

    /// A FIFO named as the file (a pipe, `<(...)`) that stalls while `--format dat` counts its
    /// frames (its length is not known up front): the stop ends the run at once, though the
    /// read waits for a writer that never writes again; nothing is written, exit 130.
    @Test func aStalledFIFOStoppedWhileCounting() throws {
        let dir = try TempDir()
        let source = try Self.sine(dir, "source.wav", seconds: 60)
        let fifo = dir.path("talk.wav")
        try #require(mkfifo(fifo, 0o600) == 0)
        let out = dir.path("talk.dat")
        let p = try Running(["waveform", fifo, "--format", "dat", "-o", out])
        // The header and a second of audio, then nothing more (the writer stays open).
        let writer = try #require(FileHandle(forWritingAtPath: fifo), "the FIFO opens once the tool reads it")
        defer { try? writer.close() }
        writer.write(try Data(contentsOf: URL(fileURLWithPath: source)).prefix(44 + 48000 * 4))
        #expect(p.wait { var n: Int32 = 0; return ioctl(writer.fileDescriptor, UInt(FIONREAD), &n) == 0 && n == 0 },
                "the tool took everything written")
        let r = p.stop(with: SIGINT)
        #expect(r.status == 130, "stopped without more input: \(r.stderr)")
        #expect(r.stderr.hasPrefix("pulsemeter: interrupted at ")
                && r.stderr.hasSuffix(" s of talk.wav while counting its frames; nothing was written\n"), "\(r.stderr)")
        #expect((try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) == 0, "nothing in the output")
    }
}
