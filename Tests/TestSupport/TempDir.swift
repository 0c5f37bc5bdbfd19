import Foundation
import Glibc

/// The tests' one temporary directory: a new directory (`mkdtemp`), removed with everything
/// in it when the `TempDir` goes (`TempDir()`), or kept for the caller to remove
/// (`TempDir.create`, for a directory handed to something that outlives the value).
public final class TempDir: @unchecked Sendable {
    public let url: URL
    /// The directory's path.
    public var directory: String { url.path }

    /// A new directory `<base>/pm-<tag>-XXXXXX` (under $TMPDIR, /tmp by default).
    public init(_ tag: String = "test", in base: String? = nil) throws {
        url = URL(fileURLWithPath: try Self.create(tag, in: base))
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// `name`'s path inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `bytes` as `name` in the directory; its path.
    @discardableResult
    public func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let p = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: p))
        return p
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Makes a new directory `<base>/pm-<tag>-XXXXXX` and gives its path; the caller removes it
    /// (`TempDir.remove`). `base` nil: $TMPDIR, else /tmp. A socket's path must stay under
    /// 108 bytes: pass "/tmp" for a directory that will hold sockets.
    public static func create(_ tag: String, in base: String? = nil) throws -> String {
        var root = base ?? ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        var template = Array("\(root)/pm-\(tag)-XXXXXX".utf8CString)
        guard let p = mkdtemp(&template) else {
            throw Failure(description: "mkdtemp in \(root) failed: \(String(cString: strerror(errno)))")
        }
        return String(cString: p)
    }

    /// Removes `path` and everything under it (no error when it is gone already).
    public static func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }
}
