import Foundation
import Testing

/// The layering rules, checked on the sources (every .swift file under Sources/, folders
/// included):
/// - below the CLI, no code line (comments aside) holds a string with a command-line option,
///   only Signals.swift touches `Signals`, and nothing makes a `PulsemeterError`;
/// - below the CLI, no comment gives an exit status: the layers below say what happens, the
///   CLI decides the status;
/// - the CLI imports no C module and calls no C function itself: what it needs of the
///   process comes from MeterIO;
/// - no comment anywhere cites a document or an issue tracker that is not in the repository;
/// - every run's sinks are reached through the session, which checks the threading rule in
///   debug builds (`ThreadCheckedSink`), as does every other place that drives sinks, and no
///   command calls a sink itself.
@Suite struct LayeringTests {
    /// Every Swift file of `layer` (a folder under Sources/), as (path under Sources, lines).
    static func files(_ layer: String) throws -> [(name: String, lines: [Substring])] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let dir = root.appendingPathComponent(layer)
        guard let walk = FileManager.default.enumerator(atPath: dir.path) else { return [] }
        var out: [(String, [Substring])] = []
        for case let name as String in walk where name.hasSuffix(".swift") {
            let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            out.append((layer + "/" + name, text.split(separator: "\n", omittingEmptySubsequences: false)))
        }
        return out.sorted { $0.0 < $1.0 }
    }

    static func isComment(_ line: Substring) -> Bool { line.trimmingCharacters(in: .whitespaces).hasPrefix("//") }

    @Test func noFileUnderTheCoreOrIOLayersSpellsAnOptionReadsSignalsOrWordsAnError() throws {
        let option = try Regex(#""[^"]*--[a-z][^"]*""#)
        var checked = 0
        for layer in ["MeterCore", "MeterIO"] {
            for (name, lines) in try Self.files(layer) {
                for (n, line) in lines.enumerated() where !Self.isComment(line) {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    #expect(code.firstMatch(of: option) == nil, "\(name):\(n + 1) spells an option: \(code)")
                    if !name.hasSuffix("/Signals.swift") {
                        #expect(!code.contains("Signals."), "\(name):\(n + 1) reads Signals: \(code)")
                    }
                    #expect(!code.contains("PulsemeterError"), "\(name):\(n + 1) words an error: \(code)")
                }
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    @Test func noCommentBelowTheCLIGivesAnExitStatus() throws {
        // "exit 66", "(exit 65/66; ...)", "give its exit code (66 missing ...": "exit" and a
        // status number in one sentence.
        let status = try Regex(#"\bexit(s|ed)?\b[^.]*\b(6[4-9]|7[0-8]|130)\b"#)
        for layer in ["MeterCore", "MeterIO"] {
            for (name, lines) in try Self.files(layer) {
                for (n, line) in lines.enumerated() where Self.isComment(line) {
                    #expect(line.firstMatch(of: status) == nil, "\(name):\(n + 1) gives an exit status: \(line)")
                }
            }
        }
    }

    /// Sinks are called by a session only: `MeterSession.run(into:)` wraps them in the debug
    /// check, and no file of the CLI calls a sink's `start`, `frame` or `end` (the calls would
    /// escape the check).
    @Test func everySinkCallGoesThroughTheSessionsThreadCheck() throws {
        let session = try Self.files("MeterIO").first { $0.name.hasSuffix("/MeterSession.swift") }
        let run = try #require(session).lines.drop { !$0.contains("public func run(into sinks") }.prefix(6)
        #expect(run.contains { $0.contains("ThreadCheckedSink.inDebug(") }, "\(run.joined(separator: "\n"))")
        let call = try Regex(#"\b[a-z][A-Za-z]*[Ss]ink[!?]?\.(start|frame|end|gap|device|file|event|idle)\("#)
        for (name, lines) in try Self.files("PulseMeterCLI") {
            for (n, line) in lines.enumerated() where !Self.isComment(line) {
                #expect(line.firstMatch(of: call) == nil, "\(name):\(n + 1) calls a sink itself: \(line)")
            }
        }
    }

    /// The places that drive sinks, each with the text of its debug check; a file that spawns
    /// a thread or builds a `StreamRun` and is in neither list is a new path to a sink: give
    /// it its check (`ThreadCheckedSink.inDebug`) and add it here, or say why it is exempt.
    static let sinkDrivers: [String: [String]] = [
        // Every run's sinks; the spread file run's analysis-side calls.
        "MeterIO/Sessions/MeterSession.swift": ["ThreadCheckedSink.inDebug(fanned", "ThreadCheckedSink.inDebug(output"],
        // What the output thread calls.
        "MeterIO/Sessions/BackgroundSink.swift": ["self.sink = ThreadCheckedSink.inDebug(sink"],
    ]
    /// Files that spawn threads or build a `StreamRun` but call no sink beyond those checked.
    static let sinkExempt: [String: String] = [
        "MeterCore/Pipeline/StreamRun.swift": "StreamRun itself; MeterPipeline.run(source:sink:) is the tests' (no source calls it)",
        "MeterIO/Sessions/LiveAnalysis.swift": "its sink is the one MeterSession.run checked, on the analysis thread",
        "MeterIO/Sessions/LiveSessionGroup.swift": "its threads call MeterSession.run's checked sink (one at a time) through a SerializedSink",
        "MeterIO/Sessions/LiveMeterSession.swift": "its capture and recorder threads never get the sink",
        "MeterIO/Analysis/OrderedWorkPool.swift": "each file's work runs a MeterSession; its delivery writes bytes",
        "MeterIO/Network/HookRunner.swift": "its thread runs hooks with lines already encoded",
        "MeterIO/Network/MonitorHTTPServer.swift": "its threads read MonitorState under its lock",
        "MeterIO/Input/ReadAheadSource.swift": "its thread decodes samples",
        "MeterIO/Output/KeyCommands.swift": "its thread reads keys; a redraw is the session's nudge, the analysis calls the sink",
        "MeterIO/System/ChildProcess.swift": "its thread collects a child's stderr",
        "MeterIO/System/Signals.swift": "its thread waits for signals",
        "MeterIO/Pulse/PulseStream.swift": "its thread opens a stream",
    ]

    /// The thread check is on every path a sink is called on: each place that drives sinks
    /// wraps them (`ThreadCheckedSink.inDebug`, which checks in debug builds only), and no
    /// other file spawns a thread or runs a stream.
    @Test func everyPlaceThatDrivesSinksChecksTheThread() throws {
        let all = try ["MeterCore", "MeterIO"].flatMap { try Self.files($0) }
        let checked = try #require(all.first { $0.name.hasSuffix("/ThreadCheckedSink.swift") })
        let inDebug = checked.lines.drop { !$0.contains("static func inDebug(") }.prefix(6).joined(separator: "\n")
        #expect(inDebug.contains("#if DEBUG") && inDebug.contains("ThreadCheckedSink(sink"), "\(inDebug)")
        for (name, wraps) in Self.sinkDrivers {
            let lines = try #require(all.first { $0.name == name }, "\(name) is gone").lines.filter { !Self.isComment($0) }
            for wrap in wraps {
                #expect(lines.contains { $0.contains(wrap) }, "\(name) no longer checks the thread: \(wrap)")
            }
        }
        var drivers = 0
        for (name, lines) in all where lines.contains(where: { !Self.isComment($0) && ($0.contains("OSThread.spawn(") || $0.contains("StreamRun(")) }) {
            drivers += 1
            #expect(Self.sinkDrivers[name] != nil || Self.sinkExempt[name] != nil,
                    "\(name) spawns a thread or runs a stream: check its sink calls (LayeringTests.sinkDrivers) or exempt it")
        }
        #expect(drivers >= Self.sinkDrivers.count + 5)
        for (name, lines) in try all + Self.files("PulseMeterCLI") {
            for (n, line) in lines.enumerated() where !Self.isComment(line) {
                #expect(!line.contains(".run(source:"), "\(name):\(n + 1) runs a stream outside a session")
            }
        }
    }

    @Test func theCLICallsNoCFunction() throws {
        let calls = ["import Glibc", "Glibc.", "strlen(", "access(", "usleep(", "getenv(", " exit(", "isatty("]
        var checked = 0
        for (name, lines) in try Self.files("PulseMeterCLI") + Self.files("pulsemeter") {
            for (n, line) in lines.enumerated() where !Self.isComment(line) {
                for call in calls {
                    #expect(!line.contains(call), "\(name):\(n + 1) calls C (\(call)): \(line)")
                }
            }
            checked += 1
        }
        #expect(checked > 20)
    }

    @Test func noCommentCitesWhatIsNotInTheRepository() throws {
        let citation = try Regex(#"CONTRACT\.md|\b[Ii]ssues? #?[0-9]+|(^|[ (])#[0-9]+\b|the contract"#)
        for layer in ["MeterCore", "MeterIO", "PulseMeterCLI", "pulsemeter"] {
            for (name, lines) in try Self.files(layer) {
                for (n, line) in lines.enumerated() where Self.isComment(line) {
                    #expect(line.firstMatch(of: citation) == nil, "\(name):\(n + 1) cites: \(line)")
                }
            }
        }
    }
}
