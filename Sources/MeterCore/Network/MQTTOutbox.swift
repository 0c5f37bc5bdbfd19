/// What waits for the broker: the event and period messages in a bounded queue (the oldest
/// dropped when full), and the one newest state (`MQTTMessage.latestOnly`), which supersedes
/// the state before it (that one counts as dropped: it never went out). Not thread-safe: its
/// owner guards it.
public struct MQTTOutbox {
    private var queue: BoundedQueue<MQTTMessage>
    private var state: MQTTMessage?
    private var superseded = 0

    public init(limit: Int) { queue = BoundedQueue(limit: limit) }

    public mutating func push(_ m: MQTTMessage) {
        guard m.latestOnly else { return queue.push(m) }
        if state != nil { superseded += 1 }
        state = m
    }

    /// The queued messages first, in order, then the state.
    public mutating func pop() -> MQTTMessage? {
        if let m = queue.pop() { return m }
        defer { state = nil }
        return state
    }

    public var count: Int { queue.count + (state == nil ? 0 : 1) }
    /// Dropped: pushed out of the full queue, or a state superseded before it went out.
    public var dropped: Int { queue.dropped + superseded }
}
