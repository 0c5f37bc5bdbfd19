import CMosquitto
import Glibc
import MeterCore

/// The one wrapper of libmosquitto: a connection to an MQTT broker whose network I/O runs on
/// libmosquitto's own thread (`mosquitto_loop_start`), reconnecting with backoff (1 s doubling
/// to 30 s). `publish` never waits: while connected it hands the message to libmosquitto with
/// at most `inFlightLimit` not yet written, else it keeps it in an `MQTTOutbox` (a bounded
/// queue and the newest state; what it drops is counted). On every connection it sends the announced (retained) messages, then
/// `online` (retained) on the status topic, then what was queued; the last will is
/// `offline`, retained. `finish` says `offline` and disconnects.
///
/// Thread-safety invariant for `@unchecked Sendable`: the mutable state is in `shared`, reached
/// under its lock only; `mosq` is set once in `init`.
public final class MQTTClient: MQTTPublisher, @unchecked Sendable {
    /// What the caller is told once, from libmosquitto's thread.
    public enum Problem: Sendable, Equatable {
        /// The broker answered the connection with a refusal (a wrong user or password, or
        /// not authorised): libmosquitto's wording.
        case refused(String)
        /// The broker could not be reached (it is retried): libmosquitto's wording.
        case unreachable(String)
    }

    public struct Settings: Sendable {
        public var address: MQTTAddress
        public var password: String?
        /// A private CA's certificate (PEM) for `mqtts://`; nil: the system's CA store.
        public var caFile: String?
        public var statusTopic: String
        public var queueLimit = 1000
        public var inFlightLimit = 100

        public init(address: MQTTAddress, password: String?, caFile: String?, statusTopic: String) {
            self.address = address
            self.password = password
            self.caFile = caFile
            self.statusTopic = statusTopic
        }
    }

    private struct Shared {
        var outbox: MQTTOutbox
        var announced: [MQTTMessage] = []
        var connected = false
        var inFlight = 0
        /// Handed to libmosquitto and lost with a connection before being written.
        var lost = 0
        var refusedSaid = false
        var unreachableSaid = false
        var finished = false
    }

    private let settings: Settings
    private let shared: Locked<Shared>
    private let problem: @Sendable (Problem) -> Void
    /// libmosquitto, loaded by the first client (`MosquittoLibrary`).
    private let lib: MosquittoLibrary
    private var mosq: OpaquePointer?

    public enum Failure: Error, Equatable {
        /// libmosquitto could not be loaded, or would not set up the client (its wording).
        case setup(String)
    }

    /// Starts connecting in the background; `problem` is called (on libmosquitto's thread) the
    /// first time the broker refuses the login, and the first time it cannot be reached.
    public init(_ settings: Settings, problem: @escaping @Sendable (Problem) -> Void) throws(Failure) {
        self.settings = settings
        self.problem = problem
        shared = Locked(Shared(outbox: MQTTOutbox(limit: settings.queueLimit)))
        switch MosquittoLibrary.loaded {
        case .success(let loaded): lib = loaded
        case .failure(let failure): throw .setup(failure.reason)
        }
        _ = lib.libInit()
        guard let m = lib.new(nil, true, Unmanaged.passUnretained(self).toOpaque()) else {
            throw .setup(Self.errnoText())
        }
        mosq = m
        let a = settings.address
        if let user = a.user { try check(lib.usernamePasswordSet(m, user, settings.password)) }
        let offline = MQTTTopics.offline
        try check(lib.willSet(m, settings.statusTopic, Int32(offline.count), offline, 1, true))
        if a.tls {
            if let ca = settings.caFile {
                try check(lib.tlsSet(m, ca, nil, nil, nil, nil))
            } else {
                try check(lib.intOption(m, MOSQ_OPT_TLS_USE_OS_CERTS, 1))
            }
        }
        try check(lib.reconnectDelaySet(m, 1, 30, true))
        lib.connectCallbackSet(m) { _, obj, rc in MQTTClient.client(obj).connected(rc) }
        lib.disconnectCallbackSet(m) { _, obj, rc in MQTTClient.client(obj).disconnected(rc) }
        lib.publishCallbackSet(m) { _, obj, _ in MQTTClient.client(obj).written() }
        let rc = lib.connectAsync(m, a.host, Int32(a.port), 30)
        if rc != MOSQ_ERR_SUCCESS.rawValue { say(.unreachable(text(rc))) }  // the loop retries
        try check(lib.loopStart(m))
    }

    /// The broker's password from the environment (`PULSEMETER_MQTT_PASSWORD`), never from
    /// the command line (where `ps` shows it).
    public static func environmentPassword() -> String? {
        getenv("PULSEMETER_MQTT_PASSWORD").map { String(cString: $0) }
    }

    deinit {
        if let mosq { lib.destroy(mosq) }
    }

    private static func client(_ obj: UnsafeMutableRawPointer?) -> MQTTClient {
        Unmanaged<MQTTClient>.fromOpaque(obj!).takeUnretainedValue()
    }

    private func check(_ rc: Int32) throws(Failure) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw .setup(text(rc)) }
    }

    private func text(_ rc: Int32) -> String {
        rc == MOSQ_ERR_ERRNO.rawValue ? Self.errnoText() : lib.strerror(rc).map { String(cString: $0) } ?? "error \(rc)"
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }

    private func say(_ p: Problem) {
        let first = shared.withLock { s -> Bool in
            switch p {
            case .refused: defer { s.refusedSaid = true }; return !s.refusedSaid
            case .unreachable: defer { s.unreachableSaid = true }; return !s.unreachableSaid
            }
        }
        if first { problem(p) }
    }

    // MARK: MQTTPublisher (the analysis thread)

    public func publish(_ message: MQTTMessage) {
        shared.withLock { s in
            s.outbox.push(message)
            drain(&s)
        }
    }

    public func announce(_ messages: [MQTTMessage]) {
        shared.withLock { s in
            s.announced = messages
            if s.connected { sendAnnouncement(&s) }
        }
    }

    /// Dropped in all: pushed out of the full queue, lost with a connection, or still queued.
    public func finish() -> Int {
        guard let mosq else { return 0 }
        let connected = shared.withLock { s -> Bool in
            s.finished = true
            if s.connected { send(MQTTMessage(topic: settings.statusTopic, payload: MQTTTopics.offline, retained: true), &s) }
            return s.connected
        }
        _ = lib.disconnect(mosq)
        // Connected: the loop writes `offline` and the disconnection, then ends. Not connected:
        // it may be waiting to reconnect, which nothing needs now.
        _ = lib.loopStop(mosq, !connected)
        return shared.withLock { $0.outbox.dropped + $0.lost + $0.outbox.count }
    }

    /// Messages dropped so far (the outbox's and those lost with a connection), for /metrics.
    public var dropped: Int { shared.withLock { $0.outbox.dropped + $0.lost } }

    // MARK: libmosquitto's thread

    private func connected(_ rc: Int32) {
        guard rc == 0 else {
            say(.refused(lib.connackString(rc).map { String(cString: $0) } ?? "refused (\(rc))"))
            return
        }
        shared.withLock { s in
            s.connected = true
            s.inFlight = 0
            guard !s.finished else { return }
            sendAnnouncement(&s)
            drain(&s)
        }
    }

    private func disconnected(_ rc: Int32) {
        shared.withLock { s in
            s.connected = false
            if rc != 0 { s.lost += s.inFlight }  // 0: the disconnection `finish` asked for, after them
            s.inFlight = 0
        }
        if rc != 0 && rc != MOSQ_ERR_CONN_REFUSED.rawValue { say(.unreachable(text(rc))) }
    }

    private func written() {
        shared.withLock { s in
            s.inFlight = max(0, s.inFlight - 1)
            drain(&s)
        }
    }

    // MARK: Under the lock

    private func sendAnnouncement(_ s: inout Shared) {
        for m in s.announced { send(m, &s) }
        send(MQTTMessage(topic: settings.statusTopic, payload: MQTTTopics.online, retained: true), &s)
    }

    private func drain(_ s: inout Shared) {
        while s.connected && !s.finished && s.inFlight < settings.inFlightLimit, let m = s.outbox.pop() {
            send(m, &s)
        }
    }

    private func send(_ m: MQTTMessage, _ s: inout Shared) {
        let rc = m.payload.withUnsafeBytes { p in
            lib.publish(mosq, nil, m.topic, Int32(p.count), p.baseAddress, m.retained ? 1 : 0, m.retained)
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue { s.inFlight += 1 } else { s.lost += 1 }
    }
}
