import CTagLib

/// Why a file's tags cannot be read or written: the facts, for the command line to word.
public enum TagFileError: Error, Equatable, Sendable {
    /// TagLib does not open it as a file it can tag (its format, a damaged header).
    case notTaggable(FilePath)
    /// Its tag format has no room for `key`.
    case cannotHold(FilePath, key: String)
    /// Writing the tags into it failed (a read-only file or directory, a full disk).
    case cannotSave(FilePath)
}

/// One file's tags through TagLib (the `CTagLib` functions: TagLib's property map, ID3v2 TXXX
/// frames for MP3, iTunes freeform atoms for M4A). Reads and sets keys in memory; `save`
/// writes them into the file in place, as TagLib does (the audio itself is not rewritten).
///
/// Thread-safety invariant for `@unchecked Sendable`: a `TagFile` is used by one thread at a
/// time (the thread that opened it, or the one it was handed to); TagLib keeps no shared
/// state between files.
public final class TagFile: @unchecked Sendable {
    /// What kind of tags the file carries.
    public enum Kind: Sendable, Equatable {
        case opus, mpeg, mp4, other
    }

    public let path: FilePath
    public let kind: Kind
    private let handle: OpaquePointer

    /// Opens `path` with TagLib; a file it cannot tag is `TagFileError.notTaggable`.
    public init(_ path: FilePath) throws(TagFileError) {
        guard let h = path.withCString({ pm_tag_open($0) }) else { throw .notTaggable(path) }
        self.path = path
        handle = h
        switch pm_tag_file_kind(h) {
        case PM_TAG_OPUS: kind = .opus
        case PM_TAG_MPEG: kind = .mpeg
        case PM_TAG_MP4: kind = .mp4
        default: kind = .other
        }
    }

    deinit { pm_tag_close(handle) }

    /// The first value of `key`, or nil.
    public func value(_ key: String) -> String? {
        guard let p = pm_tag_get(handle, key) else { return nil }
        defer { pm_tag_free(p) }
        return String(cString: p)
    }

    /// Sets `key` to `value` (in memory, until `save`).
    public func set(_ key: String, _ value: String) throws(TagFileError) {
        guard pm_tag_set(handle, key, value) == 1 else { throw .cannotHold(path, key: key) }
    }

    /// Writes the tags into the file.
    public func save() throws(TagFileError) {
        guard pm_tag_save(handle) == 1 else { throw .cannotSave(path) }
    }
}
