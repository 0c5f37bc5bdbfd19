import Foundation
import Glibc
import MeterCore
import Testing
@testable import MeterIO

/// The one child-process wrapper: argument vectors passed verbatim (no shell), pipes both
/// ways, exit status and signals, stderr's last line, PATH lookup.
@Suite struct ChildProcessTests {
    @Test func argumentsReachTheChildVerbatimAndPipesCarryBytes() throws {
        let printf = try #require(ChildProcess.find("printf"))
        let odd = "a b;$(echo no) 'q' \"d\" *"
        let p = try ChildProcess(executable: printf, arguments: ["%s|%s", odd, "-x"], stdin: .null, stdout: .pipe)
        let out = Self.readAll(p)
        #expect(p.wait() == .exited(0))
        #expect(out == odd + "|-x")
    }

    @Test func stdinToStdoutThroughCat() throws {
        let cat = try #require(ChildProcess.find("cat"))
        let dir = try SoundFileFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.bin").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        let p = try ChildProcess(executable: cat, arguments: [], stdin: .pipe, stdout: .descriptor(fd))
        close(fd)
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }  // more than a pipe holds
        #expect(bytes.withUnsafeBytes { p.writeToStdin($0) } == 0)
        p.closeStdin()
        #expect(p.wait().isCleanExit)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
    }

    @Test func exitStatusSignalAndLastStderrLine() throws {
        let sh = try #require(ChildProcess.find("sh"))
        let failing = try ChildProcess(executable: sh, arguments: ["-c", "echo first >&2; printf 'last words\\n\\n' >&2; exit 3"], stdin: .null, stdout: .null)
        #expect(failing.wait() == .exited(3))
        #expect(failing.lastStderrLine == "last words")

        let sleeper = try ChildProcess(executable: try #require(ChildProcess.find("sleep")), arguments: ["30"], stdin: .pipe, stdout: .null)
        sleeper.signal(SIGTERM)
        #expect(sleeper.wait() == .signalled(SIGTERM))
        #expect(sleeper.lastStderrLine == nil)
        // Writing to a child that is gone: EPIPE (pulsemeter ignores SIGPIPE), never a crash.
        signal(SIGPIPE, SIG_IGN)
        let gone = try ChildProcess(executable: try #require(ChildProcess.find("true")), arguments: [], stdin: .pipe, stdout: .null)
        _ = gone.wait()
        let block = [UInt8](repeating: 1, count: 200_000)
        #expect(block.withUnsafeBytes { gone.writeToStdin($0) } == EPIPE)
    }

    @Test func pathLookup() {
        #expect(ChildProcess.find("sh", searchPath: "/nonexistent:/bin:/usr/bin") != nil)
        #expect(ChildProcess.find("sh", searchPath: "/nonexistent") == nil)
        #expect(ChildProcess.find("no-such-program-pulsemeter") == nil)
    }

    static func readAll(_ p: ChildProcess) -> String {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { p.readStdout(into: $0.baseAddress!, count: 4096) }
            if n <= 0 { break }
            out += chunk[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test func aChattyStderrNeverStallsTheChild() throws {
        // About 1 MB on stderr (a pipe holds 64 KB) while stdout is read to its end.
        let script = "i=0; while [ $i -lt 1000 ]; do head -c 1000 /dev/zero | tr '\\\\0' x >&2; echo >&2; i=$((i+1)); done; echo done >&2; echo out"
        let p = try ChildProcess(executable: "/bin/sh", arguments: ["-c", script], stdin: .null, stdout: .pipe)
        #expect(Self.readAll(p) == "out\n")
        #expect(p.wait() == .exited(0))
        #expect(p.lastStderrLine == "done")
    }

    @Test func ownProcessGroupOnlyTheStandardDescriptorsSIGPIPEByDefault() throws {
        // A descriptor of ours that is not close-on-exec must not reach the child.
        let leaked = open("/dev/null", O_RDONLY)
        defer { close(leaked) }
        let script = "ls /proc/self/fd | sort -n | tr '\\n' ' '; echo; cut -d' ' -f5 /proc/$$/stat; grep SigIgn /proc/$$/status"
        let p = try ChildProcess(executable: "/bin/sh", arguments: ["-c", script], stdin: .null, stdout: .pipe)
        let lines = Self.readAll(p).split(separator: "\n").map(String.init)
        #expect(p.wait() == .exited(0))
        #expect(lines.count == 3, "\(lines)")
        // ls's own directory descriptor is the only one above 2.
        #expect(lines.first.map { $0.split(separator: " ").compactMap { Int($0) }.filter { $0 > 2 }.count } == 1, "\(lines)")
        #expect(lines.dropFirst().first.flatMap { Int32($0) } == p.pid, "the child leads its own process group")
        let ignored = UInt64(lines.last?.split(separator: "\t").last ?? "", radix: 16) ?? 0
        #expect(ignored & (1 << UInt64(SIGPIPE - 1)) == 0, "SIGPIPE is not ignored in the child")
    }

    @Test func argumentsAsBytesNeedNotBeUTF8() throws {
        let latin1: [UInt8] = Array("caf".utf8) + [0xE9]  // "café" in Latin-1
        let p = try ChildProcess(executable: "/bin/sh", argumentBytes: [Array("-c".utf8), Array("printf %s \"$0\" | od -An -tx1".utf8), latin1],
                                 stdin: .null, stdout: .pipe)
        #expect(Self.readAll(p).split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } == ["63", "61", "66", "e9"])
        #expect(p.wait() == .exited(0))
    }
}
