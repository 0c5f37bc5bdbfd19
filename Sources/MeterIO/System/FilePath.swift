import Glibc
import MeterCore

/// A file name as Linux has it: bytes, anything but NUL, not necessarily UTF-8 (in the spirit
/// of swift-system's `FilePath`, which this toolchain does not ship on Linux).
///
/// Paths come from the raw argument vector and from `--files-from` lists as bytes and reach
/// `open(2)`, `stat(2)` and `sf_open` as the same bytes (`withCString`), so a Latin-1 name
/// copied from an old archive opens like any other. Two views exist for people and programs:
/// `string` (invalid bytes as U+FFFD, for JSON, as jq shows them) and `description` (the same
/// with control characters escaped, for terminals and error messages: a crafted name cannot
/// send an escape sequence to the user's terminal).
public struct FilePath: Sendable, Hashable, CustomStringConvertible {
    /// The name's bytes, exactly as given.
    public let bytes: [UInt8]

    public init<S: Sequence>(bytes: S) where S.Element == UInt8 { self.bytes = Array(bytes) }

    /// The UTF-8 bytes of `string`.
    public init(_ string: String) { bytes = Array(string.utf8) }

    /// The name decoded as UTF-8, each invalid byte read as U+FFFD (for JSON output).
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// The name for a terminal or an error message: `string` with control characters escaped.
    public var description: String { SafeText.terminal(string) }

    /// The last component ("c.wav" of "a/b/c.wav"), for titles.
    public var lastComponent: FilePath {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")), slash + 1 < bytes.count else { return self }
        return FilePath(bytes: bytes[(slash + 1)...])
    }

    /// The lowercased extension of the last component ("" when there is none).
    public var extensionLowercased: String {
        let last = lastComponent.bytes
        guard let dot = last.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return "" }
        return String(decoding: last[(dot + 1)...], as: UTF8.self).lowercased()
    }

    /// True for `-` (stdin or stdout, by convention).
    public var isDash: Bool { bytes == [UInt8(ascii: "-")] }

    /// Calls `body` with the name as a NUL-terminated C string (for `open`, `stat`, `sf_open`).
    /// A name holding a NUL byte cannot name a file: it is passed as the empty string, which
    /// every call rejects (ENOENT).
    public func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        var c = bytes.contains(0) ? [] : bytes
        c.append(0)
        return try c.withUnsafeBufferPointer { buf in
            try buf.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// True when something exists under this name (`lstat(2)`: a dangling symbolic link too),
    /// so that a recording never replaces a file unless asked to.
    public var exists: Bool {
        var st = stat()
        return withCString { lstat($0, &st) } == 0
    }

    /// True when the name is a directory (`stat(2)`: through a symbolic link, as a directory
    /// named on the command line is taken).
    public var isDirectory: Bool {
        var st = stat()
        return withCString { stat($0, &st) } == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Creates the directory (`mkdir(2)`, mode 0777 less the umask) unless it exists; throws
    /// the system's reason when it cannot.
    public func makeDirectory() throws(OutputError) {
        if isDirectory { return }
        guard withCString({ mkdir($0, 0o777) }) == 0 || errno == EEXIST else {
            throw OutputError.cannotCreateOutput(self, reason: errnoText())
        }
    }

    /// `directory`/`name`'s last component: where a file of that name goes in a directory.
    public func inDirectory(_ directory: FilePath) -> FilePath {
        let d = directory.bytes.last == UInt8(ascii: "/") ? directory.bytes : directory.bytes + [UInt8(ascii: "/")]
        return FilePath(bytes: d + lastComponent.bytes)
    }

    /// Checks an input path before a decoder sees it, so that missing, unreadable and directory
    /// paths get their own `InputError` with the system's reason (`stat(2)`, `access(2)`),
    /// before any decoder prints its own account.
    public func checkReadable() throws(InputError) {
        var st = stat()
        guard withCString({ stat($0, &st) }) == 0 else {
            throw InputError.cannotOpen(self, reason: errnoText())
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw InputError.isDirectory(self)
        }
        guard withCString({ access($0, R_OK) }) == 0 else {
            throw InputError.noPermission(self, reason: errnoText())
        }
    }
}
