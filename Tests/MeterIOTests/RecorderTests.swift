import Foundation
import Glibc
import Testing
import TestSupport
@testable import MeterCore
@testable import MeterIO

/// The recorder thread's side of split and voice-activated recording, fed chunks and take
/// decisions directly: every file is the input's span bit for bit, however late the
/// decisions come, and names never repeat.
@Suite struct RecorderTests {
    static let rate = 8000, channels = 2

    static func noise(frames: Int, seed: UInt64) -> [Int16] {
        var rng = SeededRNG(seed: seed)  // any noise: the files are compared with it bit for bit
        return (0..<(frames * channels)).map { _ in Int16(truncatingIfNeeded: rng.next() >> 48) }
    }

    static func read(_ path: String) throws -> [Int16] {
        try readAll(SoundFileReader(path: FilePath(path))).map { Int16(($0 * 32768).rounded()) }
    }

    static func recorder(_ dir: URL, _ name: String, _ mode: RecordingPlan.Mode) throws -> (Recorder, () -> [RecordingFileEvent]) {
        let box = EventBox()
        let path = FilePath(dir.appendingPathComponent(name).path)
        let format = try RecordingFormat.choose(path: path, rate: rate, channels: channels)
        let r = try Recorder(plan: RecordingPlan(path: path, mode: mode), format: format) { e in
            box.events.append(e)
        }
        return (r, { box.events })
    }

    final class EventBox: @unchecked Sendable { var events: [RecordingFileEvent] = [] }

    @Test("trigger: each take is the input's span, whether decisions lag, lead or come in step",
          arguments: [-5000, 0, 333, 30000, 70000])  // 70000: 8.75 s, within the 10 s of slack
    func takesAreExactSpans(lag: Int) throws {
        let dir = try SoundFileFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = 150_000, preRoll = 2000
        let input = Self.noise(frames: frames, seed: UInt64(lag + 100_000))
        // A close is decided at its end, never before the open (decided preRoll after the start).
        let takes = [(0, 5000), (9000, 11001), (20000, 61234), (61234, 70000), (100_000, frames)]
        // The analysis decides an open preRoll after its start, a close at its end.
        var decisions: [(at: Int, change: TakeDetector.Change)] = []
        for (s, e) in takes {
            decisions.append((s + preRoll, .open(at: s)))
            if e < frames { decisions.append((e, .close(at: e))) }
        }
        let (rec, events) = try Self.recorder(dir, "t.wav", .trigger(TriggerSettings(levelDb: -40, holdFrames: 1, preRollFrames: preRoll)))
        var next = 0, pos = 0, chunk = 1
        while pos < frames {
            let n = min(chunk, frames - pos)
            try input.withUnsafeBufferPointer { b in
                try rec.receive(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: b[(2 * pos)..<(2 * (pos + n))])), position: pos)
            }
            pos += n
            chunk = chunk * 7 % 997 + 1
            let horizon = max(0, pos - lag)
            var changes: [TakeDetector.Change] = []
            while next < decisions.count && decisions[next].at <= horizon {
                changes.append(decisions[next].change)
                next += 1
            }
            try rec.decide(changes, upTo: horizon)
        }
        var rest = decisions[next...].map(\.change)
        rest.append(.close(at: frames))
        try rec.decide(rest, upTo: frames)
        try rec.finish()
        let opens = events().filter { $0.kind == .open }, closes = events().filter { $0.kind == .close }
        #expect(opens.map(\.pos) == takes.map(\.0))
        #expect(closes.map(\.pos) == takes.map(\.1))
        #expect(opens.map(\.file) == (1...5).map { dir.appendingPathComponent("t-00\($0).wav").path })
        for ((s, e), file) in zip(takes, opens.map(\.file)) {
            #expect(try Self.read(file) == Array(input[(2 * s)..<(2 * e)]), "\(file)")
        }
        #expect(rec.framesWritten == takes.reduce(0) { $0 + $1.1 - $1.0 })
    }

    @Test("split: files of exactly the split length at multiples of it, end to end the input")
    func splitFiles() throws {
        let dir = try SoundFileFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Self.noise(frames: 25_001, seed: 7)
        let (rec, events) = try Self.recorder(dir, "s.flac", .split(frames: 5000))
        var pos = 0
        for n in [1, 4999, 5000, 333, 10_000, 4667, 1] {
            try input.withUnsafeBufferPointer { b in
                try rec.receive(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: b[(2 * pos)..<(2 * (pos + n))])), position: pos)
            }
            pos += n
        }
        try rec.finish()
        let closes = events().filter { $0.kind == .close }
        #expect(closes.map(\.frames) == [5000, 5000, 5000, 5000, 5000, 1])
        var joined: [Int16] = []
        for c in closes { joined += try Self.read(c.file) }
        #expect(joined == input)
    }

    @Test("names: counters before the extension, existing names skipped, strftime repeats numbered")
    func fileNames() throws {
        let dir = try SoundFileFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var taken: Set<String> = ["a-002.wav"]
        func make(_ namer: inout FileNamer, at t: time_t = 0) throws -> String {
            let (name, _) = try namer.next(at: t) { (p) throws(OutputError) -> Bool? in
                taken.contains(p.string) ? nil : true
            }
            taken.insert(name.string)
            return name.string
        }
        var plain = FileNamer(pattern: FilePath("a.wav"))
        #expect(try (0..<3).map { _ in try make(&plain) } == ["a-001.wav", "a-003.wav", "a-004.wav"])
        var dotted = FileNamer(pattern: FilePath("dir.v2/take"))
        #expect(try make(&dotted) == "dir.v2/take-001")
        var hidden = FileNamer(pattern: FilePath("d/.wav"))
        #expect(try make(&hidden) == "d/.wav-001")
        #expect(FileNamer.number(1000) == Array("-1000".utf8))
        setenv("TZ", "UTC", 1)
        tzset()
        var timed = FileNamer(pattern: FilePath("%Y%m%d-%H%M%S.ogg"))
        let t: time_t = 1_700_000_000  // 2023-11-14 22:13:20 UTC
        #expect(try make(&timed, at: t) == "20231114-221320.ogg")
        #expect(try make(&timed, at: t) == "20231114-221320-001.ogg")
        #expect(try make(&timed, at: t) == "20231114-221320-002.ogg")
        #expect(try make(&timed, at: t + 1) == "20231114-221321.ogg")
    }

    @Test("an exclusive writer never replaces a file: nil for a taken name, the file untouched")
    func createNewIsExclusive() throws {
        let dir = try SoundFileFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("x.wav").path
        try Data("keep".utf8).write(to: URL(fileURLWithPath: path))
        let format = try RecordingFormat.choose(path: FilePath(path), rate: 8000, channels: 1)
        #expect(try format.openNewWriter(path: FilePath(path)) == nil)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep")
        #expect(throws: OutputError.self) {
            _ = try format.openNewWriter(path: FilePath(dir.appendingPathComponent("no/x.wav").path))
        }
    }
}
