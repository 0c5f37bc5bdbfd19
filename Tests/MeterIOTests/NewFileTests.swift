import Foundation
import Glibc
import MeterCore
import MeterIO
import Testing
import TestSupport

/// `NewFile`, the one way files are created: a name is written or replaced, never what a
/// symbolic link at it points at; directories, FIFOs, devices and sockets are never replaced.
@Suite final class NewFileTests {
    let dir: String

    init() throws {
        dir = try TempDir.create("newfile")
    }

    deinit { TempDir.remove(dir) }

    func path(_ name: String) -> String { dir + "/" + name }
    func contents(_ p: String) -> String? { try? String(contentsOfFile: p, encoding: .utf8) }
    func write(_ text: String, _ p: String) throws { try text.write(toFile: p, atomically: false, encoding: .utf8) }
    func type(_ p: String) -> mode_t {
        var st = stat()
        return lstat(p, &st) == 0 ? st.st_mode & S_IFMT : 0
    }
    /// Writes `text` through the new file's descriptor and closes it.
    func fill(_ f: NewFile, _ text: String) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { Glibc.write(f.fd, $0.baseAddress, $0.count) } == bytes.count)
        close(f.fd)
    }
    /// Every name in the directory (no temporary file left behind).
    func names() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }

    @Test func aNewNameIsCreatedExclusively() throws {
        let f = try NewFile.create(FilePath(path("a.wav")), existing: .keep)
        try f.commit()
        fill(f, "new")
        #expect(contents(path("a.wav")) == "new")
        #expect(type(path("a.wav")) == S_IFREG)
    }

    @Test func keepLeavesEveryExistingNameAlone() throws {
        try write("old", path("file"))
        symlink(path("nowhere"), path("dangling"))
        mkfifo(path("fifo"), 0o600)
        for name in ["file", "dangling", "fifo"] {
            #expect(throws: NewFile.Failure.exists) { try NewFile.create(FilePath(path(name)), existing: .keep) }
        }
        #expect(contents(path("file")) == "old")
        #expect(!FileManager.default.fileExists(atPath: path("nowhere")), "a dangling link's target is not created")
        #expect(names() == ["dangling", "fifo", "file"])
    }

    @Test(arguments: [NewFile.Existing.replace, .output])
    func aSymbolicLinkIsReplacedAndItsTargetUntouched(existing: NewFile.Existing) throws {
        try write("precious", path("target"))
        symlink(path("target"), path("link.wav"))
        let f = try NewFile.create(FilePath(path("link.wav")), existing: existing)
        try f.commit()
        fill(f, "recording")
        #expect(contents(path("target")) == "precious")
        #expect(type(path("link.wav")) == S_IFREG, "the link itself became a regular file")
        #expect(contents(path("link.wav")) == "recording")
        #expect(names() == ["link.wav", "target"], "no temporary name left: \(names())")
    }

    @Test func aRegularFileIsReplacedOnlyAtCommitAndItsOtherLinksKeepTheOldContent() throws {
        try write("old", path("take.wav"))
        link(path("take.wav"), path("hardlink"))
        let f = try NewFile.create(FilePath(path("take.wav")), existing: .replace)
        #expect(contents(path("take.wav")) == "old", "before commit the name still holds the old file")
        try f.commit()
        fill(f, "new")
        #expect(contents(path("take.wav")) == "new")
        #expect(contents(path("hardlink")) == "old", "a new file, not the old one truncated")
    }

    @Test func outputTruncatesAnExistingFileInPlace() throws {
        try write("old old old", path("log.ndjson"))
        chmod(path("log.ndjson"), 0o640)
        var before = stat()
        lstat(path("log.ndjson"), &before)
        let f = try NewFile.create(FilePath(path("log.ndjson")), existing: .output)
        try f.commit()
        fill(f, "new")
        var after = stat()
        lstat(path("log.ndjson"), &after)
        #expect(contents(path("log.ndjson")) == "new")
        #expect(after.st_ino == before.st_ino && after.st_mode & 0o777 == 0o640, "the same file, its mode kept")
        f.discard()
        #expect(contents(path("log.ndjson")) == "new", "discard never removes a file that was there")
    }

    @Test func discardLeavesTheReplacedFileAsItWas() throws {
        try write("old", path("take.wav"))
        let f = try NewFile.create(FilePath(path("take.wav")), existing: .replace)
        close(f.fd)
        f.discard()
        #expect(contents(path("take.wav")) == "old")
        #expect(names() == ["take.wav"])
    }

    /// The attack the exclusive, non-following creation defeats: the name becomes a link to a
    /// victim after the look and before the write. The write lands in the new file; the link
    /// is what the rename replaces, and the victim is untouched.
    @Test func aLinkPlantedBeforeTheCommitCannotRedirectTheWrite() throws {
        try write("old", path("take.wav"))
        try write("victim", path("victim"))
        let f = try NewFile.create(FilePath(path("take.wav")), existing: .replace)
        unlink(path("take.wav"))
        symlink(path("victim"), path("take.wav"))
        try f.commit()
        fill(f, "new")
        #expect(contents(path("victim")) == "victim")
        #expect(type(path("take.wav")) == S_IFREG && contents(path("take.wav")) == "new")
    }

    @Test func directoriesFIFOsDevicesAndSocketsAreNeverReplaced() throws {
        mkdir(path("dir.wav"), 0o700)
        mkfifo(path("fifo.wav"), 0o600)
        let sock = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(sock) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let sockPath = path("sock.wav")
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in sockPath.utf8.enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sock, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        let cases: [(String, NewFile.Kind)] = [
            (path("dir.wav"), .directory), (path("fifo.wav"), .fifo), (sockPath, .socket), ("/dev/null", .characterDevice),
        ]
        for (p, kind) in cases {
            #expect(throws: NewFile.Failure.notReplaceable(kind)) { try NewFile.create(FilePath(p), existing: .replace) }
        }
        #expect(type(path("dir.wav")) == S_IFDIR && type(path("fifo.wav")) == S_IFIFO && type(sockPath) == S_IFSOCK)
        #expect(type("/dev/null") == S_IFCHR)
        // Meter output still refuses a directory and a socket.
        #expect(throws: NewFile.Failure.notReplaceable(.directory)) { try NewFile.create(FilePath(path("dir.wav")), existing: .output) }
        #expect(throws: NewFile.Failure.notReplaceable(.socket)) { try NewFile.create(FilePath(sockPath), existing: .output) }
        #expect(names() == ["dir.wav", "fifo.wav", "sock.wav"])
    }

    /// Meter output writes into a FIFO or character device as is, also through a link (a
    /// shell's `>(...)` is /dev/fd/N, a link to a pipe): opening a stream replaces nothing.
    @Test func outputWritesIntoStreamsAsTheyAre() throws {
        mkfifo(path("fifo"), 0o600)
        symlink(path("fifo"), path("to-fifo"))
        for name in ["fifo", "to-fifo"] {
            let reader = open(path("fifo"), O_RDONLY | O_NONBLOCK)
            defer { close(reader) }
            let f = try NewFile.create(FilePath(path(name)), existing: .output)
            try f.commit()
            fill(f, "line\n")
            var buf = [UInt8](repeating: 0, count: 16)
            #expect(read(reader, &buf, 16) == 5, "\(name)")
        }
        #expect(type(path("to-fifo")) == S_IFLNK, "the link to a stream is kept")
        let null = try NewFile.create(FilePath("/dev/null"), existing: .output)
        fill(null, "discarded")
        #expect(type("/dev/null") == S_IFCHR)
    }
}
