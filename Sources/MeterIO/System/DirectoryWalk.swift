import Glibc
import MeterCore

/// The files under a directory (`--recursive`), one at a time: those whose extension is in
/// `extensions` (lower-cased), in bytewise order of their whole paths (`LC_ALL=C sort`), as
/// `opendir(3)`/`readdir(3)` list them. Names starting with a dot (hidden files and
/// directories) are skipped; a symbolic link to a file is taken, one to a directory is not
/// followed (no loops, no walking out of the tree). Streamed: it holds one listing per level
/// it is in, never the whole tree.
///
/// A directory below the root that cannot be listed is skipped and kept in `failure` (the
/// first one), so the walk goes on; the root is opened by `init`.
public final class DirectoryWalk {
    /// One directory's entries, sorted, and how far they were taken.
    private struct Level {
        var directory: [UInt8]
        var entries: [(name: [UInt8], isDirectory: Bool)]
        var next = 0
    }
    private var levels: [Level] = []
    private let extensions: Set<String>
    /// The first directory that could not be listed (not the root: `init` throws for it).
    public private(set) var failure: InputError?

    /// Lists `root`; throws `.cannotOpen` or `.noPermission` when it cannot be listed.
    public init(_ root: FilePath, extensions: Set<String>) throws(InputError) {
        self.extensions = extensions
        var base = root.bytes
        while base.count > 1 && base.last == UInt8(ascii: "/") { base.removeLast() }
        levels = [try Self.list(base)]
    }

    /// The next file, or nil when the walk is over.
    public func next() -> FilePath? {
        while var level = levels.popLast() {
            guard level.next < level.entries.count else { continue }
            let entry = level.entries[level.next]
            level.next += 1
            let path = level.directory + (level.directory.last == UInt8(ascii: "/") ? [] : [UInt8(ascii: "/")]) + entry.name
            levels.append(level)
            if entry.isDirectory {
                do {
                    levels.append(try Self.list(path))
                } catch {
                    if failure == nil { failure = error }
                }
                continue
            }
            let file = FilePath(bytes: path)
            if extensions.contains(file.extensionLowercased) { return file }
        }
        return nil
    }

    /// `directory`'s entries but dot names, directories (not links to them) marked, sorted as
    /// their paths sort: a directory as its name and a slash (so that "a.wav" comes before
    /// "a/x.wav", as '.' sorts before '/').
    private static func list(_ directory: [UInt8]) throws(InputError) -> Level {
        let path = FilePath(bytes: directory)
        guard let dir = path.withCString({ opendir($0) }) else {
            let e = errno
            throw e == EACCES ? .noPermission(path, reason: errnoText(e)) : .cannotOpen(path, reason: errnoText(e))
        }
        defer { closedir(dir) }
        var entries: [(name: [UInt8], isDirectory: Bool)] = []
        while let d = readdir(dir) {
            let name = withUnsafeBytes(of: d.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard let first = name.first, first != UInt8(ascii: ".") else { continue }
            let full = FilePath(bytes: directory + [UInt8(ascii: "/")] + name)
            var type = d.pointee.d_type
            var st = stat()
            if type == UInt8(DT_UNKNOWN) {  // a file system that does not say: lstat(2) does
                guard full.withCString({ lstat($0, &st) }) == 0 else { continue }
                let kind = st.st_mode & S_IFMT
                type = kind == S_IFLNK ? UInt8(DT_LNK) : kind == S_IFDIR ? UInt8(DT_DIR) : kind == S_IFREG ? UInt8(DT_REG) : type
            }
            if type == UInt8(DT_LNK) {
                // A link is taken as the file it names; one to a directory is not followed,
                // and a dangling one is taken (its error line names it).
                guard full.withCString({ stat($0, &st) }) == 0 else {
                    entries.append((name, false))
                    continue
                }
                guard (st.st_mode & S_IFMT) == S_IFREG else { continue }
                type = UInt8(DT_REG)
            }
            // Regular files and directories; not FIFOs, sockets, devices (a read could block).
            if type == UInt8(DT_DIR) || type == UInt8(DT_REG) { entries.append((name, type == UInt8(DT_DIR))) }
        }
        entries.sort { a, b in
            (a.isDirectory ? a.name + [UInt8(ascii: "/")] : a.name).lexicographicallyPrecedes(b.isDirectory ? b.name + [UInt8(ascii: "/")] : b.name)
        }
        return Level(directory: directory, entries: entries)
    }
}
