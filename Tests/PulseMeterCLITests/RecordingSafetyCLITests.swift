import Foundation
import Testing
import TestSupport

/// Recordings never overwrite: without --force an existing FILE is not
/// touched, whatever it is, and the refusal comes before any server is contacted (exit 73).
/// (--force replacing a file needs a server: the live test `forceReplaces`.)
@Suite struct RecordingSafetyCLITests {
    @Test func anExistingRecordingIsNeverTouched() throws {
        let dir = try TempDir()
        let path = try dir.write(Array("sixty seconds of a take".utf8), "take1.wav")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let stamp = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        for args in [["record", path], ["monitor", "--record", path], ["record", path, "-d", "nosuch.monitor", "--duration", "1"]] {
            let r = try Tool.run(args + ["-f", "ndjson"])
            Tool.expectError(r, 73, mentions: ["take1.wav exists; use --force to replace it"])
            #expect(r.stdout.isEmpty)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == stamp)
        // A dangling symbolic link is a name in use too: recording through it would create its target.
        let link = dir.path("link.wav")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: dir.path("elsewhere.wav"))
        Tool.expectError(try Tool.run(["record", link, "-f", "ndjson"]), 73, mentions: ["exists; use --force"])
        #expect(!FileManager.default.fileExists(atPath: dir.path("elsewhere.wav")))
    }
}
