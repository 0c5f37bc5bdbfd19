import Foundation
@testable import PulseMeterCLI
import Testing

/// Messages in our words: a mistyped option or command is answered with the nearest one that
/// exists, and no library text ("System error : ...", "Format not recognised.") reaches the user.
@Suite struct MessageWordingTests {
    @Test(arguments: [
        (["analyze", "x.wav", "--band", "8"], "unknown option --band for analyze; did you mean --bands?"),
        (["analyze", "x.wav", "--bnads=8"], "unknown option --bnads for analyze; did you mean --bands?"),
        (["analyze", "x.wav", "-bands", "8"], "unknown option -bands for analyze; did you mean --bands?"),
        (["--devcie", "vsink"], "unknown option --devcie for monitor; did you mean --device?"),
        (["waveform", "x.wav", "--bar", "9"], "unknown option --bar for waveform; did you mean --bars?"),
        (["waveform", "x.wav", "--played-colour", "red"], "unknown option --played-colour for waveform; did you mean --played-color?"),
        (["devices", "--sink"], "unknown option --sink for devices; did you mean --sinks?"),
        (["record", "t.wav", "--reconect"], "unknown option --reconect for record; did you mean --reconnect?"),
        (["analyze", "x.wav", "--fft"], "unknown option --fft for analyze; did you mean --fft-size?"),
        (["anlyze", "x.wav"], "unknown command anlyze; did you mean analyze?"),
        (["analyse", "x.wav"], "unknown command analyse; did you mean analyze?"),
        (["wavefrom", "x.wav"], "unknown command wavefrom; did you mean waveform?"),
        (["rec", "t.wav"], "unknown command rec; did you mean record?"),
        (["devics"], "unknown command devics; did you mean devices?"),
    ])
    func suggestsTheNearest(args: [String], message: String) throws {
        let r = try Tool.run(args)
        Tool.expectError(r, 64)
        #expect(r.err == "pulsemeter: \(message)\n")
    }

    @Test func noGuessWhenNothingIsClose() throws {
        let r = try Tool.run(["analyze", "x.wav", "--xyzzy"])
        Tool.expectError(r, 64)
        #expect(r.err == "pulsemeter: unknown option --xyzzy for analyze; see pulsemeter analyze --help\n")
        let c = try Tool.run(["frobnicate"])
        Tool.expectError(c, 64)
        #expect(c.err == "pulsemeter: unknown command frobnicate; use monitor, record, analyze, waveform, play, devices or calibrate (see pulsemeter --help)\n")
        // A single letter is never guessed.
        #expect(try Tool.run(["analyze", "x.wav", "-x"]).err == "pulsemeter: unknown option -x for analyze; see pulsemeter analyze --help\n")
    }

    @Test func aFileGivenAloneGetsTheAnalyzeCommandLine() throws {
        let dir = try TempDir()
        let path = try dir.write(TestAudio(rate: 8000, channels: 1, encoding: .s16, doubles: [0.1]).wavBytes, "take.wav")
        let r = try Tool.run([path])
        Tool.expectError(r, 64)
        #expect(r.err == "pulsemeter: unknown command \(path); to meter a file, use pulsemeter analyze \(path)\n")
    }

    @Test func editDistance() {
        func d(_ a: String, _ b: String) -> Int { Suggestion.distance(Array(a), Array(b)) }
        #expect(d("band", "bands") == 1)
        #expect(d("bnads", "bands") == 1)  // a swap of neighbours
        #expect(d("analyse", "analyze") == 1)
        #expect(d("kitten", "sitting") == 3)
        #expect(d("", "abc") == 3)
        #expect(d("abc", "abc") == 0)
        #expect(Suggestion.nearest(to: "--dev", in: ["--device", "--duration"]) == "--device")  // a beginning
        #expect(Suggestion.nearest(to: "--f", in: ["--fps", "--fmin"]) == nil)
    }

    /// libsndfile's own strings, which must never be shown.
    static let libraryText = ["System error", "Format not recognised", "File contains data in an unknown format", ".;", "Error :"]

    @Test func undecodableInputsAreWordedByUs() throws {
        let dir = try TempDir()
        let inputs = [try dir.write([], "empty.wav"), try dir.write(Array("not audio at all\n".utf8), "text.flac"),
                      try dir.write(Array("RIFF\u{10}\0\0\0WAVEjunkjunkjunkjunk".utf8), "junk.wav")]
        for path in inputs {
            for command in ["analyze", "waveform"] {
                let r = try Tool.run([command, path])
                Tool.expectError(r, 65, mentions: [path])
                for text in Self.libraryText { #expect(!r.err.contains(text), "\(command) \(path): \(r.err)") }
            }
        }
    }
}

