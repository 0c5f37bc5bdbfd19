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
///   there, `poll` says to follow it (`PulseRecordStream` connects the stream again there).
/// - A named source: kept. When the server moved the stream because the default changed, it
///   is moved back; when it moved for another reason (a user dragged it in pavucontrol), it
///   stays where it went.
///
/// It works on the thread that reads the stream, in the same main loop: the events arrive
/// while a read waits in it, so it acts even while the source delivers nothing, and one
/// connection carries the device's lookup, the audio and the watching.
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
    /// a default switch (its events for the switch and the move may come in either order).
    private var switchedUntil = 0.0
    /// When a look the server did not fully answer, or a follow that failed, is tried again
    /// (nil: nothing pending). Under load an answer can take longer than `answerSeconds`, and
    /// the event that asked for the look does not come twice.
    private var retryAt: Double?
    /// How long after a look that came to nothing the watcher looks again, and how many
    /// times in a row (about 10 s: a server that never lists the stream is not asked forever).
    static let retrySeconds = 0.25, retryLimit = 40
    private var retries = 0

    init(on connection: PulseDevices, streamName: String, wanted: Wanted, current: String) {
        self.connection = connection
        self.streamName = streamName
        self.wanted = wanted
        reported = current
        connection.subscribe(pa_subscription_mask_t(
            rawValue: PA_SUBSCRIPTION_MASK_SERVER.rawValue | PA_SUBSCRIPTION_MASK_SOURCE_OUTPUT.rawValue))
        let s = scan()
        lastDefault = s.defaultSource
        // The default may switch between the connection and this first look, and the server
        // then moves even a stream opened on a named source along (PulseAudio 16 does): a move
        // onto the default this soon is the server's, and a stream already moved is looked at
        // again at once (its events came before the subscription).
        switchedUntil = monotonicSeconds() + 2
        connection.changed = s.stream.flatMap { s.sources[$0.source]?.name } != current
    }

    /// The owner connected the stream again on `source` (after `.follow`).
    func followed(_ source: String) {
        reported = source
        retries = 0
        connection.changed = true
    }

    /// The owner could not connect the stream on the source `.follow` named: the watcher
    /// looks again shortly (and says `.follow` again while the default is still there).
    func followFailed() {
        lookAgain()
    }

    /// What the server says now: the defaults, the sources, and our stream's source.
    private final class Scan {
        var defaultSource = "", defaultSink = ""
        var sources: [UInt32: (name: String, monitorOf: String?)] = [:]
        /// Our source output's index and its source's.
        var stream: (output: UInt32, source: UInt32)?
        /// Every question was answered (within `answerSeconds`, on a working connection).
        var complete = true
        let streamName: String
        init(streamName: String) { self.streamName = streamName }
        static func from(_ ud: UnsafeMutableRawPointer?) -> Scan { Unmanaged<Scan>.fromOpaque(ud!).takeUnretainedValue() }
    }

    /// How long a look at the server may take: the reads wait meanwhile.
    static let answerSeconds = 2.0

    /// One look at the server: what it said within `answerSeconds` (nothing of what it did not,
    /// or after a failure of the connection).
    private func scan() -> Scan {
        let s = Scan(streamName: streamName)
        let ud = Unmanaged.passUnretained(s).toOpaque()
        let ctx = connection.context, deadline = monotonicSeconds() + Self.answerSeconds
        withExtendedLifetime(s) {
            func ask(_ op: OpaquePointer?) {
                do { try connection.finish(until: deadline, op) } catch { s.complete = false }
            }
            ask(pa.context_get_server_info(ctx, { _, info, ud in
                let s = Scan.from(ud)
                if let i = info?.pointee {
                    s.defaultSource = i.default_source_name.map { String(cString: $0) } ?? ""
                    s.defaultSink = i.default_sink_name.map { String(cString: $0) } ?? ""
                }
            }, ud))
            ask(pa.context_get_source_info_list(ctx, { _, info, eol, ud in
                guard eol == 0, let i = info?.pointee else { return }
                let monitorOf = i.monitor_of_sink != CPulse_INVALID_INDEX ? i.monitor_of_sink_name.map { String(cString: $0) } : nil
                Scan.from(ud).sources[i.index] = (String(cString: i.name), monitorOf)
            }, ud))
            ask(pa.context_get_source_output_info_list(ctx, { _, info, eol, ud in
                let s = Scan.from(ud)
                guard eol == 0, let i = info?.pointee, let name = pa.proplist_gets(i.proplist, "media.name"),
                      String(cString: name) == s.streamName else { return }
                s.stream = (i.index, i.source)
            }, ud))
        }
        return s
    }

    /// The stream's source when it changed since the last call (moved by the server, or by
    /// this watcher to follow the default); nil otherwise, when no event came since, or when
    /// the server cannot say yet (then it looks again after `retrySeconds`). The reading
    /// thread calls it after each pass of the main loop.
    func poll() -> Change? {
        let retry = retryAt.map { monotonicSeconds() >= $0 } ?? false
        guard connection.changed || retry else { return nil }
        connection.changed = false
        retryAt = nil
        let s = scan()
        guard s.complete, let stream = s.stream, var current = s.sources[stream.source]?.name else {
            lookAgain()
            return nil
        }
        if let last = lastDefault, last != s.defaultSource { switchedUntil = monotonicSeconds() + 2 }
        lastDefault = s.defaultSource
        if followsDefault, let target = target(s, current: current), target != current {
            guard s.sources.values.contains(where: { $0.name == target }) else {
                lookAgain()  // a default the server names before it lists it
                return nil
            }
            return target == reported ? nil : .follow(target)
        }
        retries = 0
        if let target = target(s, current: current), target != current,
           let targetIndex = s.sources.first(where: { $0.value.name == target })?.key {
            // By index: pipewire-pulse does not find a monitor by its name here.
            try? connection.finish(until: monotonicSeconds() + Self.answerSeconds, pa.context_move_source_output_by_index(
                connection.context, stream.output, targetIndex, nil, nil))
            // Where it is now, as the server says.
            let after = scan()
            current = after.stream.flatMap { after.sources[$0.source]?.name } ?? current
        }
        guard current != reported else { return nil }
        reported = current
        return .moved(current)
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
    private func target(_ s: Scan, current: String) -> String? {
        switch wanted {
        case .defaultSource: return s.defaultSource.isEmpty ? nil : s.defaultSource
        case .defaultMonitor: return s.sources.values.first { $0.monitorOf == s.defaultSink }?.name
        case .named(let name):
            // Moved along with a default switch: back to the named source.
            return monotonicSeconds() < switchedUntil && current == s.defaultSource ? name : nil
        }
    }
}
