import MeterCore
import Synchronization

/// Runs another sink (encoding and writing) on its own thread, so that for files the analysis
/// and the output use two cores. Frames keep their order; at most `depth` wait, then the
/// producer waits too (files only: a live run must never wait on its output, and does not
/// use this). The wrapped sink's first error stops the run at the producer's next call.
///
/// The wrapped sink is flushed (`FrameSink.flush`) when the producer asks (`flush`: the
/// analysis is about to wait for input, a slow pipe), when its last flush is `flushInterval`
/// old and the queue is empty, and at the end: lines it gathers go out while the analysis
/// waits or at least every `flushInterval`, and a fast file run writes them in large batches
/// (flushing whenever the queue ran empty cost a `write` per 3 to 6 lines).
///
/// The items travel through a `ChunkHandoff` whose chunks carry no samples: a chunk's position
/// is the index of its item in `items`, written before the chunk is published and read after
/// it is popped, so the ring's release/acquire order covers the item too. The output thread
/// wakes once per `batch` items (or at the end line), not once per frame; a producer that
/// found the ring full likewise waits for a batch of free slots.
public final class BackgroundSink: FrameSink, @unchecked Sendable {
    private enum Item {
        case start(StreamInfo), frame(MeterFrame), gap(StreamGap), device(DeviceChange), file(RecordingFileEvent)
        case event(MeterEvent, ts: Double, stream: Int?)
        case idle(outage: Bool, stream: Int?)
        case end(StreamSummary)
    }

    private let sink: any FrameSink
    private let bands: DeferredBands?
    private let handoff: ChunkHandoff<UInt8>
    /// Item of the chunk at position p lives at items[p % slots]; see the type's comment.
    private let items: UnsafeMutablePointer<Item?>
    private let slots: Int
    private let failure = Mutex<Error?>(nil)
    /// Set once `failure` holds an error: the per-item checks read this, not the lock.
    private let failed = Atomic<Bool>(false)
    /// Set by `flush`, cleared by the output thread when it flushes.
    private let flushWanted = Atomic<Bool>(false)
    private let finished = Wakeup()
    private var produced = 0     // producer only
    private var started = false  // producer only
    private static let batch = 128
    private static let flushInterval = 0.1

    /// `sink` is used only by the background thread from now on. With `bands`, frames from a
    /// pipeline with `deferBands` get their band levels computed there too, and the end line
    /// the stream's mean band levels.
    public init(_ sink: any FrameSink, bands: DeferredBands? = nil, depth: Int = 256) {
        self.sink = ThreadCheckedSink.inDebug(sink, rule: .oneThread)  // the output thread's calls
        self.bands = bands
        slots = max(2, depth)
        handoff = ChunkHandoff(slots: slots, slotCapacity: 1)
        items = .allocate(capacity: slots)
        items.initialize(repeating: nil, count: slots)
    }

    deinit {
        items.deinitialize(count: slots)
        items.deallocate()
    }

    public func start(_ info: StreamInfo) throws {
        if !started {
            started = true
            try OSThread.spawn(role: "pm-output") { [self] in drain() }
        }
        try enqueue(.start(info))
    }

    public func frame(_ frame: MeterFrame) throws { try enqueue(.frame(frame)) }
    public func gap(_ gap: StreamGap) throws { try enqueue(.gap(gap)) }
    public func device(_ change: DeviceChange) throws { try enqueue(.device(change)) }
    public func file(_ event: RecordingFileEvent) throws { try enqueue(.file(event)) }
    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws { try enqueue(.event(event, ts: ts, stream: stream)) }
    public func idle(outage: Bool, stream: Int?) throws { try enqueue(.idle(outage: outage, stream: stream)) }

    /// Wakes the output thread to write what is queued now, without waiting for a batch.
    public func flush() {
        flushWanted.store(true, ordering: .releasing)
        handoff.nudgeConsumer()
    }

    /// Queues the end line and waits until everything is written.
    public func end(_ summary: StreamSummary) throws {
        try enqueue(.end(summary))
        handoff.close()
        finished.wait()
        try throwIfFailed()
    }

    private func throwIfFailed() throws {
        guard failed.load(ordering: .acquiring), let e = failure.withLock({ $0 }) else { return }
        throw e
    }

    private func fail(_ error: Error) {
        failure.withLock { $0 = error }
        failed.store(true, ordering: .releasing)
    }

    private func enqueue(_ item: Item) throws {
        try throwIfFailed()
        // The output thread never cancels: it drains to the end. When the ring is full, the
        // producer sleeps until a batch is free, so the two threads wake each other once per
        // batch, not once per frame.
        _ = handoff.waitForSpace(slots: handoff.ring.available >= slots ? Self.batch : 1)
        items[produced % slots] = item
        handoff.withWritableSlot(position: produced) { _ in 0 }
        produced += 1
    }

    private func drain() {
        defer { finished.signal() }
        var lastFlush = monotonicSeconds()
        while handoff.waitForChunks(Self.batch) {
            writeQueued()
            // Asked to flush: what was queued before the request is popped first (the request
            // is published after it), then written.
            let asked = flushWanted.exchange(false, ordering: .acquiring)
            if asked { writeQueued() }
            let now = monotonicSeconds()
            if asked || now - lastFlush >= Self.flushInterval, !failed.load(ordering: .relaxed) {
                lastFlush = now
                do { try sink.flush() } catch { fail(error) }
            }
        }
    }

    /// Hands every queued item to the wrapped sink (after its first error: drops them).
    private func writeQueued() {
        while handoff.pop({ _, position in
            let item = items[position % slots].take()!
            guard !failed.load(ordering: .relaxed) else { return }
            do {
                switch consume item {
                case .start(let i): try sink.start(i)
                case .frame(var f):
                    bands?.complete(&f)
                    try sink.frame(f)
                case .gap(let g): try sink.gap(g)
                case .device(let d): try sink.device(d)
                case .file(let e): try sink.file(e)
                case .event(let e, let ts, let stream): try sink.event(e, ts: ts, stream: stream)
                case .idle(let outage, let stream): try sink.idle(outage: outage, stream: stream)
                case .end(var s):
                    bands?.complete(&s)
                    try sink.end(s)
                }
            } catch {
                fail(error)
            }
        }) {}
    }
}
