import Foundation
@testable import PulseMeterCLI
import Testing
import TestSupport

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

    @Test("an option of another command points to it, with the command line to use", arguments: [
        (["monitor", "--split", "3"], "unknown option --split for monitor; --split is an option of record: pulsemeter record FILE --split 3"),
        (["--trigger=-40"], "unknown option --trigger for monitor; --trigger is an option of record: pulsemeter record FILE --trigger -40"),
        (["record", "t.wav", "--record", "u.wav"], "unknown option --record for record; --record is an option of monitor: pulsemeter --record u.wav"),
        (["analyze", "x.wav", "--device", "vsink"], "unknown option --device for analyze; --device is an option of monitor, record, play and calibrate: pulsemeter --device vsink"),
        (["analyze", "x.wav", "--bars"], "unknown option --bars for analyze; --bars is an option of waveform: pulsemeter waveform FILE --bars VALUE"),
    ])
    func optionOfAnotherCommand(args: [String], message: String) throws {
        let r = try Tool.run(args)
        Tool.expectError(r, 64)
        #expect(r.err == "pulsemeter: \(message)\n")
    }

    @Test("a default the rate cannot carry is worded as the rate being too low for it, naming both", arguments: [
        (["-r", "1"], "--rate 1 is too low for the default frame rate (--fps 30): the rate must be at least the frame rate; use --rate 30 or more, or --fps 1 or less"),
        (["analyze", "-", "--raw", "s16le", "-r", "20", "-c", "1"], "--rate 20 is too low for the default frame rate (--fps 30): the rate must be at least the frame rate; use --rate 30 or more, or --fps 20 or less"),
        (["-r", "80", "--bands", "4"], "--rate 80 is too low for bands from --fmin 50 Hz (the default) up to the default --fmax (0.95 x Nyquist: 38 Hz); use --rate 106 or more, or a lower --fmin"),
        (["-r", "101", "--bands", "4"], "--rate 101 is too low for bands from --fmin 50 Hz (the default) up to the default --fmax (0.95 x Nyquist: 48 Hz); use --rate 106 or more, or a lower --fmin"),
        (["-r", "80", "--bands", "8", "--fmax", "30"], "--fmin 50 (the default) is not allowed: use a frequency of at least 1 Hz and below Nyquist (40 Hz)"),
        (["-r", "8", "--fps", "30"], "--fps 30 is not allowed: use a number of frames per second from 0.01 up to the sample rate (8)"),
    ])
    func rateTooLowForADefault(args: [String], message: String) throws {
        let r = try Tool.run(args)
        Tool.expectError(r, 64)
        #expect(r.err == "pulsemeter: \(message)\n")
        // The frame rate and the band edges suggested are allowed at the rate suggested.
        if let rate = message.firstMatch(of: /use --rate ([0-9]+) or more/).map({ String($0.output.1) }) {
            var fixed = args
            fixed[fixed.firstIndex(of: "-r")! + 1] = rate
            #expect(throws: Never.self) { try CLI.check(fixed) }
        }
    }

    @Test("record on a directory or FIFO says what it is, with or without --force (exit 73, before any server is asked)")
    func recordOnADirectory() throws {
        let dir = try TempDir()
        let target = dir.path("takes.wav"), fifo = dir.path("pipe.flac")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        #expect(mkfifo(fifo, 0o644) == 0)
        for (path, what) in [(target, "a directory"), (fifo, "a FIFO (named pipe)")] {
            for extra in [[], ["--force"]] {
                let r = try Tool.run(["record", path] + extra)
                Tool.expectError(r, 73)
                #expect(r.err == "pulsemeter: \(path) is \(what), which pulsemeter never replaces nor writes into; it was left as it is (give the name of a file)\n", "\(extra)")
                #expect(!r.err.contains("exists"))
            }
        }
        let m = try Tool.run(["monitor", "--record", target])
        Tool.expectError(m, 73)
        #expect(m.err.contains("is a directory"), "\(m.err)")
        // A file that exists is still refused as one, naming --force.
        let file = try dir.write([1, 2, 3], "old.wav")
        let f = try Tool.run(["record", file])
        Tool.expectError(f, 73)
        #expect(f.err == "pulsemeter: \(file) exists; use --force to replace it\n")
    }

    @Test func noGuessWhenNothingIsClose() throws {
        let r = try Tool.run(["analyze", "x.wav", "--xyzzy"])
        Tool.expectError(r, 64)
        #expect(r.err == "pulsemeter: unknown option --xyzzy for analyze; see pulsemeter analyze --help\n")
        let c = try Tool.run(["frobnicate"])
        Tool.expectError(c, 64)
        #expect(c.err == "pulsemeter: unknown command frobnicate; use monitor, record, analyze, waveform, tag, normalize, play, devices, presets or calibrate (see pulsemeter --help)\n")
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

    /// The line a run that serves says when it starts listening (CONTRACT.md "Network").
    @Test func servingLine() {
        #expect(LiveCommands.serving(host: "127.0.0.1", port: 9412) == "serving http://127.0.0.1:9412/")
        #expect(LiveCommands.serving(host: "::1", port: 8080) == "serving http://[::1]:8080/")
    }

    /// The exit statuses of the error kinds, written out here (the sysexits.h numbers).
    @Test func exitCodesOfKinds() {
        #expect(PulsemeterError(.usage, "").exitCode == 64)
        #expect(PulsemeterError(.notDecodable, "").exitCode == 65)
        #expect(PulsemeterError(.missingInput, "").exitCode == 66)
        #expect(PulsemeterError(.unavailable, "").exitCode == 69)
        #expect(PulsemeterError(.cannotCreate, "").exitCode == 73)
        #expect(PulsemeterError(.io, "").exitCode == 74)
    }
}
