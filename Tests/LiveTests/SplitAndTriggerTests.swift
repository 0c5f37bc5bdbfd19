import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// `record --split` and `record --trigger`, and how their files are named.
    ///
    /// Positions are the capture's: on PulseAudio the capture is the fed input exactly; on
    /// PipeWire it is zeros, the input, zeros (the feed starts a little after the stream, and
    /// the recording runs 2 s longer), so the files are checked against the capture as a whole
    /// (`fedAudioProblem`) and the take positions against the input's offset in the capture.
    @Suite("split and triggered recording")
    struct SplitAndTrigger {
        /// The `file` lines as (event, file, pos, frames).
        static func fileLines(_ lines: [JSONLine]) -> [(event: String, file: String, pos: Int, frames: Int)] {
            lines.filter { $0.type == "file" }.map {
                ($0.string("event") ?? "", $0.string("file") ?? "", $0.int("pos") ?? -1, $0.int("frames") ?? -1)
            }
        }

        /// The closed files in order, each checked against its open line: (file, pos, frames).
        static func takes(_ lines: [JSONLine]) -> [(file: String, pos: Int, frames: Int)] {
            var out: [(String, Int, Int)] = []
            var open: (String, Int)?
            for l in fileLines(lines) where l.event == "open" || l.event == "close" {
                if l.event == "open" {
                    #expect(open == nil, "open while \(open?.0 ?? "") is open")
                    #expect(l.frames == 0)
                    open = (l.file, l.pos)
                } else {
                    #expect(open?.0 == l.file, "close of a file not open: \(l.file)")
                    #expect(l.pos == (open?.1 ?? -1) + l.frames)
                    out.append((l.file, open?.1 ?? -1, l.frames))
                    open = nil
                }
            }
            #expect(open == nil, "every file is closed before the end line")
            return out
        }

        static func span(_ input: [Int16], _ pos: Int, _ frames: Int) -> [Int16] {
            Array(input[(2 * pos)..<(2 * (pos + frames))])
        }

        /// `x.wav` numbered: `x-001.wav`, `x-002.wav`, ...
        static func numbered(_ stem: String, _ k: Int) -> String { stem + String(format: "-%03d.wav", k) }

        /// Every file's samples, end to end.
        static func joined(_ files: [String]) throws -> [Int16] {
            var all: [Int16] = []
            for f in files { all += try decodeWithSox(f) }
            return all
        }

        @Test("--split: files of exactly SECONDS of audio, end to end equal to the fed signal bit for bit")
        func splitEndToEnd() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("split")
            defer { Live.removeTree(dir) }
            let frames = 158_000  // 3.29 s: four files of 0.7 s and a partial one
            let input = TestSignal.make(frames: frames, seed: 51)
            let r = try LiveSuite.recordFed(dir + "/x.wav", ["--split", "0.7", "--events"], input: input, speed: 4, server: server)
            #expect(r.status == 0, "stderr: \(r.stderr)")
            let end = try #require(r.end)
            let recorded = try #require(end.int("recorded_frames"))
            if server.alignedFeed { #expect(recorded == frames) } else { #expect(recorded >= frames) }
            let count = (recorded + 33599) / 33600  // PulseAudio: four of 0.7 s and a partial one
            let files = Self.takes(r.lines)
            #expect(files.map(\.file) == (1...count).map { Self.numbered(dir + "/x", $0) })
            #expect(end.string("file") == files.last?.file)
            #expect(files.map(\.pos) == (0..<count).map { $0 * 33600 })
            #expect(files.map(\.frames) == (0..<count).map { min(33600, recorded - $0 * 33600) })
            for f in files { #expect(try soxFrames(f.file) == f.frames, "\(f.file)") }
            #expect(fedAudioProblem(try Self.joined(files.map(\.file)), [input], server: server) == nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).count == count)
        }

        @Test("--trigger: two bursts in silence give two takes with the pre-roll and hold, each the captured samples of its span")
        func twoBurstsTwoTakes() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("trig")
            defer { Live.removeTree(dir) }
            let rate = Live.rate, hop = 1600, window = 2400
            let bursts = [(48000, 24000), (48000 + 24000 + 144_000, 19200)]  // (start, length)
            var input = [Int16](repeating: 0, count: 2 * 360_000)
            for (start, length) in bursts {
                let b = TestSignal.make(frames: length, seed: 52, start: start)
                for i in 0..<(2 * length) { input[2 * start + i] = b[i] }
            }
            let hold = 1.0, preRoll = 0.3
            let r = try LiveSuite.recordFed(dir + "/take.wav", ["--trigger", "-40", "--hold", "1", "--pre-roll", "0.3"],
                                            input: input, speed: 4, server: server)
            #expect(r.status == 0, "stderr: \(r.stderr)")
            let takes = Self.takes(r.lines)
            #expect(takes.map(\.file) == [dir + "/take-001.wav", dir + "/take-002.wav"])
            guard takes.count == 2 else { return }
            // Where each burst lies in the capture, found in its take: on PulseAudio exactly
            // where it was fed; on PipeWire later by the zeros before the input, and by any
            // frames the loaded server inserted or skipped in the silence between (see
            // `fedAudioProblem`), so each take is placed by its own burst.
            let isSound = { (x: [Int16], i: Int) in x[2 * i] != 0 || x[2 * i + 1] != 0 }
            for ((start, length), take) in zip(bursts, takes) {
                let samples = try decodeWithSox(take.file)
                #expect(samples.count == 2 * take.frames)
                let fedFirst = try #require((start..<(start + length)).first { isSound(input, $0) })
                let fedLast = try #require((start..<(start + length)).last { isSound(input, $0) })
                let got = samples.count / 2
                let first = try #require((0..<got).first { isSound(samples, $0) }, "\(take.file) is silent")
                let last = try #require((0..<got).last { isSound(samples, $0) })
                let (from, to) = (take.pos + first, take.pos + last + 1)  // the burst's sound in the capture
                if server.alignedFeed { #expect(from == fedFirst && to == fedLast + 1, "burst at \(from)..<\(to)") }
                // Opens with the pre-roll before the hop where the level rose (the hop holding
                // the burst's first frames, or the next when it holds only a few of them).
                let opens = from - Int(preRoll * Double(rate))
                #expect(take.pos <= opens + 16 && take.pos > opens - hop - 16, "take at \(take.pos), burst at \(from)")
                // Closes the hold after the last loud frame, which is at most a hop and a window past the burst.
                let end = take.pos + take.frames, closes = to + Int(hold * Double(rate))
                #expect(end >= closes && end <= closes + hop + window, "take ends at \(end), burst + hold at \(closes)")
                if server.alignedFeed {
                    #expect(sampleMismatch(samples, Self.span(input, take.pos, take.frames)) == nil, "\(take.file)")
                } else {
                    #expect(fedAudioProblem(samples, [Self.span(input, start, length)], server: server) == nil, "\(take.file)")
                }
            }
            let end = try #require(r.end)
            #expect(end.int("recorded_frames") == takes.reduce(0) { $0 + $1.frames })
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).count == 2)
        }

        @Test("a strftime pattern with several files in one second gets counters; existing files are never overwritten")
        func namesNeverRepeat() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("names")
            defer { Live.removeTree(dir) }
            let input = TestSignal.make(frames: 96_000, seed: 53)
            // Eight files within about half a second of wall time.
            let r = try LiveSuite.recordFed(dir + "/rec-%Y%m%d-%H%M%S.wav", ["--split", "0.25"], input: input, speed: 4, server: server)
            #expect(r.status == 0, "stderr: \(r.stderr)")
            let files = Self.takes(r.lines)
            let recorded = r.end?.int("recorded_frames") ?? 0
            #expect(files.count == (recorded + 11999) / 12000)
            if server.alignedFeed { #expect(files.count == 8) }
            #expect(Set(files.map(\.file)).count == files.count, "names repeat: \(files.map(\.file))")
            let plain = try NSRegularExpression(pattern: "^rec-\\d{8}-\\d{6}(-\\d{3})?\\.wav$")
            let names = files.map { URL(fileURLWithPath: $0.file).lastPathComponent }
            for n in names {
                #expect(plain.firstMatch(in: n, range: NSRange(n.startIndex..., in: n)) != nil, "\(n)")
            }
            #expect(names.contains { $0.hasSuffix("-001.wav") }, "several files in one second: \(names)")
            #expect(fedAudioProblem(try Self.joined(files.map(\.file)), [input], server: server) == nil)

            // Existing files keep their bytes; the counter skips them.
            let taken = [dir + "/x-001.wav", dir + "/x-003.wav"]
            for t in taken { try Data("not to be touched \(t)".utf8).write(to: URL(fileURLWithPath: t)) }
            let second = TestSignal.make(frames: 120_000, seed: 54)
            let r2 = try LiveSuite.recordFed(dir + "/x.wav", ["--split", "1"], input: second, speed: 4, server: server)
            #expect(r2.status == 0, "stderr: \(r2.stderr)")
            let made = Self.takes(r2.lines)
            let count = ((r2.end?.int("recorded_frames") ?? 0) + 47999) / 48000  // PulseAudio: 3
            #expect(made.map(\.file) == ([2] + Array(4..<(count + 3))).map { Self.numbered(dir + "/x", $0) })
            for t in taken { #expect(try String(contentsOfFile: t, encoding: .utf8) == "not to be touched \(t)") }
            #expect(fedAudioProblem(try Self.joined(made.map(\.file)), [second], server: server) == nil)
        }

        @Test("--split onto a filling disk: exit 74, every earlier file complete and valid, the last a valid prefix")
        func diskFull() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("splitfull")
            let scratch = try Live.tempDir("splitfull-copy")
            defer {
                Live.removeTree(dir)
                Live.removeTree(scratch)
            }
            try Live.mountTmpfs(dir, "size=512k")
            defer { Live.unmount(dir) }
            let input = TestSignal.make(frames: 6 * 48000, seed: 55)
            let r = try LiveSuite.recordFed(dir + "/x.wav", ["--split", "1"], input: input, speed: 20, server: server)
            #expect(r.status == 74)
            let line = LiveSuite.errorLine(r.stderr)
            #expect(line?.contains("No space left on device") == true, "\(r.stderr)")
            let files = Self.fileLines(r.lines).filter { $0.event == "open" }.map(\.file)
            #expect(files.count >= 2 && files.count < 6, "\(files)")
            #expect(line?.contains(files.last ?? "?") == true, "names the file being written: \(line ?? "")")
            var joined: [Int16] = []
            for (k, file) in files.enumerated() {
                let copy = scratch + "/\(k).wav"
                try FileManager.default.copyItem(atPath: file, toPath: copy)
                let samples = try decodeWithSox(copy)
                if server.alignedFeed {
                    let expected = Self.span(input, k * 48000, k < files.count - 1 ? 48000 : samples.count / 2)
                    #expect(sampleMismatch(samples, expected) == nil, "\(file)")
                }
                if k < files.count - 1 { #expect(samples.count == 2 * 48000, "\(file) is complete") }
                joined += samples
            }
            // Together: the capture up to the failure, the last file a valid prefix of the rest.
            #expect(fedAudioProblem(joined, [input], server: server, complete: false) == nil)
        }

        @Test("a file that cannot be created when due: exit 73, the files before it kept and valid")
        func dueFileCannotBeCreated() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("splitdir")
            defer { Live.removeTree(dir) }
            // One directory per second for the next six seconds (a loaded machine may take
            // seconds to start the run); later names point nowhere.
            let now = time(nil)
            for k in -1...5 {
                var t = now + time_t(k)
                var parts = tm()
                localtime_r(&t, &parts)
                let name = String(format: "%02d%02d%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
                try FileManager.default.createDirectory(atPath: dir + "/" + name, withIntermediateDirectories: false)
            }
            let input = TestSignal.make(frames: 12 * 48000, seed: 56)
            let r = try LiveSuite.recordFed(dir + "/%H%M%S/take.wav", ["--split", "1"], input: input, speed: 1, server: server)
            #expect(r.status == 73)
            let line = LiveSuite.errorLine(r.stderr)
            #expect(line?.contains("No such file or directory") == true, "\(r.stderr)")
            let files = Self.takes(r.lines)
            #expect(!files.isEmpty && files.count < 12, "\(files.map(\.file))")
            for (k, f) in files.enumerated() {
                #expect(f.pos == k * 48000 && f.frames == 48000)
                if server.alignedFeed {
                    #expect(sampleMismatch(try decodeWithSox(f.file), Self.span(input, f.pos, f.frames)) == nil, "\(f.file)")
                }
            }
            let problem = fedAudioProblem(try Self.joined(files.map(\.file)), [input], server: server, complete: false)
            #expect(problem == nil, "\(problem ?? "")")
        }
    }
}
