import CPulse
import Glibc
import MeterCore
import Synchronization

/// Keeps a simple-API record stream on the device the user asked for, and says where it is:
/// subscribed to server and source-output events (`ThreadedPulseContext`), it finds the
/// stream by its unique name among the source outputs (`pa_context_get_source_output_info_list`,
/// `media.name`) and compares its source with what is wanted.
///
/// - The default source (no `-d`, `@DEFAULT_SOURCE@`) or the default sink's monitor
///   (`@DEFAULT_MONITOR@`): when the default changes and the server did not move the stream
///   there, `take` says to follow it (`PulseStream` opens the stream again there).
/// - A named source: kept. When the server moved the stream because the default changed, it
///   is moved back; when it moved for another reason (a user dragged it in pavucontrol), it
///   stays where it went.
///
/// It works on a thread of its own (`pm-watch`), woken by the events, so that it acts even
/// while the capture thread is blocked in a read of a source that delivers nothing; `take`
/// (the capture thread, between reads) returns the stream's new source when it changed.
///
/// Thread-safety invariant for `@unchecked Sendable`: `reported` and `lastDefault` belong to
/// the watch thread; `pending` is a Mutex.
final class SourceWatcher: @unchecked Sendable {
    enum Wanted: Equatable { case defaultSource, defaultMonitor, named(String) }
    /// The stream is on another source now (`moved`), or should follow the default there.
    enum Change: Equatable { case moved(String), follow(String) }

    private let pulse: ThreadedPulseContext
    private let streamName: String
    private let wanted: Wanted
    private var reported: String
    private var lastDefault: String?
    /// Until then, a move of a named source's stream onto the default is the server following
    /// a default switch (its events for the switch and the move may come in either order).
    private var switchedUntil = 0.0
    private let pending = Mutex<Change?>(nil)
    /// The source the owner reopened the stream on (`followed`), for the watch thread.
    private let reopened = Mutex<String?>(nil)
    private let stopping = Atomic<Bool>(false)

    init(streamName: String, wanted: Wanted, current: String) throws(PulseError) {
        pulse = try ThreadedPulseContext(subscribe: pa_subscription_mask_t(
            rawValue: PA_SUBSCRIPTION_MASK_SERVER.rawValue | PA_SUBSCRIPTION_MASK_SOURCE_OUTPUT.rawValue))
        self.streamName = streamName
        self.wanted = wanted
        reported = current
        lastDefault = pulse.locked { scan().defaultSource }
        pulse.changed.store(false, ordering: .releasing)
        try? OSThread.spawn(role: "pm-watch") { [weak self, pulse] in
            while true {
                pulse.wake.wait()
                guard let me = self, !me.stopping.load(ordering: .acquiring) else { return }
                if let moved = me.poll() { me.pending.withLock { $0 = moved } }
            }
        }
    }

    deinit {
        stopping.store(true, ordering: .releasing)
        pulse.stop()  // first: no callback may be the last to let go of the connection
        pulse.wake.signal()
    }

    /// The stream's source, when it changed since the last call.
    func take() -> Change? {
        pending.withLock { p in defer { p = nil }; return p }
    }

    /// The owner opened the stream again on `source` (after `.follow`).
    func followed(_ source: String) {
        reopened.withLock { $0 = source }
        pulse.changed.store(true, ordering: .releasing)
        pulse.wake.signal()
    }

    /// What the server says now: the defaults, the sources, and our stream's source.
    private final class Scan {
        var defaultSource = "", defaultSink = ""
        var sources: [UInt32: (name: String, monitorOf: String?)] = [:]
        /// Our source output's index and its source's.
        var stream: (output: UInt32, source: UInt32)?
        let streamName: String
        let mainloop: OpaquePointer
        init(streamName: String, mainloop: OpaquePointer) { (self.streamName, self.mainloop) = (streamName, mainloop) }
        static func from(_ ud: UnsafeMutableRawPointer?) -> Scan { Unmanaged<Scan>.fromOpaque(ud!).takeUnretainedValue() }
        func done() { pa_threaded_mainloop_signal(mainloop, 0) }
    }

    /// One look at the server (lock held).
    private func scan() -> Scan {
        let s = Scan(streamName: streamName, mainloop: pulse.mainloop)
        let ud = Unmanaged.passUnretained(s).toOpaque()
        let ctx = pulse.context
        withExtendedLifetime(s) {
            pulse.finish(pa_context_get_server_info(ctx, { _, info, ud in
                let s = Scan.from(ud)
                if let i = info?.pointee {
                    s.defaultSource = i.default_source_name.map { String(cString: $0) } ?? ""
                    s.defaultSink = i.default_sink_name.map { String(cString: $0) } ?? ""
                }
                s.done()
            }, ud))
            pulse.finish(pa_context_get_source_info_list(ctx, { _, info, eol, ud in
                let s = Scan.from(ud)
                if eol != 0 { s.done(); return }
                guard let i = info?.pointee else { return }
                let monitorOf = i.monitor_of_sink != CPulse_INVALID_INDEX ? i.monitor_of_sink_name.map { String(cString: $0) } : nil
                s.sources[i.index] = (String(cString: i.name), monitorOf)
            }, ud))
            pulse.finish(pa_context_get_source_output_info_list(ctx, { _, info, eol, ud in
                let s = Scan.from(ud)
                if eol != 0 { s.done(); return }
                guard let i = info?.pointee, let name = pa_proplist_gets(i.proplist, "media.name"),
                      String(cString: name) == s.streamName else { return }
                s.stream = (i.index, i.source)
            }, ud))
        }
        return s
    }

    /// The stream's source when it changed since the last call (moved by the server, or by
    /// this watcher to follow the default); nil otherwise, or when the server cannot say.
    private func poll() -> Change? {
        guard !pulse.lost.load(ordering: .acquiring),
              pulse.changed.exchange(false, ordering: .acquiringAndReleasing) else { return nil }
        if let r = reopened.withLock({ r in defer { r = nil }; return r }) { reported = r }
        return pulse.locked { () -> Change? in
            let s = scan()
            if let last = lastDefault, last != s.defaultSource { switchedUntil = monotonicSeconds() + 2 }
            lastDefault = s.defaultSource
            guard let stream = s.stream, var current = s.sources[stream.source]?.name else { return nil }
            if followsDefault, let target = target(s, current: current), target != current,
               s.sources.values.contains(where: { $0.name == target }) {
                return target == reported ? nil : .follow(target)
            }
            if let target = target(s, current: current), target != current,
               let targetIndex = s.sources.first(where: { $0.value.name == target })?.key {
                // By index: pipewire-pulse does not find a monitor by its name here.
                let ctx = pulse.context
                pulse.finish(pa_context_move_source_output_by_index(ctx, stream.output, targetIndex, { _, _, ud in
                    Scan.from(ud).done()
                }, Unmanaged.passUnretained(s).toOpaque()))
                // Where it is now, as the server says.
                let after = scan()
                current = after.stream.flatMap { after.sources[$0.source]?.name } ?? current
            }
            guard current != reported else { return nil }
            reported = current
            return .moved(current)
        }
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
