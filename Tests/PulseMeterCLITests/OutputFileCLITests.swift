import Foundation
import Glibc
import Testing
import TestSupport

/// `-o PATH` never writes through a symbolic link: a link becomes a new regular file (its target
/// untouched); an existing file is truncated and written as a shell's `>` would; a directory is
/// refused (exit 73) and left as it is; a FIFO or a character device is written into as is (a
/// named pipe, /dev/null, a shell's `>(...)`).
@Suite struct OutputFileCLITests {
    static func type(_ p: String) -> mode_t {
        var st = stat()
        return lstat(p, &st) == 0 ? st.st_mode & S_IFMT : 0
    }

    @Test(arguments: ["analyze", "waveform"])
    func aLinkIsReplacedAndItsTargetUntouched(command: String) throws {
        let dir = try TempDir()
        let wav = try TestAudio.make(rate: 8000, channels: 1, seconds: 0.2, encoding: .s16, seed: 3).write(to: dir, name: "a")
        let target = try dir.write(Array("precious".utf8), "target")
        let link = dir.path("out.json")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let r = try Tool.run([command, wav, "-o", link])
        #expect(r.status == 0, "\(r.err)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")
        #expect(Self.type(link) == S_IFREG, "the link itself is replaced")
        let text = try String(contentsOfFile: link, encoding: .utf8)
        #expect(text.hasPrefix("{") && text.hasSuffix("}\n"), "\(text.prefix(80))")
        // An existing file is truncated and written in place, as a shell's > does: its mode is
        // kept (a log file set up for the run), and so is its inode (its other names see it).
        let old = try dir.write(Array(String(repeating: "old run ", count: 2000).utf8), "old.json")
        #expect(chmod(old, 0o600) == 0 && Glibc.link(old, dir.path("kept.json")) == 0)
        #expect(try Tool.run([command, wav, "-o", old]).status == 0)
        let now = try String(contentsOfFile: old, encoding: .utf8)
        #expect(now.hasPrefix("{") && !now.contains("old run"), "truncated: \(now.suffix(40))")
        #expect(try String(contentsOfFile: dir.path("kept.json"), encoding: .utf8) == now)
        var st = stat()
        #expect(stat(old, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
        #expect(names == ["a.wav", "kept.json", "old.json", "out.json", "target"], "no temporary file left: \(names)")
    }

    @Test func aDirectoryIsRefusedAndAStreamIsWrittenInto() throws {
        let dir = try TempDir()
        let wav = try TestAudio.make(rate: 8000, channels: 1, seconds: 0.2, encoding: .s16, seed: 4).write(to: dir, name: "a")
        let sub = dir.path("out.ndjson")
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: false)
        for command in ["analyze", "waveform"] {
            let r = try Tool.run([command, wav, "-o", sub])
            Tool.expectError(r, 73, mentions: ["out.ndjson is a directory", "left as it is"])
            #expect(Self.type(sub) == S_IFDIR)
        }
        // A FIFO: the lines go to its reader, the FIFO stays.
        let fifo = dir.path("lines.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        let r = try Tool.run(["analyze", wav, "-o", fifo])
        #expect(r.status == 0, "\(r.err)")
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = read(reader, &buffer, buffer.count)
        let lines = String(decoding: buffer[0..<max(0, n)], as: UTF8.self).split(separator: "\n")
        #expect(lines.first?.contains("\"type\":\"start\"") == true && lines.last?.contains("\"type\":\"end\"") == true)
        #expect(Self.type(fifo) == S_IFIFO)
        #expect(try Tool.run(["analyze", wav, "-o", "/dev/null"]).status == 0)
        #expect(Self.type("/dev/null") == S_IFCHR)
    }
}
