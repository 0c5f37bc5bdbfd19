import Glibc
import MeterCore
import Synchronization

/// The threading rule, checked in debug builds: `MeterSession` puts this in front of a run's
/// sinks, so a test run traps on a sink called from elsewhere (a capture, HTTP or hook thread)
/// or on two calls at once, instead of racing silently (swift-nio's `preconditionInEventLoop`
/// habit). `oneThread`: every call from the thread that made the first (a file's, a played
/// file's or one live source's analysis); `oneAtATime`: several analyses take turns through a
/// `SerializedSink` (several live sources), never two calls at once. Release builds do not
/// insert it.
final class ThreadCheckedSink: FrameSink, @unchecked Sendable {
    enum Rule { case oneThread, oneAtATime }

    private let next: any FrameSink
    private let rule: Rule
    /// The first caller's `pthread_self()` (0: no call yet).
    private let owner = Atomic<UInt>(0)
    private let inside = Atomic<Bool>(false)

    init(_ next: any FrameSink, rule: Rule) {
        self.next = next
        self.rule = rule
    }

    /// `sink` behind the check in debug builds, `sink` itself in release builds. Every place
    /// that drives sinks goes through this (`LayeringTests` holds the list): `MeterSession.run`
    /// (every run's sinks), `MeterSession`'s spread file run (the analysis thread's calls into
    /// its output thread) and `BackgroundSink` (its output thread's calls).
    static func inDebug(_ sink: any FrameSink, rule: Rule) -> any FrameSink {
        #if DEBUG
        ThreadCheckedSink(sink, rule: rule)
        #else
        sink
        #endif
    }

    private func checked(_ call: StaticString, _ body: () throws -> Void) rethrows {
        if rule == .oneThread {
            let me = UInt(pthread_self())
            let (first, owner) = owner.compareExchange(expected: 0, desired: me, ordering: .relaxed)
            precondition(first || owner == me, "FrameSink.\(call) called from a thread other than the session's analysis thread")
        }
        precondition(!inside.exchange(true, ordering: .acquiring), "FrameSink.\(call) called while another call is in progress")
        defer { inside.store(false, ordering: .releasing) }
        try body()
    }

    func start(_ info: StreamInfo) throws { try checked("start") { try next.start(info) } }
    func frame(_ frame: MeterFrame) throws { try checked("frame") { try next.frame(frame) } }
    func gap(_ gap: StreamGap) throws { try checked("gap") { try next.gap(gap) } }
    func device(_ change: DeviceChange) throws { try checked("device") { try next.device(change) } }
    func file(_ event: RecordingFileEvent) throws { try checked("file") { try next.file(event) } }
    func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {
        try checked("event") { try next.event(event, ts: ts, stream: stream) }
    }
    func idle(outage: Bool, stream: Int?) throws { try checked("idle") { try next.idle(outage: outage, stream: stream) } }
    func end(_ summary: StreamSummary) throws { try checked("end") { try next.end(summary) } }
    func flush() throws { try checked("flush") { try next.flush() } }
}
