/// A first-in first-out queue of at most `limit` items: a push onto a full queue drops the
/// oldest item (the newest state matters most) and counts it. Not thread-safe: its owner
/// guards it.
public struct BoundedQueue<Item> {
    public let limit: Int
    private var items: [Item?] = []
    private var head = 0
    public private(set) var count = 0
    /// Items dropped so far because the queue was full.
    public private(set) var dropped = 0

    public init(limit: Int) {
        precondition(limit > 0)
        self.limit = limit
        items = Array(repeating: nil, count: limit)
    }

    public var isEmpty: Bool { count == 0 }

    public mutating func push(_ item: Item) {
        if count == limit {
            _ = pop()
            dropped += 1
        }
        items[(head + count) % limit] = item
        count += 1
    }

    public mutating func pop() -> Item? {
        guard count > 0 else { return nil }
        let item = items[head]
        items[head] = nil
        head = (head + 1) % limit
        count -= 1
        return item
    }
}
