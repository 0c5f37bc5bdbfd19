/// A block of scratch memory that grows on demand and is reused: the conversion copies of
/// the sound-file reader (raw shorts before Float) and writer (Float for the lossy encoders).
/// Its contents are not kept across a grow; callers fill it before every use.
///
/// Owned by one thread at a time (the reader's or the writer's), like its owner.
final class ScratchBuffer<Element> {
    private var base: UnsafeMutablePointer<Element>?
    private var capacity = 0

    init() {}

    /// Memory for at least `count` elements, uninitialized unless filled before.
    func pointer(count: Int) -> UnsafeMutablePointer<Element> {
        if let base, capacity >= count { return base }
        base?.deallocate()
        let grown = UnsafeMutablePointer<Element>.allocate(capacity: max(count, 1))
        base = grown
        capacity = max(count, 1)
        return grown
    }

    deinit { base?.deallocate() }
}
