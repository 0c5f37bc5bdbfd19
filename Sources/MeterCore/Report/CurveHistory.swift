/// A run's curves for its report, in bounded memory: several series (levels per channel,
/// loudness, ...) sharing one time axis of at most `capacity` buckets, each holding the
/// minimum and maximum of its frames' values. Every bucket but the last holds `width` frames;
/// when all are full the neighbours merge in pairs and `width` doubles, so a day of frames
/// takes the room an hour does.
public struct CurveHistory: Sendable {
    public static let maxPoints = 4000

    public let series: Int
    public let capacity: Int
    /// Frames per bucket (the last one may hold fewer).
    public private(set) var width = 1
    /// Buckets in use.
    public private(set) var count = 0
    private var lows: [[Double]]
    private var highs: [[Double]]
    /// Each bucket's last frame's position (samples).
    private var ends: [Int]
    private var inLast = 0

    /// `capacity` must be even (pairs merge).
    public init(series: Int, capacity: Int = maxPoints) {
        precondition(series >= 0 && capacity >= 2 && capacity % 2 == 0)
        self.series = series
        self.capacity = capacity
        lows = Array(repeating: [], count: series)
        highs = Array(repeating: [], count: series)
        ends = []
        for s in 0..<series {
            lows[s].reserveCapacity(capacity)
            highs[s].reserveCapacity(capacity)
        }
        ends.reserveCapacity(capacity)
    }

    /// Adds a frame's values (one per series) at position `pos`.
    public mutating func append(_ values: [Double], pos: Int) {
        precondition(values.count == series)
        if count == 0 || inLast == width {
            if count == capacity { mergePairs() }
            for s in 0..<series {
                lows[s].append(values[s])
                highs[s].append(values[s])
            }
            ends.append(pos)
            count += 1
            inLast = 1
            return
        }
        let last = count - 1
        for s in 0..<series {
            lows[s][last] = min(lows[s][last], values[s])
            highs[s][last] = max(highs[s][last], values[s])
        }
        ends[last] = pos
        inLast += 1
    }

    /// Series `s`'s lowest value in each bucket, oldest first.
    public func lows(_ s: Int) -> [Double] { lows[s] }
    /// Series `s`'s highest value in each bucket, oldest first.
    public func highs(_ s: Int) -> [Double] { highs[s] }
    /// Each bucket's last frame's position.
    public var positions: [Int] { ends }

    private mutating func mergePairs() {
        let half = count / 2
        for s in 0..<series {
            for i in 0..<half {
                lows[s][i] = min(lows[s][2 * i], lows[s][2 * i + 1])
                highs[s][i] = max(highs[s][2 * i], highs[s][2 * i + 1])
            }
            lows[s].removeLast(count - half)
            highs[s].removeLast(count - half)
        }
        for i in 0..<half { ends[i] = ends[2 * i + 1] }
        ends.removeLast(count - half)
        count = half
        width *= 2
    }
}
