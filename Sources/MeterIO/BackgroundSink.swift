import Dispatch
import MeterCore
import Synchronization

/// Runs another sink (encoding and writing) on its own thread, so that for files the analysis
/// and the output use two cores. Frames keep their order; at most `depth` wait, then the
/// producer waits too (files only: a live run must never wait on its output, and does not
/// use this). The wrapped sink's first error stops the run at the producer's next call.
public final class BackgroundSink: FrameSink, @unchecked Sendable {
    private enum Item {
        case start(StreamInfo), frame(MeterFrame), gap(StreamGap), end(StreamSummary)
    }

    private let sink: any FrameSink
    private let bands: DeferredBands?
    private let depth: Int
    private let queue = Mutex<[Item]>([])
    private let failure = Mutex<Error?>(nil)
    private let itemsReady = DispatchSemaphore(value: 0)
    private let spaceFreed = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let queued = Atomic<Int>(0)
    private var started = false
    private static let batch = 32

    /// `sink` is used only by the background thread from now on. With `bands`, frames from a
    /// pipeline with `deferBands` get their band levels computed there too.
    public init(_ sink: any FrameSink, bands: DeferredBands? = nil, depth: Int = 256) {
        self.sink = sink
        self.bands = bands
        self.depth = depth
    }

    public func start(_ info: StreamInfo) throws {
        if !started {
            started = true
            OSThread.spawn(role: "output") { [self] in drain() }
        }
        try enqueue(.start(info))
    }

    public func frame(_ frame: MeterFrame) throws { try enqueue(.frame(frame)) }
    public func gap(_ gap: StreamGap) throws { try enqueue(.gap(gap)) }

    /// Queues the end line and waits until everything is written.
    public func end(_ summary: StreamSummary) throws {
        try enqueue(.end(summary))
        finished.wait()
        if let e = failure.withLock({ $0 }) { throw e }
    }

    private func enqueue(_ item: Item) throws {
        if let e = failure.withLock({ $0 }) { throw e }
        while queued.load(ordering: .acquiring) >= depth {
            _ = spaceFreed.wait(timeout: .now() + .milliseconds(20))
            if let e = failure.withLock({ $0 }) { throw e }
        }
        let count = queue.withLock { q -> Int in
            q.append(item)
            return q.count
        }
        queued.add(1, ordering: .releasing)
        // Wake the output thread once per batch of frames, not per frame (a wake-up costs more
        // than a frame); it also looks every 20 ms by itself, so output is never later than that.
        var urgent = false
        if case .end = item { urgent = true }
        if count == Self.batch || urgent { itemsReady.signal() }
    }

    private func drain() {
        var done = false
        while !done {
            _ = itemsReady.wait(timeout: .now() + .milliseconds(20))
            let items = queue.withLock { q -> [Item] in defer { q.removeAll(keepingCapacity: true) }; return q }
            if items.isEmpty { continue }
            for item in items {
                if failure.withLock({ $0 }) == nil {
                    do {
                        switch item {
                        case .start(let i): try sink.start(i)
                        case .frame(var f):
                            bands?.complete(&f)
                            try sink.frame(f)
                        case .gap(let g): try sink.gap(g)
                        case .end(let s): try sink.end(s)
                        }
                    } catch {
                        failure.withLock { $0 = error }
                    }
                }
                if case .end = item { done = true }
            }
            queued.subtract(items.count, ordering: .releasing)
            spaceFreed.signal()
        }
        finished.signal()
    }
}
