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
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        while true {
            let n = chunk.withUnsafeMutableBytes { p.readStdout(into: $0.baseAddress!, count: 256) }
            if n <= 0 { break }
            out += chunk[0..<n]
        }
        #expect(p.wait() == .exited(0))
        #expect(String(decoding: out, as: UTF8.self) == odd + "|-x")
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
}
