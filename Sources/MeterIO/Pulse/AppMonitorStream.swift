import CPulse
import Glibc
import MeterCore
import Synchronization

/// What one application plays (`-d app:NAME`, `app:PID`): a record stream on the monitor of
/// each of its playback streams' sinks, restricted to that stream
/// (`pa_stream_set_monitor_stream` before `pa_stream_connect_record`, as pavucontrol's
/// per-stream meters do). The simple API cannot express this, so this kind of source uses the
/// asynchronous API: a `pa_threaded_mainloop` and a `pa_context` subscribed to sink-input
/// events (`pa_context_subscribe`), so streams are followed as they come and go: each event
/// starts a look at the sink inputs on the loop's thread, whose answers set the followers
/// there; the reads never wait for it.
///
/// Reads are the capture thread's: each one sums the streams' audio (several streams of the
/// application at once are mixed) and converts it to the session's sample format. While the
/// application plays nothing, reads deliver silence at the audio's pace, so the meter, the
/// recording and `--duration` go on; while it plays, only its audio, never invented silence
/// (see `read`); `takeDeviceChange` says when the number of streams changes (0: waiting).
///
/// Thread-safety invariant for `@unchecked Sendable`: the followers, their buffers and the
/// looks run under the threaded main loop's lock (callbacks run with it held); the
/// capture thread alone calls `read` and `takeDeviceChange`.
public final class AppMonitorStream: LiveCapture, @unchecked Sendable {
    public let app: AppSelector
    public let rate: Int
    public let channels: Int
    public let format: SampleFormat
    public let channelNames: [String]
    public private(set) var lastError = ""
    public var captureName: String? { app.device }

    let pulse: ThreadedPulseContext
    private let map: pa_channel_map
    private var followers: [Int: AppStreamFollower] = [:]
    /// The look at the sink inputs under way, and whether something changed meanwhile (then
    /// another look follows it).
    private var looking: PlaybackStreamCollector?
    private var lookAgain = false
    /// The first look has answered: until then nobody knows whether the application plays, and
    /// a read waits rather than hand out silence.
    private var answered = false
    private var announced: Int?
    /// When the read's audio is due (monotonic seconds): the clock silence is paced by, and
    /// against which a stream is late.
    private var due = 0.0
    /// The application's audio has been handed out since its streams appeared.
    private var playing = false
    /// Since when every stream has been behind (monotonic seconds; nil: none is).
    private var outageSince: Double?
    /// An outage over, not yet taken by the capture loop.
    private var gap: StreamGap?
    private let mix = ScratchBuffer<Float>()
    /// Wakes a read when the run is stopped.
    private var stop: (Cancellation, Cancellation.Registration)?

    /// Connects and subscribes to sink-input events; throws `cannotConnect` when no server answers.
    /// Nothing of the application needs to be playing yet. Cancelling `cancellation` ends the
    /// connect (`PulseError`) and a read (`StopRequested`) at once.
    public init(app: AppSelector, rate: Int, channels: Int, format: SampleFormat = .s16,
                cancellation: Cancellation? = nil) throws(PulseError) {
        (self.app, self.rate, self.channels, self.format) = (app, rate, channels, format)
        try PulseLibrary.require()
        map = PulseStream.channelMap(channels: channels, device: nil)
        channelNames = map.names
        let pulse = try ThreadedPulseContext(subscribe: PA_SUBSCRIPTION_MASK_SINK_INPUT, cancellation: cancellation)
        self.pulse = pulse
        stop = cancellation.map { ($0, $0.onCancel { pulse.interrupt() }) }
        // Unowned and unchecked: the loop's thread runs it only until `deinit` stops that thread,
        // which waits for a callback under way (a checked reference would trap in that window).
        pulse.locked {
            pulse.onChange = { [unowned(unsafe) self] in look() }
            look()  // the first: what already plays
        }
    }

    deinit {
        if let (cancellation, registration) = stop { cancellation.remove(registration) }
        pulse.stop()
        for f in followers.values { f.disconnect() }
    }

    /// Asks for the sinks and sink inputs again (after another look under way, if one is);
    /// `follow` acts on the answer. On the loop's thread or with its lock held.
    private func look() {
        guard looking == nil else {
            lookAgain = true
            return
        }
        let c = PlaybackStreamCollector { [unowned(unsafe) self] in looked($0) }
        looking = c
        c.listBoth(pulse.context)
    }

    /// A look's answer, on the loop's thread: the followers set from it, a read waiting told,
    /// and the next look started if something changed meanwhile.
    private func looked(_ c: PlaybackStreamCollector) {
        looking = nil
        answered = true
        follow(c.streams)
        pulse.wake.signal()
        if lookAgain {
            lookAgain = false
            look()
        }
    }

    /// Follows each new stream of the application among `streams`, drops the streams that
    /// ended or moved (a moved one is followed again on its new sink).
    private func follow(_ streams: [PlaybackStream]) {
        let context = pulse.context
        let mine = Dictionary(streams.filter { $0.belongs(to: app) }.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        for (index, f) in followers where f.ended || mine[index]?.monitorSource != f.monitorSource {
            f.disconnect()
            followers[index] = nil
        }
        for (index, s) in mine where followers[index] == nil {
            let spec = pa_sample_spec(format: CPulse_SAMPLE_FLOAT32NE, rate: UInt32(rate), channels: UInt8(channels))
            followers[index] = AppStreamFollower(context: context, stream: s, spec: spec, map: map, pulse: pulse,
                                                 fragmentBytes: max(1, rate / 100) * channels * 4)
        }
    }

    /// The change of what is metered since the last call: the number of the application's
    /// streams followed (0: waiting for it); nil when nothing changed.
    public func takeDeviceChange() -> DeviceChange? {
        let n = pulse.locked { followers.values.filter { !$0.ended }.count }
        guard n != announced else { return nil }
        announced = n
        return DeviceChange(ts: unixSeconds(), source: app.device, streams: n)
    }

    /// How long a followed stream that has not delivered yet holds back the first frames of an
    /// application that starts playing (the server starts a monitor stream 0.8 to 1.8 s after
    /// it connects), so that the first frame already sums every stream.
    static let startWait = 3.0
    /// How long after its first stream appears an application's first frame waits at least,
    /// so that streams it opens together (a player on two sinks) start in the same frame.
    static let settle = 0.5
    /// How long past its due time a read waits for a stream that fell behind the others: on a
    /// loaded machine PulseAudio 16 delivered one of two streams more than 0.5 s after the
    /// other (a stream that stopped, a paused tab, holds the meter this long, then leaves).
    static let lateness = 2.0
    /// At most this much audio waits in a stream ahead of the others (seconds): more than
    /// `lateness`, so waiting for a late stream costs the others nothing.
    static let backlog = 3.0

    /// Fills `bytes` bytes with the application's streams summed, as soon as every stream
    /// counted has delivered its share. While the application plays nothing: silence paced by
    /// the clock. Never silence for a stream that plays: until the application's audio first
    /// arrives the read waits for it (frames start when its audio does, as a sink's monitor's
    /// do); a stream that falls 2 s behind the others leaves the mix until it delivers again;
    /// when every stream falls behind, the read waits, and the time missing becomes a gap
    /// (`takeGap`). Throws `PulseError` when the server goes away, `StopRequested` when the run
    /// is stopped.
    public func read(_ buffer: UnsafeMutableRawPointer, bytes: Int) throws {
        let frames = bytes / (channels * format.bytesPerSample)
        let samples = frames * channels
        let start = monotonicSeconds()
        if due < start - 0.5 { due = start }  // the first read, or after a stall
        due += Double(frames) / Double(rate)
        let out = mix.pointer(count: samples)
        while true {
            if let (cancellation, _) = stop, cancellation.isCancelled { throw StopRequested() }
            if pulse.lost.load(ordering: .acquiring) {
                lastError = pulse.errorText
                throw PulseError.streamLost(reason: lastError)
            }
            let now = monotonicSeconds()
            let step = pulse.locked { mixStep(into: out, samples: samples, seconds: Double(frames) / Double(rate), now: now) }
            switch step {
            case .mixed:
                due = max(due, now)
            case .silence:
                break
            case .wait(let until):
                if let until { pulse.wake.wait(seconds: max(0.001, until - now)) } else { pulse.wake.wait() }
                continue
            }
            break
        }
        SampleConversion.samples(from: UnsafePointer(out), format: format, into: buffer, count: samples)
    }

    private enum Step {
        /// `out` holds the streams' audio summed.
        case mixed
        /// `out` holds silence: the application plays nothing.
        case silence
        /// Nothing to hand out yet: wait for audio, or until the time given (monotonic seconds).
        case wait(until: Double?)
    }

    /// One look at the streams, the main loop's lock held: sums a read's `samples` into `out`
    /// when it can, else says how long to wait. `seconds`: the read's length.
    private func mixStep(into out: UnsafeMutablePointer<Float>, samples: Int, seconds: Double, now: Double) -> Step {
        guard answered else { return .wait(until: nil) }
        let active = followers.values.filter { !$0.ended }
        if active.isEmpty {
            (playing, outageSince) = (false, nil)
            guard now >= due else { return .wait(until: due) }
            out.update(repeating: 0, count: samples)
            return .silence
        }
        let counted = active.filter(\.started)
        let full = counted.filter { $0.available >= samples }
        if !playing {
            // The application's first frame: every stream it opened together, each with its
            // first share, the longer ones cut to the shortest (each stream's newest audio is
            // now), so the sum starts in step; a stream that started and stays short past
            // the deadline leaves the sum as below.
            let settled = active.map(\.followedAt).min()! + Self.settle
            let holding = active.filter { !$0.started && now < $0.followedAt + Self.startWait }
            if counted.isEmpty || !holding.isEmpty || now < settled {
                return .wait(until: counted.isEmpty && holding.isEmpty ? nil
                             : (holding.map { $0.followedAt + Self.startWait } + [settled]).filter { $0 > now }.min())
            }
            let lastStart = counted.map(\.startedAt).max()!
            if full.isEmpty || (full.count < counted.count && now < lastStart + Self.lateness) {
                return .wait(until: full.isEmpty ? nil : lastStart + Self.lateness)
            }
            for f in counted where f.available < samples { f.fallOut() }
            let shortest = full.map(\.available).min()!
            for f in full { f.dropOldest(keeping: shortest) }
            due = now  // the clock a stream is late against starts with the audio
        } else if full.count < counted.count {
            if now < due + Self.lateness { return .wait(until: due + Self.lateness) }
            if full.isEmpty {
                if outageSince == nil { outageSince = due - seconds }
                return .wait(until: nil)
            }
            for f in counted where f.available < samples { f.fallOut() }
        }
        out.update(repeating: 0, count: samples)
        for f in full { f.take(into: out, count: samples, keep: Int(Self.backlog * Double(rate)) * channels) }
        playing = true
        if let since = outageSince {
            let toUnix = unixSeconds() - now
            gap = StreamGap(pos: 0, startTs: since + toUnix, endTs: now + toUnix, seconds: max(0, now - since), reason: .underrun)
            outageSince = nil
        }
        return .mixed
    }

    /// The time the application's streams delivered nothing while it played, once its audio
    /// came back (the capture loop sets the position); nil when there was none.
    public func takeGap() -> StreamGap? {
        defer { gap = nil }
        return gap
    }
}
