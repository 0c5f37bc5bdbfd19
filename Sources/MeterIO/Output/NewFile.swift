import Glibc
import MeterCore

/// A file this tool creates (a recording, a split or take file, `-o` output): the one place
/// that turns a name into an open descriptor for writing, so that the name is what gets
/// written or replaced, never what it points at.
///
/// - A new name is created with `open(2)` `O_CREAT|O_EXCL|O_NOFOLLOW`: a symbolic link planted
///   at the name at any moment makes the call fail (EEXIST) instead of redirecting the write.
/// - Replacing (`--force`, `-o` over a file) never opens the old entry: a new file is created
///   beside it (same directory, a hidden temporary name, exclusively) and `rename(2)`d over the
///   name once its writer has started (`commit`). A regular file or a symbolic link at the
///   name is replaced whole (the link's target untouched, other hard links untouched); a
///   directory, FIFO, device or socket is refused (`Failure.notReplaceable`).
/// - Meter output (`.output`) is written the way a shell's `>` writes, never through a link:
///   an existing regular file is opened `O_NOFOLLOW` and truncated (its owner, mode and other
///   names kept, as a log file set up for it expects), a FIFO or character device is written
///   into as is (`/dev/null`, a named pipe, `/dev/stdout`, a shell's `>(...)`), a symbolic
///   link to anything else is replaced by a new file.
/// - What was opened is checked with `fstat(2)`, so a name swapped between the check and the
///   open is never mistaken for what was checked.
///
/// The writers take the descriptor (`sf_open_fd`, ffmpeg's stdout, `write(2)`); nothing
/// downstream opens the name again.
public struct NewFile {
    /// What to do when something already has the name.
    public enum Existing: Sendable, Equatable {
        /// Leave it as it is (`Failure.exists`): recordings without `--force`, numbered files.
        case keep
        /// Replace a regular file or a symbolic link; refuse anything else.
        case replace
        /// Meter output: truncate a regular file in place, write into a FIFO or character
        /// device (also one a link points at), replace a link to anything else.
        case output
    }

    /// What is at a name that cannot be replaced.
    public enum Kind: Sendable, Equatable {
        case directory, fifo, characterDevice, blockDevice, socket, unknown
    }

    public enum Failure: Error, Equatable, Sendable {
        /// Something has the name and `Existing.keep` was asked.
        case exists
        /// The name is a directory, FIFO, device or socket; it was not touched.
        case notReplaceable(Kind)
        /// The system refused (`strerror` of its errno).
        case system(reason: String)
    }

    /// The name asked for.
    public let path: FilePath
    /// Open for writing (regular files also for reading: libsndfile rewrites headers).
    public let fd: Int32
    /// The hidden name the file was created under until `commit` renames it to `path`.
    private let temporary: FilePath?
    /// True when `fd` is a file that was there already (a stream, or meter output's file
    /// truncated in place), which `discard` leaves alone.
    public let existed: Bool

    private init(path: FilePath, fd: Int32, temporary: FilePath?, existed: Bool) {
        self.path = path
        self.fd = fd
        self.temporary = temporary
        self.existed = existed
    }

    /// Opens `path` for writing as `existing` says. Call `commit()` once the file's writer has
    /// started (before that a replaced file still has its old content under the name), or
    /// `discard()` when it could not.
    public static func create(_ path: FilePath, existing: Existing) throws(Failure) -> NewFile {
        // A few rounds: the name may change between the look (lstat) and the open.
        for _ in 0..<8 {
            let fd = path.withCString { open($0, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666) }
            if fd >= 0 { return NewFile(path: path, fd: fd, temporary: nil, existed: false) }
            guard errno == EEXIST else { throw .system(reason: errnoText()) }
            if existing == .keep { throw .exists }
            var st = stat()
            guard path.withCString({ lstat($0, &st) }) == 0 else {
                if errno == ENOENT { continue }  // gone meanwhile: create it
                throw .system(reason: errnoText())
            }
            let type = st.st_mode & S_IFMT
            if existing == .output {
                if let stream = try openStream(path, following: type == S_IFLNK) { return stream }
                if type == S_IFREG, let file = try truncateInPlace(path, st) { return file }
            }
            switch type {
            case S_IFREG, S_IFLNK: return try beside(path)
            default: throw .notReplaceable(kind(type))
            }
        }
        throw .system(reason: "the name kept changing while it was being created")
    }

    /// Renames the file created beside over the name (`rename(2)`, atomic: the name never
    /// goes missing); nothing to do for a file created under its own name. On failure the
    /// file created beside is removed and the name is left as it was.
    public func commit() throws(Failure) {
        guard let temporary else { return }
        let r = temporary.withCString { t in path.withCString { rename(t, $0) } }
        if r == 0 { return }
        let e = errno
        discard()
        if e == EISDIR || e == ENOTEMPTY || e == EEXIST { throw .notReplaceable(.directory) }
        throw .system(reason: errnoText(e))
    }

    /// Removes what `create` made (`unlink(2)`): the file created beside, or the new name;
    /// never an existing stream nor, before `commit`, the file being replaced. The descriptor
    /// is not closed here (its writer owns it).
    public func discard() {
        if existed { return }
        _ = (temporary ?? path).withCString { unlink($0) }
    }

    /// Opens an existing FIFO or character device for writing (no O_CREAT, no O_TRUNC: nothing
    /// is written before `fstat` confirms what was opened); nil when the name is none (then
    /// the caller replaces it).
    private static func openStream(_ path: FilePath, following: Bool) throws(Failure) -> NewFile? {
        var st = stat()
        guard path.withCString({ following ? stat($0, &st) : lstat($0, &st) }) == 0, isStream(st.st_mode) else { return nil }
        let flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | (following ? 0 : O_NOFOLLOW)
        let fd = path.withCString { open($0, flags) }
        guard fd >= 0 else { throw .system(reason: errnoText()) }
        var opened = stat()
        guard fstat(fd, &opened) == 0, isStream(opened.st_mode) else {
            close(fd)
            return nil
        }
        return NewFile(path: path, fd: fd, temporary: nil, existed: true)
    }

    /// Opens the regular file `checked` found at `path` without following a link, confirms
    /// with `fstat` that it is that very file (device and inode), and truncates it; nil when
    /// the name changed meanwhile (then the caller looks again).
    private static func truncateInPlace(_ path: FilePath, _ checked: stat) throws(Failure) -> NewFile? {
        let fd = path.withCString { open($0, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC) }
        guard fd >= 0 else {
            if errno == ELOOP || errno == ENOENT { return nil }
            throw .system(reason: errnoText())
        }
        var opened = stat()
        guard fstat(fd, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG,
              opened.st_dev == checked.st_dev, opened.st_ino == checked.st_ino else {
            close(fd)
            return nil
        }
        guard ftruncate(fd, 0) == 0 else {
            let reason = errnoText()
            close(fd)
            throw .system(reason: reason)
        }
        return NewFile(path: path, fd: fd, temporary: nil, existed: true)
    }

    private static func isStream(_ mode: mode_t) -> Bool {
        let type = mode & S_IFMT
        return type == S_IFIFO || type == S_IFCHR
    }

    /// A new file beside `path` whatever is at the name, for a file that takes its name only
    /// when it is complete (`normalize`): `commit` renames it over the name (replacing),
    /// `commitIfFree` gives it the name only if nothing has taken it meanwhile. Its hidden
    /// name ends in the same extension (`.NAME.XXXXXXXX.EXT`), so that a library that picks a
    /// format by the extension (TagLib) reads it as what it will be.
    public static func createBeside(_ path: FilePath) throws(Failure) -> NewFile {
        try beside(path, keepingExtension: true)
    }

    /// The name the file is written under until it is committed.
    public var writtenPath: FilePath { temporary ?? path }

    /// Gives the file created beside its name only if nothing has the name (`link(2)`, which
    /// never replaces, then the hidden name removed): `Failure.exists` when something took the
    /// name meanwhile (the file beside is removed then too).
    public func commitIfFree() throws(Failure) {
        guard let temporary else { return }
        let r = temporary.withCString { t in path.withCString { link(t, $0) } }
        let e = errno
        discard()
        if r == 0 { return }
        if e == EEXIST { throw .exists }
        throw .system(reason: errnoText(e))
    }

    /// A new file in the directory of `path` under a hidden, unused name (`.NAME.XXXXXXXX`,
    /// or `.NAME.XXXXXXXX.EXT` keeping its extension), created exclusively, to be renamed over
    /// `path` by `commit`.
    private static func beside(_ path: FilePath, keepingExtension: Bool = false) throws(Failure) -> NewFile {
        let bytes = path.bytes
        let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
        let directory = slash.map { Array(bytes[...$0]) } ?? []
        let name = slash.map { Array(bytes[($0 + 1)...]) } ?? bytes
        for _ in 0..<100 {
            let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
            let ext = keepingExtension && !path.extensionLowercased.isEmpty ? Array(".\(path.extensionLowercased)".utf8) : []
            let temporary = FilePath(bytes: directory + Array(".".utf8) + name + Array(".\(tag)".utf8) + ext)
            let fd = temporary.withCString { open($0, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666) }
            if fd >= 0 { return NewFile(path: path, fd: fd, temporary: temporary, existed: false) }
            if errno != EEXIST { throw .system(reason: errnoText()) }
        }
        throw .system(reason: "no free temporary name beside it")
    }

    /// What is at `path` when `create` with `.keep` or `.replace` would refuse it whatever the
    /// flags (a directory, FIFO, device or socket; `lstat(2)`, so a link is a link); nil for a
    /// regular file, a symbolic link or nothing. Lets a caller say so before anything starts,
    /// rather than "it exists" first and "it is a directory" after `--force`.
    public static func unreplaceable(_ path: FilePath) -> Kind? {
        var st = stat()
        guard path.withCString({ lstat($0, &st) }) == 0 else { return nil }
        let type = st.st_mode & S_IFMT
        return type == S_IFREG || type == S_IFLNK ? nil : kind(type)
    }

    private static func kind(_ type: mode_t) -> Kind {
        switch type {
        case S_IFDIR: .directory
        case S_IFIFO: .fifo
        case S_IFCHR: .characterDevice
        case S_IFBLK: .blockDevice
        case S_IFSOCK: .socket
        default: .unknown
        }
    }
}

extension NewFile.Failure {
    /// The output error a caller reports for this failure to create `path` (each one a "cannot create").
    func outputError(_ path: FilePath, recording: Bool) -> OutputError {
        switch self {
        case .exists: return recording ? .recordingExists(path) : .cannotCreateOutput(path, reason: "it exists")
        case .notReplaceable(let kind): return .cannotReplace(path, kind: kind)
        case .system(let reason): return recording ? .cannotCreateRecording(path, reason: reason) : .cannotCreateOutput(path, reason: reason)
        }
    }
}
