import CPulse
import MeterCore

/// Keeps a record stream on the device the user asked for, and says where it is: subscribed
/// to server and source-output events on the stream's own connection (`PulseDevices.subscribe`),
/// it finds the stream by its unique name among the source outputs
/// (`pa_context_get_source_output_info_list`, `media.name`) and compares its source with what
/// is wanted.
///
/// - The default source (no `-d`, `@DEFAULT_SOURCE@`) or the default sink's monitor
///   (`@DEFAULT_MONITOR@`): when the default changes and the server did not move the stream
///   there, `poll` says to follow it (`PulseRecordStream` connects a stream there).
/// - A named source: kept. When the server moved the stream because the default changed, it
///   is moved back; when it moved for another reason (a user dragged it in pavucontrol), it
///   stays where it went.
///
/// It lives in the main loop of the thread that reads the stream and never makes that thread
/// wait: an event starts a look (the server's questions asked at once), the answers arrive in
/// the callbacks of the loop passes the reads make anyway, and the last answer decides. One
/// connection carries the device's lookup, the audio and the watching; the reads go on while
/// a look is under way, and a look acts even while the source delivers nothing (the events and
/// answers wake the loop).
final class SourceWatcher {
    enum Wanted: Equatable { case defaultSource, defaultMonitor, named(String) }
    /// The stream is on another source now (`moved`), or should follow the default there.
    enum Change: Equatable { case moved(String), follow(String) }

    private let connection: PulseDevices
    private let streamName: String
    private let wanted: Wanted
    private var reported: String
    private var lastDefault: String?
    /// Until then, a move of a named source's stream onto the default is the server following
    /// a default switch (its events for the switch and the move may come in either order). It
    /// starts with the watcher: the default may switch between the stream's connection and the
    /// first look, and the server then moves even a stream opened on a named source along
    /// (PulseAudio 16 does), its events before the subscription.
    private var switchedUntil: Double
    /// When a look the server did not fully answer, or a follow that failed, is tried again
    /// (nil: nothing pending). The event that asked for the look does not come twice.
    private var retryAt: Double?
    /// How long after a look that came to nothing the watcher looks again, and how many
    /// times in a row (about 10 s: a server that never lists the stream is not asked forever).
    static let retrySeconds = 0.25, retryLimit = 40
    private var retries = 0
    /// The look under way, its answers still coming.
    private var look: Look?
    /// What the last look decided, until `poll` hands it over.
    private var decided: Change?
    /// The source `.follow` named, until the owner says it followed or could not.
    private var following: String?

    init(on connection: PulseDevices, streamName: String, wanted: Wanted, current: String) {
        self.connection = connection
        self.streamName = streamName
        self.wanted = wanted
        reported = current
        switchedUntil = monotonicSeconds() + 2
        connection.subscribe(pa_subscription_mask_t(
            rawValue: PA_SUBSCRIPTION_MASK_SERVER.rawValue | PA_SUBSCRIPTION_MASK_SOURCE_OUTPUT.rawValue))
        connection.changed = true  // the first look at once: the defaults, and a move that raced the subscription
    }

    deinit { look?.cancel() }

    /// The owner connected the stream again on `source` (after `.follow`).
    func followed(_ source: String) {
        reported = source
        following = nil
        retries = 0
        connection.changed = true
    }

    /// The owner could not connect the stream on the source `.follow` named: the watcher
    /// looks again shortly (and says `.follow` again while the default is still there).
    func followFailed() {
        following = nil
        lookAgain()
    }

    /// One look at the server: its defaults, its sources and our stream's source, asked all at
    /// once; the answers fill it in as the main loop dispatches them, and the last one calls
    /// `done` with it.
    private final class Look {
        var defaultSource = "", defaultSink = ""
        var sources: [UInt32: (name: String, monitorOf: String?)] = [:]
        /// Our source output's index and its source's.
        var stream: (output: UInt32, source: UInt32)?
        /// Every question was asked and answered.
        var complete = true
        let streamName: String
        let started = monotonicSeconds()
        private var operations: [OpaquePointer] = []
        private var waiting = 0
        private let done: (Look) -> Void

        init(streamName: String, done: @escaping (Look) -> Void) {
            self.streamName = streamName
            self.done = done
        }

        static func from(_ ud: UnsafeMutableRawPointer?) -> Look { Unmanaged<Look>.fromOpaque(ud!).takeUnretainedValue() }

        /// Asks the three questions on `ctx`. The owner keeps the look until `done` or `cancel`:
        /// the callbacks hold it unretained.
        func ask(_ ctx: OpaquePointer) {
            let ud = Unmanaged.passUnretained(self).toOpaque()
            asked(pa.context_get_server_info(ctx, { _, info, ud in
                let s = Look.from(ud)
                if let i = info?.pointee {
                    s.defaultSource = i.default_source_name.map { String(cString: $0) } ?? ""
                    s.defaultSink = i.default_sink_name.map { String(cString: $0) } ?? ""
                } else {
                    s.complete = false
                }
                s.answered()
            }, ud))
            asked(pa.context_get_source_info_list(ctx, { _, info, eol, ud in
                let s = Look.from(ud)
                guard eol == 0 else { return s.answered(failed: eol < 0) }
                guard let i = info?.pointee else { return }
                let monitorOf = i.monitor_of_sink != CPulse_INVALID_INDEX ? i.monitor_of_sink_name.map { String(cString: $0) } : nil
                s.sources[i.index] = (String(cString: i.name), monitorOf)
            }, ud))
            asked(pa.context_get_source_output_info_list(ctx, { _, info, eol, ud in
                let s = Look.from(ud)
                guard eol == 0 else { return s.answered(failed: eol < 0) }
                guard let i = info?.pointee, let name = pa.proplist_gets(i.proplist, "media.name"),
                      String(cString: name) == s.streamName else { return }
                s.stream = (i.index, i.source)
            }, ud))
            if waiting == 0 { finish() }  // nothing could be asked
        }

        private func asked(_ op: OpaquePointer?) {
            guard let op else { complete = false; return }
            operations.append(op)
            waiting += 1
        }

        private func answered(failed: Bool = false) {
            if failed { complete = false }
            waiting -= 1
            if waiting == 0 { finish() }
        }

        private func finish() {
            for op in operations { pa.operation_unref(op) }
            operations = []
            done(self)
        }

        /// Gives up the answers still to come (`pa_operation_cancel`: their callbacks never run).
        func cancel() {
            for op in operations {
                pa.operation_cancel(op)
                pa.operation_unref(op)
            }
            operations = []
        }
    }

    /// How long the server may take to answer a look before it is given up and tried again.
    static let answerSeconds = 2.0

    /// What changed since the last call: the stream is on another source (moved by the server,
    /// or by the owner to follow the default), or should follow the default. Nil when nothing
    /// did, or while a look is under way. Starts a look when an event came since the last (or a
    /// retry is due). The reading thread calls it after each pass of the main loop; it never
    /// waits.
    func poll() -> Change? {
        if let look, monotonicSeconds() - look.started > Self.answerSeconds {
            look.cancel()
            self.look = nil
            lookAgain()
        }
        if look == nil, connection.changed || retryAt.map({ monotonicSeconds() >= $0 }) == true {
            connection.changed = false
            retryAt = nil
            let l = Look(streamName: streamName) { [unowned self] in decide($0) }
            look = l
            l.ask(connection.context)
        }
        defer { decided = nil }
        return decided
    }

    /// When `poll` next has something to do without an event (a look to start: now; a look to
    /// give up; a retry), in monotonic seconds; nil: only at an event.
    var nextDue: Double? {
        if look == nil && connection.changed { return 0 }  // a look to start
        return look.map { $0.started + Self.answerSeconds } ?? retryAt
    }

    /// The last answer of `s` came: what to do about where the stream is.
    private func decide(_ s: Look) {
        look = nil
        // While the owner connects a stream on the default, ours is listed twice: wait for it.
        guard following == nil else { return }
        guard s.complete, let stream = s.stream, let current = s.sources[stream.source]?.name else {
            lookAgain()
            return
        }
        if let last = lastDefault, last != s.defaultSource { switchedUntil = monotonicSeconds() + 2 }
        lastDefault = s.defaultSource
        let target = target(s, current: current)
        if followsDefault, let target, target != current {
            guard s.sources.values.contains(where: { $0.name == target }) else {
                lookAgain()  // a default the server names before it lists it
                return
            }
            if target != reported {
                following = target
                decided = .follow(target)
            }
            return
        }
        retries = 0
        if let target, target != current, let index = s.sources.first(where: { $0.value.name == target })?.key {
            // By index: pipewire-pulse does not find a monitor by its name here. The move's
            // own event brings the next look.
            if let op = pa.context_move_source_output_by_index(connection.context, stream.output, index, nil, nil) {
                pa.operation_unref(op)
            }
            return
        }
        guard current != reported else { return }
        reported = current
        decided = .moved(current)
    }

    /// Schedules another look after `retrySeconds`, up to `retryLimit` in a row.
    private func lookAgain() {
        retries += 1
        if retries < Self.retryLimit { retryAt = monotonicSeconds() + Self.retrySeconds }
    }

    private var followsDefault: Bool {
        if case .named = wanted { return false }
        return true
    }

    /// Where the stream should be now, nil: where it is.
    private func target(_ s: Look, current: String) -> String? {
        switch wanted {
        case .defaultSource: return s.defaultSource.isEmpty ? nil : s.defaultSource
        case .defaultMonitor: return s.sources.values.first { $0.monitorOf == s.defaultSink }?.name
        case .named(let name):
            // Moved along with a default switch: back to the named source.
            return monotonicSeconds() < switchedUntil && current == s.defaultSource ? name : nil
        }
    }
}
