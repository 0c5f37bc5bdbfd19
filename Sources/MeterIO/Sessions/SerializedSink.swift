import MeterCore

/// One sink shared by several threads (the analyses of a run with several live sources): the
/// sink sees one caller at a time (the `FrameSink` rule), every line whole, each source's calls
/// in their order.
///
/// The lock guards a queue of calls only, never a write: a thread queues its call and, unless
/// another thread is delivering, delivers the queue itself with the lock released. So a write
/// to the terminal or stdout (or a hook sink's end, waiting for its hooks) holds up no other
/// analysis for longer than queueing a call. Past `limit` calls queued (the output stalls), a
/// caller waits until the deliverer takes them, as it waited for the output before.
///
/// A call that throws ends that delivery: the error goes to the thread delivering (every
/// source ends then), the calls taken with it are dropped.
final class SerializedSink: FrameSink, @unchecked Sendable {
    private typealias Call = @Sendable (any FrameSink) throws -> Void
    private struct Queue {
        var calls: [Call] = []
        var delivering = false
        /// Callers waiting for room.
        var waiting = 0
    }

    static let limit = 256
    /// Reached only by the thread delivering, one at a time (`Queue.delivering`, under the lock).
    private let sink: any FrameSink
    private let queue = Locked(Queue())
    private let room = Wakeup()

    init(_ sink: any FrameSink) { self.sink = sink }

    private func serially(_ call: @escaping Call) throws {
        enum Turn { case deliver, done, wait }
        let turn = queue.withLock { q -> Turn in
            q.calls.append(call)
            if !q.delivering {
                q.delivering = true
                return .deliver
            }
            guard q.calls.count > Self.limit else { return .done }
            q.waiting += 1
            return .wait
        }
        switch turn {
        case .deliver: try deliver()
        case .wait: room.wait()
        case .done: break
        }
    }

    /// Delivers what is queued, with the lock released, until nothing is.
    private func deliver() throws {
        while true {
            let (calls, waiting) = queue.withLock { q in
                defer { q.calls = []; q.waiting = 0 }
                if q.calls.isEmpty { q.delivering = false }
                return (q.calls, q.waiting)
            }
            for _ in 0..<waiting { room.signal() }
            if calls.isEmpty { return }
            do {
                for call in calls { try call(sink) }
            } catch {
                let waiting = queue.withLock { q in
                    defer { q.waiting = 0 }
                    q.delivering = false
                    return q.waiting
                }
                for _ in 0..<waiting { room.signal() }
                throw error
            }
        }
    }

    func start(_ info: StreamInfo) throws { try serially { try $0.start(info) } }
    func frame(_ frame: MeterFrame) throws { try serially { try $0.frame(frame) } }
    func gap(_ gap: StreamGap) throws { try serially { try $0.gap(gap) } }
    func device(_ change: DeviceChange) throws { try serially { try $0.device(change) } }
    func file(_ event: RecordingFileEvent) throws { try serially { try $0.file(event) } }
    func event(_ event: MeterEvent, ts: Double, stream: Int?) throws { try serially { try $0.event(event, ts: ts, stream: stream) } }
    func end(_ summary: StreamSummary) throws { try serially { try $0.end(summary) } }
    func flush() throws { try serially { try $0.flush() } }
    func idle(outage: Bool, stream: Int?) throws {
        try serially { try $0.idle(outage: outage, stream: stream) }
    }
}
