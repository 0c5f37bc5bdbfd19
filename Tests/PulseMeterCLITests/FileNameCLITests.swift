import Foundation
import Testing
import TestSupport

/// File names are bytes. analyze and waveform open names that are not UTF-8, hold a
/// newline, a quote, an escape sequence or start with `-`; JSON shows them as valid strings
/// (invalid bytes as U+FFFD), terminals and error lines never get a raw control character.
@Suite struct FileNameCLITests {
    struct Name: Sendable, CustomStringConvertible {
        var bytes: [UInt8]
        var description: String { String(reflecting: String(decoding: bytes, as: UTF8.self)) }
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        init(_ s: String) { bytes = Array(s.utf8) }
    }

    static let names: [Name] = [
        Name(Array("caf".utf8) + [0xE9] + Array(".wav".utf8)),       // Latin-1, not UTF-8
        Name([0xFF, 0xFE, 0x80] + Array(" bytes.wav".utf8)),          // no UTF-8 at all
        Name("two\nlines.wav"),
        Name("say \"hi\" it's.wav"),
        Name("\u{1B}]0;pwned\u{07}\u{1B}[31mred\u{1B}[0m.wav"),      // OSC title + SGR
    ]

    /// A 0.4 s stereo reference file and its single-run outputs under a plain name.
    static func reference(_ dir: TempDir) throws -> (path: String, end: String, waveform: String) {
        let audio = TestAudio.make(rate: 16000, channels: 2, seconds: 0.4, encoding: .s16, seed: 15)
        let path = try audio.write(to: dir, name: "plain")
        let a = try Tool.run(["analyze", path, "-f", "ndjson"])
        #expect(a.status == 0, "\(a.err)")
        let w = try Tool.run(["waveform", path, "--bars", "8"])
        #expect(w.status == 0, "\(w.err)")
        let end = try #require(a.out.split(separator: "\n").last.map(String.init))
        return (path, end, w.out)
    }

    /// A temporary directory with the reference file, also linked as `name` (full path bytes).
    static func linked(_ name: Name) throws -> (dir: TempDir, ref: (path: String, end: String, waveform: String), full: [UInt8]) {
        let dir = try TempDir()
        let ref = try reference(dir)
        let full = Array(dir.url.path.utf8) + [UInt8(ascii: "/")] + name.bytes
        try Tool.link(ref.path, as: full)
        return (dir, ref, full)
    }

    /// The control characters a terminal acts on (C0 but newline at the end of a line, DEL, and
    /// the C1 range as UTF-8: C2 80..9F).
    static func rawControls(_ bytes: Data) -> [UInt8] {
        var found: [UInt8] = []
        let b = [UInt8](bytes)
        for (i, c) in b.enumerated() {
            if (c < 0x20 && c != 0x0A) || c == 0x7F { found.append(c) }
            if c == 0xC2, i + 1 < b.count, (0x80...0x9F).contains(b[i + 1]) { found.append(b[i + 1]) }
        }
        return found
    }

    @Test("analyze and waveform open the exact bytes; JSON carries the name as a valid string", arguments: names)
    func opensExactBytes(name: Name) throws {
        let (dir, ref, full) = try Self.linked(name)
        defer { withExtendedLifetime(dir) {} }

        let a = try Tool.runBytes([Array("analyze".utf8), full, Array("-f".utf8), Array("ndjson".utf8)])
        #expect(a.status == 0, "\(a.err)")
        #expect(a.stderr.isEmpty)
        let lines = try Tool.ndjson(a)
        #expect(lines.first?["source"] as? String == String(decoding: full, as: UTF8.self))
        #expect(a.out.split(separator: "\n").last.map(String.init) == ref.end, "same numbers as under a plain name")
        // The raw name never appears: JSON escapes its control characters.
        #expect(!a.out.utf8.contains(0x1B) && !a.out.utf8.contains(0x07))

        let w = try Tool.runBytes([Array("waveform".utf8), full, Array("--bars".utf8), Array("8".utf8)])
        #expect(w.status == 0, "\(w.err)")
        #expect(w.out == ref.waveform)

        // -o to such a name writes exactly that file.
        let out = full + Array(".ndjson".utf8)
        let o = try Tool.runBytes([Array("analyze".utf8), Array(ref.path.utf8), Array("-o".utf8), out])
        #expect(o.status == 0, "\(o.err)")
        let fd = (out + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY) } }
        #expect(fd >= 0, "the -o file exists under its exact bytes")
        if fd >= 0 { close(fd) }
    }

    @Test("the ANSI summary shows the name with its control characters escaped", arguments: names)
    func ansiSummaryEscapes(name: Name) throws {
        let (dir, _, full) = try Self.linked(name)
        defer { withExtendedLifetime(dir) {} }
        let r = try Tool.runBytes([Array("analyze".utf8), full, Array("-f".utf8), Array("ansi".utf8)])
        #expect(r.status == 0, "\(r.err)")
        #expect(Self.rawControls(r.stdout) == [], "raw control characters reached the terminal: \(r.out.debugDescription)")
        #expect(r.out.contains(SafeTextReference.escape(String(decoding: name.bytes, as: UTF8.self))))
    }

    @Test("errors name the file with control characters escaped, on one line", arguments: names)
    func errorsEscape(name: Name) throws {
        let dir = try TempDir()
        let missing = Array(dir.url.path.utf8) + [UInt8(ascii: "/")] + name.bytes
        for command in ["analyze", "waveform"] {
            let r = try Tool.runBytes([Array(command.utf8), missing])
            Tool.expectError(r, 66, mentions: [SafeTextReference.escape(String(decoding: name.bytes, as: UTF8.self))])
            #expect(Self.rawControls(r.stderr) == [], "raw control characters on stderr: \(r.err.debugDescription)")
        }
        // Not audio (exit 65): the same.
        let bogus = Array(dir.url.path.utf8) + [UInt8(ascii: "/")] + name.bytes + Array(".txt".utf8)
        let text = try dir.write(Array("not audio\n".utf8), "text")
        try Tool.link(text, as: bogus)
        let r = try Tool.runBytes([Array("analyze".utf8), bogus])
        Tool.expectError(r, 65)
        #expect(Self.rawControls(r.stderr) == [], "raw control characters on stderr: \(r.err.debugDescription)")
    }

    @Test("a name starting with - is a file as ./-x.wav and after --")
    func leadingDash() throws {
        let dir = try TempDir()
        let ref = try Self.reference(dir)
        try Tool.link(ref.path, as: Array((dir.url.path + "/-x.wav").utf8))
        for args in [["analyze", "-f", "ndjson", "./-x.wav"], ["analyze", "-f", "ndjson", "--", "-x.wav"]] {
            let r = try Tool.runBytes(args.map { Array($0.utf8) }, cwd: dir.url.path)
            #expect(r.status == 0, "\(args): \(r.err)")
            #expect(r.out.split(separator: "\n").last.map(String.init) == ref.end)
            #expect(try Tool.ndjson(r).first?["source"] as? String == args.last)
        }
        for args in [["waveform", "--bars", "8", "./-x.wav"], ["waveform", "--bars", "8", "--", "-x.wav"]] {
            let r = try Tool.runBytes(args.map { Array($0.utf8) }, cwd: dir.url.path)
            #expect(r.status == 0, "\(args): \(r.err)")
            #expect(r.out == ref.waveform)
        }
        // Without ./ or -- it is an option, and the error says so.
        let r = try Tool.runBytes(["analyze", "-x.wav"].map { Array($0.utf8) }, cwd: dir.url.path)
        Tool.expectError(r, 64, mentions: ["unknown option"])
    }
}

/// The escaping README.md "File names" describes, written out here independently of SafeText: C0, DEL
/// and C1 as `\n` `\t` `\r` `\e` or `\xHH`.
enum SafeTextReference {
    static func escape(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u.value {
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0D: out += "\\r"
            case 0x1B: out += "\\e"
            case 0..<0x20, 0x7F...0x9F: out += String(format: "\\x%02X", u.value)
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }
}
