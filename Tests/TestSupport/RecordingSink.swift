import MeterCore
import Synchronization

/// The tests' one recording `FrameSink` double: keeps what it is given (the start, every
/// frame, the end's summary) and a journal of every call in order. Unsynchronized on purpose
/// (a session must call a sink from one thread at a time; ThreadSanitizer reports it
/// otherwise); `count` (frames so far) may be read from another thread meanwhile.
public final class RecordingSink: FrameSink, @unchecked Sendable {
    /// One call: its kind ("start", "frame", "gap", "device", "file", "event", "idle", "end"),
    /// its stream, and what identifies it (a frame's or gap's pos, a device's source, ...).
    public struct Call: Sendable, CustomStringConvertible {
        public let kind: String
        public let stream: Int?
        public let detail: String
        /// "frame 80", "file open take-1.wav", "start": the kind and the detail.
        public var description: String { detail.isEmpty ? kind : kind + " " + detail }
    }

    public var info: StreamInfo?
    public var frames: [MeterFrame] = []
    public var summary: StreamSummary?
    /// Every call but `flush`, in order.
    public var journal: [Call] = []
    /// `flush` calls, counted apart (`BackgroundSink` flushes where its thread has caught up).
    public var flushes = 0
    /// Frames so far, readable while the sink is being called.
    public let count = Atomic<Int>(0)
    /// True once `start` was called, readable while the sink is being called.
    public let started = Atomic<Bool>(false)
    /// `frame` throws `OutputClosed` once this many frames came (a closed output).
    public var failAfter: Int?

    public init(failAfter: Int? = nil) { self.failAfter = failAfter }

    /// The journal as text ("start", "frame 80", ...).
    public var calls: [String] { journal.map(\.description) }
    /// The frames' positions.
    public var positions: [Int] { frames.map(\.pos) }
    /// True once `end` was called.
    public var ended: Bool { summary != nil }

    private func note(_ kind: String, _ stream: Int?, _ detail: String = "") {
        journal.append(Call(kind: kind, stream: stream, detail: detail))
    }

    public func start(_ info: StreamInfo) throws {
        self.info = info
        started.store(true, ordering: .releasing)
        note("start", info.stream)
    }
    public func frame(_ frame: MeterFrame) throws {
        if let failAfter, frames.count >= failAfter { throw OutputClosed() }
        frames.append(frame)
        count.add(1, ordering: .releasing)
        note("frame", frame.stream, "\(frame.pos)")
    }
    public func gap(_ gap: StreamGap) throws { note("gap", gap.stream, "\(gap.pos)") }
    public func device(_ change: DeviceChange) throws { note("device", change.stream, change.source) }
    public func file(_ event: RecordingFileEvent) throws { note("file", event.stream, "\(event.kind.rawValue) \(event.file)") }
    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws { note("event", stream, "\(event.name) \(event.pos) \(ts)") }
    public func idle(outage: Bool, stream: Int?) throws { note("idle", stream, "\(outage) \(stream ?? -1)") }
    public func flush() throws { flushes += 1 }
    public func end(_ summary: StreamSummary) throws {
        self.summary = summary
        note("end", summary.stream, "\(summary.pos)")
    }
}

/// The names the test targets used for it.
public typealias CollectingSink = RecordingSink
