import Foundation
import Glibc
import Testing

extension LiveSuite {
    /// `--force` replaces the name, never what it points at: a symbolic link becomes a new
    /// recording (its target untouched), a directory or FIFO is refused (exit 73) and left as
    /// it is; split files never write through a link at a numbered name.
    @Suite("replacing files: links, directories, FIFOs")
    struct ReplacingFiles {
        static func type(_ p: String) -> mode_t {
            var st = stat()
            return lstat(p, &st) == 0 ? st.st_mode & S_IFMT : 0
        }

        static func names(_ dir: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
        }

        /// Frames a container's decoder gives back: sox for libsndfile's containers, ffmpeg for m4a.
        static func decodedFrames(_ path: String) throws -> Int {
            path.hasSuffix(".m4a") ? try decodeWithFFmpeg(path).samples.count / 2 : try soxFrames(path)
        }

        @Test("--force over a symbolic link: the link becomes the recording, its target is untouched",
              arguments: ["wav", "flac", "ogg", "m4a"])
        func forceReplacesALinkNotItsTarget(ext: String) throws {
            let server = try Live.server()
            let dir = try Live.tempDir("force-link")
            defer { Live.removeTree(dir) }
            let target = dir + "/hostname"
            try "precious\n".write(toFile: target, atomically: false, encoding: .utf8)
            for (k, command) in [["record"], ["monitor", "--record"]].enumerated() {
                let link = dir + "/link\(k).\(ext)"
                #expect(symlink(target, link) == 0)
                let p = try pulsemeter(command + [link, "-d", "vsink.monitor", "--duration", "0.3", "--force", "-f", "ndjson"],
                                       server: server)
                let lines = try parseLines(p.readToEnd(timeout: 20))
                #expect(p.wait(timeout: 10) == 0, "\(command): \(p.stderrText)")
                #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious\n", "the link's target is untouched")
                #expect(Self.type(link) == S_IFREG, "the link itself was replaced by the recording")
                #expect(lines.last?.int("recorded_frames") == 14400)
            }
            #expect(Self.names(dir) == ["hostname", "link0.\(ext)", "link1.\(ext)"], "no temporary file left: \(Self.names(dir))")
            for k in 0..<2 {
                let frames = try Self.decodedFrames(dir + "/link\(k).\(ext)")
                // AAC: within one frame (1024) plus the encoder's priming (1024); the others exactly.
                #expect(ext == "m4a" ? abs(frames - 14400) <= 2048 : frames == 14400, "\(ext): \(frames) frames")
            }
        }

        @Test("a directory or FIFO at the name is never replaced nor written into: exit 73 naming it")
        func directoriesAndFIFOsAreRefused() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("force-kinds")
            defer { Live.removeTree(dir) }
            let folder = dir + "/take.wav", fifo = dir + "/take.flac", m4a = dir + "/take.m4a"
            #expect(mkdir(folder, 0o755) == 0 && mkfifo(fifo, 0o644) == 0 && mkfifo(m4a, 0o644) == 0)
            let cases: [(String, String, mode_t)] = [
                (folder, "take.wav is a directory", S_IFDIR), (fifo, "take.flac is a FIFO", S_IFIFO), (m4a, "take.m4a is a FIFO", S_IFIFO),
            ]
            for (path, what, kind) in cases {
                for force in [true, false] {
                    let p = try pulsemeter(["record", path, "-d", "vsink.monitor", "--duration", "0.3", "-f", "ndjson"] + (force ? ["--force"] : []),
                                           server: server)
                    let out = p.readToEnd(timeout: 15)
                    #expect(p.wait(timeout: 10) == 73, "\(path) force \(force): \(p.stderrText)")
                    let line = LiveSuite.errorLine(p.stderrText) ?? p.stderrText
                    // With or without --force it says what is there (never "exists; use --force").
                    #expect(line.contains(what) && !line.contains("exists"), "\(line)")
                    #expect(out.isEmpty, "nothing captured: \(out)")
                    #expect(Self.type(path) == kind)
                }
            }
            #expect(Self.names(folder).isEmpty)
            #expect(Self.names(dir) == ["take.flac", "take.m4a", "take.wav"], "no temporary file left: \(Self.names(dir))")
        }

        @Test("--split never writes through a link at a numbered name: it takes the next number")
        func splitSkipsALinkedName() throws {
            let server = try Live.server()
            let dir = try Live.tempDir("split-link")
            defer { Live.removeTree(dir) }
            let target = dir + "/victim"
            try "precious\n".write(toFile: target, atomically: false, encoding: .utf8)
            #expect(symlink(target, dir + "/t-001.wav") == 0)
            let p = try pulsemeter(["record", dir + "/t.wav", "--split", "0.1", "-d", "vsink.monitor", "--duration", "0.3", "-f", "ndjson"],
                                   server: server)
            let lines = try parseLines(p.readToEnd(timeout: 20))
            #expect(p.wait(timeout: 10) == 0, "\(p.stderrText)")
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious\n")
            #expect(Self.type(dir + "/t-001.wav") == S_IFLNK, "the link is left as it is")
            let opened = lines.filter { $0.type == "file" && $0.string("event") == "open" }.compactMap { $0.string("file") }
            #expect(opened == ["t-002.wav", "t-003.wav", "t-004.wav"].map { dir + "/" + $0 }, "\(opened)")
            #expect(try opened.map(soxFrames).reduce(0, +) == 14400)
        }
    }
}
