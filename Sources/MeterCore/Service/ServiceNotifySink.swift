import Synchronization

/// What a live run tells a service manager (systemd's `sd_notify` protocol): each a datagram
/// of one `NAME=value` assignment.
public enum ServiceNotice: Sendable, Equatable {
    /// The run meters: every source delivered its first frame.
    case ready
    /// Audio keeps arriving from every source and the analysis keeps up.
    case watchdog
    /// A one-line summary for `systemctl status`.
    case status(String)
    /// A stop signal came: the run is finishing.
    case stopping

    /// The datagram's text.
    public var datagram: String {
        switch self {
        case .ready: return "READY=1"
        case .watchdog: return "WATCHDOG=1"
        case .status(let text): return "STATUS=" + text.filter { $0 != "\n" && $0 != "\r" }
        case .stopping: return "STOPPING=1"
        }
    }
}

/// What the `STATUS=` line is made from; the command line words it.
public struct ServiceStatus: Sendable, Equatable {
    public struct Source: Sendable, Equatable {
        /// The source's name as its start line gives it.
        public var name: String
        /// The loudest channel's RMS level of the latest frame (dBFS); nil before the first.
        public var rmsDb: Double?
        /// The loudest channel's peak of the latest frame (dBFS); nil before the first.
        public var peakDb: Double?
        /// The source is lost and being waited for (`--reconnect`).
        public var lost: Bool
        /// The recording file open now, if any.
        public var file: String?
    }

    public var sources: [Source]
}

/// The sink that speaks to a service manager (`NOTIFY_SOCKET`), one of a live run's sinks.
///
/// Its decisions come from the run's own progress, never from a timer of its own: `READY`
/// when every source has delivered its first frame; `WATCHDOG` at most every `watchdogInterval`
/// seconds (half of systemd's `WATCHDOG_USEC`), and only once every source delivered, since the
/// last ping, a frame with no new `dropped` input (audio arrives and the analysis keeps up): a
/// capture stuck in a read, a source that delivers nothing (suspended, lost) or an analysis that
/// stopped calls no `frame` here, so the pings stop and the manager restarts the service.
/// `STATUS` with readiness and then at most every `statusInterval` seconds, on frames and on the
/// analysis' idle wake-ups. `STOPPING` when `stopping()` is called (the command line does so on a
/// stop signal, from its signal thread); nothing but `STOPPING` is sent after it.
///
/// Readiness waits for every source (with `-d A -d B`, as the watchdog does): the service is
/// ready when it meters what it was started to meter; a source waited for from the start
/// (`--reconnect`) keeps it starting.
///
/// `clock` gives seconds on a monotonic clock; `send` hands a notice to the socket (it must not
/// block). All calls but `stopping()` come from the analysis thread(s), one at a time (the
/// `FrameSink` rule).
///
/// Thread-safety invariant for `@unchecked Sendable`: every call but `stopping()` comes from one
/// analysis thread at a time; `stopping()` touches only the atomic flag, the mutex and `send`,
/// which must be safe from any thread (a datagram socket's `sendto`).
public final class ServiceNotifySink: FrameSink, @unchecked Sendable {
    private let watchdogInterval: Double?
    private let statusInterval: Double
    private let clock: () -> Double
    private let word: (ServiceStatus) -> String
    private let send: (ServiceNotice) -> Void
    private let stopped = Atomic<Bool>(false)

    /// Per source (by stream index), in the order their start lines came.
    private var streams: [Int?] = []
    private var status = ServiceStatus(sources: [])
    /// The running `dropped` count of each source's previous frame.
    private var dropped: [Int] = []
    /// Each source delivered a frame (that kept up) since the last ping, or since readiness.
    private var delivered: [Bool] = []
    private var started: [Bool] = []
    private var ready = false
    private var lastPing = 0.0
    private var lastStatus = 0.0

    public init(watchdogInterval: Double?, statusInterval: Double = 5, clock: @escaping () -> Double,
                status word: @escaping (ServiceStatus) -> String, send: @escaping (ServiceNotice) -> Void) {
        self.watchdogInterval = watchdogInterval
        self.statusInterval = statusInterval
        self.clock = clock
        self.word = word
        self.send = send
    }

    /// A stop signal came (any thread): `STOPPING`, once; nothing else is sent after it. Returns
    /// once it was sent, whichever caller sends it: the command line calls this from the signal
    /// thread and again before the process exits, and a second call that returned while the first
    /// was still on its way to `send` let the process exit without it (CI69: no STOPPING=1).
    public func stopping() {
        stopped.store(true, ordering: .releasing)
        stopNotice.withLock { sent in
            guard !sent else { return }
            sent = true
            send(.stopping)
        }
    }

    /// `STOPPING` was sent; held while it is being sent.
    private let stopNotice = Mutex(false)

    private var isStopping: Bool { stopped.load(ordering: .acquiring) }

    private func index(_ stream: Int?) -> Int? { streams.firstIndex(of: stream) }

    public func start(_ info: StreamInfo) throws {
        guard index(info.stream) == nil else { return }
        streams.append(info.stream)
        status.sources.append(.init(name: info.source, rmsDb: nil, peakDb: nil, lost: false, file: nil))
        dropped.append(0)
        delivered.append(false)
        started.append(false)
    }

    public func frame(_ frame: MeterFrame) throws {
        guard let k = index(frame.stream), !isStopping else { return }
        let keptUp = frame.dropped == dropped[k]
        dropped[k] = frame.dropped
        delivered[k] = keptUp
        started[k] = true
        status.sources[k].rmsDb = frame.rmsDb.max()
        status.sources[k].peakDb = frame.peakDb.max()
        status.sources[k].lost = false
        let now = clock()
        if !ready {
            guard started.allSatisfy({ $0 }) else { return }
            ready = true
            send(.ready)
            sendStatus(now)
            lastPing = now
            delivered = delivered.map { _ in false }
            return
        }
        if let watchdogInterval, now - lastPing >= watchdogInterval, delivered.allSatisfy({ $0 }) {
            send(.watchdog)
            lastPing = now
            delivered = delivered.map { _ in false }
        }
        if now - lastStatus >= statusInterval { sendStatus(now) }
    }

    private func sendStatus(_ now: Double) {
        lastStatus = now
        send(.status(word(status)))
    }

    /// The analysis woke and no audio had come: no ping; the status says a lost source.
    public func idle(outage: Bool, stream: Int?) throws {
        guard let k = index(stream), !isStopping else { return }
        delivered[k] = false
        let changed = status.sources[k].lost != outage
        status.sources[k].lost = outage
        let now = clock()
        if ready && (changed || now - lastStatus >= statusInterval) { sendStatus(now) }
    }

    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {
        guard let k = index(stream), !isStopping else { return }
        if case .sourceLost = event.kind {
            status.sources[k].lost = true
            delivered[k] = false
            if ready { sendStatus(clock()) }
        }
    }

    public func file(_ event: RecordingFileEvent) throws {
        guard let k = index(event.stream) else { return }
        switch event.kind {
        case .open, .resume: status.sources[k].file = event.file
        case .close, .pause, .removed: if status.sources[k].file == event.file { status.sources[k].file = nil }
        }
    }

    public func gap(_ gap: StreamGap) throws {}
    public func device(_ change: DeviceChange) throws {
        guard let k = index(change.stream) else { return }
        status.sources[k].name = change.source
    }
    /// Nothing gathered: each message is sent as it is decided.
    public func flush() throws {}
    public func end(_ summary: StreamSummary) throws {}
}

/// systemd's watchdog settings as its environment gives them.
public enum ServiceWatchdog {
    /// Seconds between pings: half of `WATCHDOG_USEC` (microseconds), as `sd_watchdog_enabled`
    /// advises; nil when it is not set, not a positive number, or `WATCHDOG_PID` names another
    /// process (the watchdog is then not ours).
    public static func pingInterval(usec: String?, pid: String?, ourPID: Int) -> Double? {
        guard let usec, let value = UInt64(usec), value > 0 else { return nil }
        if let pid, Int(pid) != ourPID { return nil }
        return Double(value) / 2e6
    }
}
