import Foundation
import Glibc
import Testing

/// Ctrl-C or SIGTERM during `analyze -` with a stalled input: exit 0, and the NDJSON ends with
/// its end line (the contract's "stopped by Ctrl-C, SIGTERM" case).
@Suite struct InterruptCLITests {
    @Test(arguments: [SIGINT, SIGTERM])
    func stopOnAStalledPipe(signal: Int32) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Tool.binary)
        p.arguments = ["analyze", "-", "--raw", "s16le", "-r", "48000", "-c", "2"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        try p.run()
        // One second of audio, then nothing more (the writer stays open).
        input.fileHandleForWriting.write(Data(count: 48000 * 4))
        usleep(500_000)
        kill(p.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(5)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        let stopped = !p.isRunning
        if !stopped { p.terminate() }
        try? input.fileHandleForWriting.close()
        #expect(stopped, "pulsemeter did not stop within 5 s of the signal")
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("\"type\":\"start\"") == true)
        #expect(lines.last?.contains("\"type\":\"end\"") == true && lines.last?.contains("\"pos\":48000") == true,
                "\(lines.last ?? "")")
    }
}
