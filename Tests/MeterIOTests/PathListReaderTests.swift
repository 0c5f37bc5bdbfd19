import Foundation
import Glibc
import MeterCore
import MeterIO
import Testing

/// `--files-from` lists: split on the separator only, empty entries skipped, names of any
/// length and any bytes, the count known up front for a regular file.
@Suite struct PathListReaderTests {
    static func withList(_ bytes: [UInt8], _ body: (FilePath) throws -> Void) throws {
        var template = Array("/tmp/pm-list-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        #expect(fd >= 0)
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        try body(FilePath(path))
    }

    static func all(_ r: PathListReader) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        while let p = try r.next() { out.append(p.bytes) }
        return out
    }

    @Test("newline lists: spaces, quotes, CR and invalid UTF-8 kept; blank lines skipped; no final newline needed")
    func newlines() throws {
        let names: [[UInt8]] = [Array("a b.wav".utf8), Array("'q\"\\.wav\r".utf8), [0x63, 0xE9, 0xFF], Array("last".utf8)]
        var list: [UInt8] = [10]
        for n in names { list += n + [10, 10] }
        list.removeLast(2)
        try Self.withList(list) { path in
            let r = try PathListReader(path: path, nulSeparated: false)
            #expect(r.knownCount == names.count)
            #expect(try Self.all(r) == names)
        }
    }

    @Test("NUL lists: newlines are part of names; a name longer than the read buffer", arguments: [1, 65535, 65536, 200_000])
    func nul(longLength: Int) throws {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: longLength)
        let names: [[UInt8]] = [Array("two\nlines".utf8), long, Array("\u{1B}]0;t\u{07}".utf8)]
        let list: [UInt8] = names.flatMap { $0 + [0] }
        try Self.withList(list) { path in
            let r = try PathListReader(path: path, nulSeparated: true)
            #expect(r.knownCount == 3)
            #expect(try Self.all(r) == names)
        }
    }

    @Test("a missing list cannot be opened (the CLI's exit 66)")
    func missing() {
        let e = #expect(throws: InputError.self) { try PathListReader(path: FilePath("/nonexistent/list"), nulSeparated: false) }
        #expect(e == .cannotOpen(FilePath("/nonexistent/list"), reason: "No such file or directory"))
    }

    @Test("a stalled list ends at a stop request, marked stopped, instead of blocking")
    func stalledListStops() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        _ = Array("a.wav\n".utf8).withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        let cancellation = Cancellation()
        let dup0 = dup(fds[0])
        let r = try PathListReader(path: FilePath("/dev/fd/\(dup0)"), nulSeparated: false, cancellation: cancellation)
        #expect(try r.next()?.bytes == Array("a.wav".utf8))
        let cancelled = Thread { cancellation.cancel() }
        cancelled.start()
        #expect(try r.next() == nil, "the list ends there")
        #expect(r.stopped)
        close(dup0)
    }
}
