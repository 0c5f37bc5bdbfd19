/// The scrolling level history of the recording meter (a voice-memo strip): one column per
/// meter frame, newest at the right, each the loudest channel's `rms_db` on the bars' dB
/// mapping (`Decibels.level` against the meter's floor). Keeps the last `capacity` columns in
/// a ring, so memory stays fixed however long the recording.
public struct LevelHistory: Sendable {
    public let capacity: Int
    private var ring: [Double]
    private var next = 0
    public private(set) var count = 0

    public init(capacity: Int = 1024) {
        precondition(capacity >= 1)
        self.capacity = capacity
        ring = Array(repeating: Decibels.floor, count: capacity)
    }

    /// Adds a frame's column.
    public mutating func append(_ frame: MeterFrame) {
        ring[next] = frame.rmsDb.max() ?? Decibels.floor
        next = (next + 1) % capacity
        count = min(capacity, count + 1)
    }

    /// The newest `n` columns' levels in dB, oldest first (fewer while fewer frames came).
    public func newest(_ n: Int) -> [Double] {
        let k = min(max(0, n), count)
        return (0..<k).map { ring[(next - k + $0 + capacity) % capacity] }
    }
}
