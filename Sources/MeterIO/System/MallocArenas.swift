/// Caps glibc malloc's arenas (`mallopt(M_ARENA_MAX)`).
///
/// A many-file run starts a decoder and an output thread for every file (the single-file code,
/// unchanged). glibc hands new threads new arenas, up to 8 per core, and each keeps its own
/// free memory, so peak RSS crept up with the number of files until every arena had been used
/// (16.1 MB for 100 files, 17.4 MB for 1,000, 18.4 MB for 10,000 here). With the arenas capped
/// it stays flat. Call before the threads start.
public enum MallocArenas {
    public static func limit(to count: Int) {
        _ = glibcMallopt(arenaMax, Int32(clamping: max(1, count)))
    }

    /// `M_ARENA_MAX` of <malloc.h> (not part of the Glibc module).
    private static let arenaMax: Int32 = -8
}

/// `int mallopt(int param, int value)` of <malloc.h>, which the Glibc module does not import.
@_silgen_name("mallopt")
private func glibcMallopt(_ param: Int32, _ value: Int32) -> Int32
