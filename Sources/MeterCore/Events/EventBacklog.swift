/// The latest event-stream lines (already framed as Server-Sent Events), kept in a bounded
/// ring that every client reads at its own pace through a `Reader`.
///
/// One writer appends each line once, whatever the number of clients; a reader copies from
/// its position into the connection's buffer. A reader is behind when the oldest line it has
/// not taken was appended more than a limit ago, or was already overwritten (the ring holds
/// `capacity` lines): the server drops such a client rather than let it hold anything up.
/// Not thread-safe: the server uses it under one lock.
public struct EventBacklog: Sendable {
    private struct Entry: Sendable {
        var bytes: [UInt8]
        var isFrame: Bool
        var time: Double
    }

    public let capacity: Int
    private var entries: [Entry?]
    /// Sequence number of the next line appended (lines are numbered from 0).
    public private(set) var nextSeq = 0
    /// The oldest line still held.
    public var firstSeq: Int { max(0, nextSeq - capacity) }

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        entries = Array(repeating: nil, count: self.capacity)
    }

    /// Appends one framed event; `time` is when (monotonic seconds), for the lag.
    public mutating func append(_ bytes: [UInt8], isFrame: Bool, at time: Double) {
        entries[nextSeq % capacity] = Entry(bytes: bytes, isFrame: isFrame, time: time)
        nextSeq += 1
    }

    /// One client's position: first its own opening bytes (the preamble and the start lines
    /// it missed), then the ring's lines from `seq` on; frame lines are skipped unless `frames`.
    public struct Reader: Sendable {
        public let frames: Bool
        private var opening: [UInt8]
        private var openingSent = 0
        private var seq: Int
        private var offset = 0

        /// A reader that starts with `opening` and then takes the lines from `backlog`'s next.
        public init(opening: [UInt8], at backlog: EventBacklog, frames: Bool) {
            self.opening = opening
            self.frames = frames
            seq = backlog.nextSeq
        }

        /// True when nothing is left to send now.
        public func isCaughtUp(in backlog: EventBacklog) -> Bool {
            openingSent == opening.count && seq >= backlog.nextSeq
        }

        /// Copies what fits into `buffer`; nil when the reader fell off the ring (its next line
        /// was overwritten). Frame lines are passed over for an events-only reader.
        public mutating func read(from backlog: EventBacklog, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
            var n = 0
            func copy(_ bytes: [UInt8], from start: Int) -> Int {
                let k = min(bytes.count - start, buffer.count - n)
                bytes.withUnsafeBytes { src in
                    buffer.baseAddress!.advanced(by: n).copyMemory(from: src.baseAddress!.advanced(by: start), byteCount: k)
                }
                n += k
                return k
            }
            if openingSent < opening.count {
                openingSent += copy(opening, from: openingSent)
                if openingSent < opening.count { return n }
                opening = []
                openingSent = 0
            }
            while n < buffer.count && seq < backlog.nextSeq {
                guard seq >= backlog.firstSeq, let e = backlog.entries[seq % backlog.capacity] else { return nil }
                if e.isFrame && !frames {
                    seq += 1
                    continue
                }
                offset += copy(e.bytes, from: offset)
                if offset == e.bytes.count {
                    seq += 1
                    offset = 0
                }
            }
            return n
        }

        /// Seconds since the oldest line this reader has still to take was appended (0 when
        /// caught up; infinity when it was overwritten). Passes over frames an events-only
        /// reader skips, so that a quiet events stream is never behind.
        public mutating func lag(in backlog: EventBacklog, now: Double) -> Double {
            while seq < backlog.nextSeq {
                guard seq >= backlog.firstSeq, let e = backlog.entries[seq % backlog.capacity] else { return .infinity }
                if e.isFrame && !frames && offset == 0 {
                    seq += 1
                    continue
                }
                return max(0, now - e.time)
            }
            return 0
        }
    }
}
