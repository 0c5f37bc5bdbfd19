import Foundation
import Glibc
import Testing
import TestSupport

/// Memory does not grow with the window: the largest window the settings allow, at
/// the highest rate and channel count, stays far below what a ring of window samples took
/// (5.8 GB). Peak RSS is read by the test from /proc/PID/status (VmHWM) while the child is
/// still running, after it has analyzed audio; timings live in scripts/bench.
@Suite struct MemoryCLITests {
    static func peakRSSKiB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    /// pulsemeter `args` running, its stdin the returned pipe, its stdout the new file `output`.
    static func launch(_ args: [String], output: String) throws -> (Process, Pipe) {
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Tool.binary)
        p.arguments = args
        let input = Pipe()
        p.standardInput = input
        p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        p.standardError = FileHandle.nullDevice
        try p.run()
        return (p, input)
    }

    @Test func sixtySecondWindowAt768kHzOn32ChannelsStaysUnder100MB() throws {
        let dir = try TempDir()
        let outPath = dir.path("out.ndjson")
        let (p, input) = try Self.launch(["analyze", "-", "--raw", "s16le", "-r", "768000", "-c", "32", "--window", "60000"], output: outPath)
        defer { if p.isRunning { p.terminate() } }
        func lines() -> [String] {
            ((try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        func waitFor(_ what: String, _ ok: () -> Bool) throws {
            let ended = Wait.until(timeout: 120, interval: 0.01) { ok() || !p.isRunning }
            try #require(ended && ok(), "no \(what) from pulsemeter")
        }
        // Everything is allocated once the start line is out.
        try waitFor("start line") { lines().first?.contains("\"type\":\"start\"") == true }
        let atStart = try Self.peakRSSKiB(p.processIdentifier)
        // A quarter second of a loud square wave (+-16384): 7 frames of 25600 frames, 32 channels.
        let frames = 192_000
        let pcm = [UInt32](repeating: 0xC000_4000, count: frames * 32 / 2).withUnsafeBytes { Data($0) }
        input.fileHandleForWriting.write(pcm)
        try waitFor("7 frames") { lines().filter { $0.contains("\"type\":\"frame\"") }.count == 7 }
        let afterAudio = try Self.peakRSSKiB(p.processIdentifier)
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(lines().last?.contains("\"type\":\"end\"") == true && lines().last?.contains("\"pos\":192000") == true)
        #expect(atStart < 100 * 1024, "peak RSS \(atStart) KiB at the start line")
        #expect(afterAudio < 100 * 1024, "peak RSS \(afterAudio) KiB after 0.25 s of audio")
        print("MemoryCLITests: VmHWM \(atStart) KiB at start, \(afterAudio) KiB after 0.25 s of 32-channel audio")
    }
}
