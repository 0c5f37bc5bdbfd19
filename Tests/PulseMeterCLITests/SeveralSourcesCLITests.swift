import Foundation
import Testing
import TestSupport

/// `-d` given several times: what is refused before any server is asked (no server here: the
/// address names nothing, so a check made after connecting would fail with 69, not 64).
@Suite struct SeveralSourcesCLITests {
    static let noServer = ["PULSE_SERVER": "unix:/nonexistent/pulsemeter-no-server/native"]

    static func run(_ args: [String]) throws -> Tool.Result {
        try Tool.exec(Tool.binary, args, environment: noServer)
    }

    @Test("the same device named twice: exit 64, one line naming it", arguments: ["monitor", "record"])
    func duplicate(command: String) throws {
        let dir = try TempDir()
        let file = command == "record" ? [dir.path("x.wav")] : []
        let r = try Self.run([command] + file + ["-d", "mic", "-d", "other", "-d", "mic", "-f", "ndjson"])
        Tool.expectError(r, 64, mentions: ["mic", "twice"])
        #expect(r.stdout.isEmpty, "no start line: \(r.out)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("x-1.wav")))
    }

    @Test("nine sources: exit 64, one line saying at most 8; eight are accepted as far as the server",
          arguments: ["monitor", "record"])
    func tooMany(command: String) throws {
        let dir = try TempDir()
        let file = command == "record" ? [dir.path("x.wav")] : []
        let nine = (1...9).flatMap { ["-d", "source\($0)"] }
        Tool.expectError(try Self.run([command] + file + nine + ["-f", "ndjson"]), 64, mentions: ["9", "8"])
        // Eight pass the check and fail only at the connection (69: no server).
        let eight = try Self.run([command] + file + Array(nine.prefix(16)) + ["-f", "ndjson"])
        Tool.expectError(eight, 69)
    }

    @Test("--listen with several sources: exit 64 before the port is bound")
    func listen() throws {
        Tool.expectError(try Self.run(["monitor", "-d", "a", "-d", "b", "--listen", "127.0.0.1:1", "-f", "ndjson"]), 64,
                         mentions: ["--listen"])
    }

    @Test("play and calibrate take one device: -d twice is exit 64 saying so, before any file or server, not the last one taken",
          arguments: ["play", "calibrate"])
    func oneDeviceCommands(command: String) throws {
        let dir = try TempDir()
        let file = command == "play" ? [dir.path("missing.wav")] : []
        let r = try Self.run([command] + file + ["-d", "a", "-d", "b"])
        Tool.expectError(r, 64, mentions: ["-d", "2 times", command == "play" ? "one sink" : "one source"])
        // One -d passes that check: play then fails on the missing file (66), calibrate at the connection (69).
        Tool.expectError(try Self.run([command] + file + ["-d", "a"]), command == "play" ? 66 : 69)
    }

    @Test("an empty -d among several: exit 64")
    func empty() throws {
        Tool.expectError(try Self.run(["monitor", "-d", "mic", "-d", "", "-f", "ndjson"]), 64, mentions: ["--device"])
    }

    @Test("an empty -d of play or calibrate: exit 64 asking for a sink or a source name, before any file or server",
          arguments: ["play", "calibrate"])
    func emptySingle(command: String) throws {
        let dir = try TempDir()
        let file = command == "play" ? [dir.path("missing.wav")] : []
        let r = try Self.run([command] + file + ["-d", ""])
        Tool.expectError(r, 64, mentions: ["--device", command == "play" ? "sink name" : "source name"])
    }

    @Test("record FILE with two sources refuses an existing x-2.wav before connecting, and creates no x-1.wav")
    func refusesDerivedName() throws {
        let dir = try TempDir()
        let taken = try dir.write(Array("keep".utf8), "x-2.wav")
        let r = try Self.run(["record", dir.path("x.wav"), "-d", "a", "-d", "b", "-f", "ndjson"])
        Tool.expectError(r, 73, mentions: ["x-2.wav", "--force"])
        #expect(!FileManager.default.fileExists(atPath: dir.path("x-1.wav")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: taken)) == Data("keep".utf8), "left alone")
    }
}
