import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// Play and record take file names as bytes (not UTF-8, a newline, a quote, an
    /// escape sequence, a leading `-`), and JSON carries them as valid strings.
    @Suite("file names are bytes (play, record)")
    struct FileNames {
        static let names: [[UInt8]] = [
            Array("caf".utf8) + [0xE9],
            Array("two\nlines".utf8),
            Array("say \"hi\" it's".utf8),
            Array("\u{1B}]0;pwned\u{07}\u{1B}[31mred".utf8),
            Array("-x".utf8),
        ]

        /// `dir/name` as bytes; a name starting with `-` is given after `--` by the caller.
        static func path(_ dir: String, _ name: [UInt8], _ ext: String) -> [UInt8] {
            Array(dir.utf8) + [UInt8(ascii: "/")] + name + Array(ext.utf8)
        }

        static func withCPath<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
            (bytes + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) } }
        }

        @Test("play -f ndjson plays each name to the end; the start line names it")
        func play() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("playnames")
            defer { Live.removeTree(dir) }
            let plain = dir + "/plain.wav"
            let frames = 9600  // 0.2 s
            try writeWav(TestSignal.make(frames: frames, seed: 15), to: plain)
            for name in Self.names {
                let file = Self.path(dir, name, ".wav")
                #expect(Self.withCPath(file) { Glibc.link(plain, $0) } == 0)
                let args: [[UInt8]] = [Array("play".utf8), Array("-d".utf8), Array("vsink".utf8), Array("--".utf8), file]
                let p = try pulsemeter(rawArguments: args, server: server)
                let lines = try parseLines(p.readToEnd(timeout: 20))
                #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
                #expect(lines.first?.string("source") == String(decoding: file, as: UTF8.self))
                #expect(lines.last?.type == "end" && lines.last?.int("pos") == frames)
            }
        }

        @Test("record NAME: the file has exactly those bytes, the end line names it, sox reads it")
        func record() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("recnames")
            defer { Live.removeTree(dir) }
            let frames = 4800  // 0.1 s
            let input = TestSignal.make(frames: frames, seed: 16)
            server.drainFeed()
            // One recording per name, all of the same feed (each has its start line before it
            // begins, so each holds the whole of it).
            var running: [(file: [UInt8], process: Subprocess)] = []
            defer { for r in running { r.process.kill() } }
            for name in Self.names {
                let file = Self.path(dir, name, ".wav")
                let args: [[UInt8]] = ["record", "-d", server.feedSource, "-f", "ndjson",
                                       "--duration", server.feedDurationArgument(frames: frames), "--"].map { Array($0.utf8) } + [file]
                let p = try pulsemeter(rawArguments: args, server: server)
                running.append((file, p))
                let first = try #require(p.readLine(timeout: 15), "no start line: \(p.stderrText)")
                #expect(try JSONLine(first).type == "start")
            }
            let feeder = server.startFeeding(input, speed: nil)
            defer { server.stopFeeding(feeder) }
            for (i, (file, p)) in running.enumerated() {
                let lines = try parseLines(p.readToEnd(timeout: 20))
                #expect(p.wait(timeout: 5) == 0, "stderr: \(p.stderrText)")
                let end = try #require(lines.last)
                #expect(end.type == "end" && end.int("recorded_frames") == server.feedDuration(frames: frames))
                #expect(end.string("file") == String(decoding: file, as: UTF8.self))
                // The exact bytes name the file; sox reads it (through a plain second name).
                let plain = dir + "/copy\(i).wav"
                #expect(Self.withCPath(file) { Glibc.link($0, plain) } == 0, "no file under the exact bytes")
                let recorded = try decodeWithSox(plain)
                #expect(fedAudioProblem(recorded, [input], server: server) == nil)
            }
        }
    }
}
