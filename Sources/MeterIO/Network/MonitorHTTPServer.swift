import Glibc
import MeterCore

/// What the session can tell the server about the run beyond its lines.
public struct LiveProgress: Sendable {
    /// Frames written to the recording so far (nil: not recording).
    public var recordedFrames: Int?
    /// True while the source is lost and being waited for.
    public var outage: Bool
    /// With an MQTT client: the messages it dropped so far.
    public var mqttDropped: Int?

    public init(recordedFrames: Int? = nil, outage: Bool = false, mqttDropped: Int? = nil) {
        self.recordedFrames = recordedFrames
        self.outage = outage
        self.mqttDropped = mqttDropped
    }
}

/// The monitoring server behind `--listen`: /metrics, /events, /status and the meter page,
/// on a `MicroHTTPDaemon`, fed by `HTTPSink` from the analysis thread.
///
/// The analysis thread never waits on a client: `publish` takes the lock for an append to
/// the `EventBacklog` and a state update, then resumes the suspended streams the line is
/// for (outside the lock). Each stream client reads the backlog at its own pace on the
/// daemon's thread; a ticker thread drops (and counts) a client more than `maxLagSeconds`
/// behind, cutting its socket even while its send buffer is full, and sends idle streams a
/// keep-alive comment each second (so a vanished client is noticed). More than `maxClients`
/// connections at once get 503; one address holds at most `maxConnectionsPerAddress`, and a
/// connection that has not sent its request headers within `headerTimeoutSeconds` is closed.
///
/// Thread-safety invariant for `@unchecked Sendable`: all shared mutable state is in
/// `shared` (a `Locked`); `daemon` is set once in `init` and read only by the threads that
/// stop it (the daemon's own thread learns the open connections from each request, never
/// from `daemon`, which it could read before `init` has set it); the rest is immutable.
public final class MonitorHTTPServer: @unchecked Sendable {
    public static let maxClients = 64
    public static let maxLagSeconds = 2.0
    /// Connections one client address may hold at once (the next is refused), and the
    /// seconds a new connection has to send its request headers: clients that hold
    /// connections half-open cannot take the slots of others.
    public static let maxConnectionsPerAddress = 8
    public static let headerTimeoutSeconds = 5
    /// Lines the backlog holds (the bound of every client's queue).
    static let backlogLines = 4096

    fileprivate struct Client {
        let connection: MicroHTTPDaemon.Connection
        var reader: EventBacklog.Reader
        var suspended = false
        var dropped = false
        var keepalive = false
        var lastSent: Double
    }

    fileprivate struct Shared {
        var state: MonitorState
        var backlog = EventBacklog(capacity: MonitorHTTPServer.backlogLines)
        var clients: [Int: Client] = [:]
        var nextClient = 0
        var lastFrameAt: Double?
        var ending = false
        var stopped = false
    }

    public let host: String
    public let port: Int
    fileprivate let shared: Locked<Shared>
    /// What /history serves: written by the sink under its own lock, rendered by a request
    /// from a copy taken and dropped under it (`Locked.withCopy`).
    private let retained = Locked(FrameHistory())
    private var daemon: MicroHTTPDaemon?
    private let progress: @Sendable () -> LiveProgress
    private let tickerDone = Wakeup()
    private let clientGone = Wakeup()

    /// Starts serving on `socket` at once (requests before the run starts see no stream yet).
    /// `version`: the program's, for `pulsemeter_build_info`.
    public init(socket: ListeningSocket, recording: MonitorState.Recording, version: String? = nil,
                progress: @escaping @Sendable () -> LiveProgress) throws(ListeningSocket.Failure) {
        host = socket.host
        port = socket.port
        shared = Locked(Shared(state: MonitorState(recording: recording, version: version)))
        self.progress = progress
        daemon = try MicroHTTPDaemon(socket: socket, connectionLimit: Self.maxClients + 16,
                                     perAddressLimit: Self.maxConnectionsPerAddress,
                                     headerTimeoutSeconds: Self.headerTimeoutSeconds, idleTimeoutSeconds: 30) {
            [unowned self] request in respond(to: request)
        }
        do {
            try OSThread.spawn(role: "pm-http-tick") { [self] in tick() }
        } catch {
            daemon?.stop()
            throw ListeningSocket.Failure(host: host, port: port, reason: error.reason)
        }
    }

    // MARK: producer (the analysis thread)

    /// Appends NDJSON `lines` to every stream and applies `update` to the state, in one step.
    func publish(_ lines: [[UInt8]], frame: Bool, update: (inout MonitorState) -> Void) {
        let now = monotonicSeconds()
        let events = lines.enumerated().map { (i, line) in
            (ServerSentEvent.event(line: line), frame && i == 0)
        }
        let wake = shared.withLock { s -> [MicroHTTPDaemon.Connection] in
            update(&s.state)
            if frame { s.lastFrameAt = now }
            var anyEvent = false
            for (bytes, isFrame) in events {
                s.backlog.append(bytes, isFrame: isFrame, at: now)
                if !isFrame { anyEvent = true }
            }
            return Self.resumable(&s) { anyEvent || $0.reader.frames }
        }
        for c in wake { c.resume() }
    }

    /// Applies `update` to the history /history serves.
    func history(_ update: (inout FrameHistory) -> Void) {
        retained.withLock { update(&$0) }
    }

    /// Marks suspended clients that `wanted` as running again; the caller resumes them once
    /// the lock is released (so the daemon's lock is never taken inside this one).
    private static func resumable(_ s: inout Shared, _ wanted: (Client) -> Bool) -> [MicroHTTPDaemon.Connection] {
        var list: [MicroHTTPDaemon.Connection] = []
        for (id, c) in s.clients where c.suspended && wanted(c) {
            s.clients[id]!.suspended = false
            list.append(c.connection)
        }
        return list
    }

    /// Ends the streams once they have taken what is queued (the end line), at most
    /// `graceSeconds` later, then stops the daemon. Idempotent.
    public func finish(graceSeconds: Double = 1) {
        let wake = shared.withLock { s -> [MicroHTTPDaemon.Connection] in
            s.ending = true
            return Self.resumable(&s) { _ in true }
        }
        for c in wake { c.resume() }
        let deadline = monotonicSeconds() + graceSeconds
        while shared.withLock({ !$0.clients.isEmpty }) && monotonicSeconds() < deadline {
            clientGone.wait(seconds: 0.05)
        }
        let first = shared.withLock { s -> Bool in
            defer { s.stopped = true }
            return !s.stopped
        }
        guard first else { return }
        tickerDone.wait()
        // Whatever is left (stalled) is cut; none may stay suspended when the daemon stops.
        let rest = shared.withLock { s -> [MicroHTTPDaemon.Connection] in
            for c in s.clients.values { c.connection.cut() }
            return Self.resumable(&s) { _ in true }
        }
        for c in rest { c.resume() }
        daemon?.stop()
    }

    // MARK: the daemon's thread

    private func respond(to request: MicroHTTPDaemon.Request) -> MicroHTTPDaemon.Response {
        let route = HTTPRoute.resolve(method: request.method, path: request.path, frames: request.argument("frames"),
                                    seconds: request.argument("seconds"))
        let common = [("Cache-Control", "no-store"), ("Access-Control-Allow-Origin", "*")]
        func text(_ status: Int, _ body: String, _ extra: [(String, String)] = []) -> MicroHTTPDaemon.Response {
            .init(status: status, headers: common + [("Content-Type", "text/plain; charset=utf-8")] + extra, body: .bytes(Array(body.utf8)))
        }
        if request.openConnections > Self.maxClients {
            return text(503, "too many clients (at most \(Self.maxClients))\n", [("Retry-After", "5")])
        }
        switch route {
        case .notFound: return text(404, "not found: try /, /metrics, /events, /history or /status\n")
        case .badRequest(let why): return text(400, why + "\n")
        case .methodNotAllowed: return text(405, "only GET and HEAD\n", [("Allow", "GET, HEAD")])
        case .metrics:
            let process = ProcessStatistics.current()
            let body = withSnapshot { state in
                var state = state
                state.process = process
                return PrometheusExposition.render(state)
            }
            return .init(status: 200, headers: common + [("Content-Type", PrometheusExposition.contentType)],
                         body: .bytes(body))
        case .status:
            return .init(status: 200, headers: common + [("Content-Type", "application/json")],
                         body: .bytes(withSnapshot(StatusDocument.render)))
        case .page:
            return .init(status: 200, headers: common + [("Content-Type", "text/html; charset=utf-8"),
                                                         ("Content-Security-Policy", MeterPage.contentSecurityPolicy)],
                         body: .bytes(MeterPage.html))
        case .history(let seconds):
            let lines = request.method == "HEAD" ? [] : retained.withCopy { $0.lines(seconds: seconds) }
            return .init(status: 200, headers: common + [("Content-Type", "application/x-ndjson")],
                         body: .bytes(lines))
        case .events(let frames):
            let headers = common + [("Content-Type", ServerSentEvent.contentType), ("X-Accel-Buffering", "no")]
            if request.method == "HEAD" { return .init(status: 200, headers: headers, body: .bytes([])) }
            request.connection.limitSendBuffer(16 * 1024)
            let id = shared.withLock { s -> Int in
                var opening = ServerSentEvent.preamble(retryMilliseconds: 1000)
                if let start = s.state.startLine { opening += ServerSentEvent.event(line: start) }
                let id = s.nextClient
                s.nextClient += 1
                s.clients[id] = Client(connection: request.connection,
                                       reader: EventBacklog.Reader(opening: opening, at: s.backlog, frames: frames),
                                       lastSent: monotonicSeconds())
                return id
            }
            return .init(status: 200, headers: headers, body: .stream(Stream(server: self, id: id)))
        }
    }

    /// `body` of the state with the session's figures, as the endpoints show it: a copy taken
    /// and dropped under the lock (`Locked.withCopy`), rendered outside it (the sink changes the
    /// state's arrays in place, a frame's clipped samples).
    private func withSnapshot<Result>(_ body: (MonitorState) -> Result) -> Result {
        let p = progress()
        let now = monotonicSeconds()
        return shared.withCopy(of: { s in
            var state = s.state
            state.recordedFrames = p.recordedFrames
            state.mqttDropped = p.mqttDropped
            let fps = state.info?.settings.fps ?? 30
            state.up = !p.outage && !state.ended && s.lastFrameAt.map { now - $0 < max(1, 3 / fps) } == true
            state.sourceLost = p.outage && !state.ended
            return state
        }, body)
    }

    /// A stream client's body: reads its backlog position; suspends when caught up.
    private final class Stream: MicroHTTPDaemon.StreamBody {
        let server: MonitorHTTPServer
        let id: Int
        init(server: MonitorHTTPServer, id: Int) {
            self.server = server
            self.id = id
        }

        func read(into buffer: UnsafeMutableRawBufferPointer) -> MicroHTTPDaemon.StreamRead {
            server.shared.withLock { s in
                guard var c = s.clients[id], !c.dropped else { return .error }
                defer { s.clients[id] = c }
                if c.keepalive && c.reader.isCaughtUp(in: s.backlog) && buffer.count >= ServerSentEvent.keepalive.count {
                    c.keepalive = false
                    ServerSentEvent.keepalive.withUnsafeBytes { buffer.copyMemory(from: $0) }
                    return .bytes(ServerSentEvent.keepalive.count)
                }
                guard let n = c.reader.read(from: s.backlog, into: buffer) else {
                    c.dropped = true
                    s.state.clientsDropped += 1
                    return .error
                }
                if n > 0 {
                    c.lastSent = monotonicSeconds()
                    return .bytes(n)
                }
                if s.ending { return .end }
                c.suspended = true
                c.connection.suspend()
                return .suspended
            }
        }

        func finished() {
            server.shared.withLock { s in _ = s.clients.removeValue(forKey: id) }
            server.clientGone.signal()
        }
    }

    // MARK: ticker

    /// Four times a second: drops clients too far behind; wakes idle streams for a keep-alive.
    private func tick() {
        defer { tickerDone.signal() }
        let pause = Wakeup()
        while !shared.withLock({ $0.stopped }) {
            pause.wait(seconds: 0.25)
            let now = monotonicSeconds()
            let wake = shared.withLock { s -> [MicroHTTPDaemon.Connection] in
                for id in Array(s.clients.keys) {
                    var c = s.clients[id]!
                    if !c.dropped && c.reader.lag(in: s.backlog, now: now) > Self.maxLagSeconds {
                        c.dropped = true
                        s.state.clientsDropped += 1
                        c.connection.cut()
                    }
                    if c.suspended && now - c.lastSent >= 1 {
                        c.keepalive = true
                        c.lastSent = now
                    }
                    s.clients[id] = c
                }
                return Self.resumable(&s) { $0.dropped || $0.keepalive }
            }
            for c in wake { c.resume() }
        }
    }
}
