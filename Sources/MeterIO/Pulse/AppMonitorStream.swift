import CPulse
import Glibc
import MeterCore
import Synchronization

/// What one application plays (`-d app:NAME`, `app:PID`): a record stream on the monitor of
/// each of its playback streams' sinks, restricted to that stream
/// (`pa_stream_set_monitor_stream` before `pa_stream_connect_record`, as pavucontrol's
/// per-stream meters do). The simple API cannot express this, so this kind of source uses the
/// asynchronous API: a `pa_threaded_mainloop` and a `pa_context` subscribed to sink-input
/// events (`pa_context_subscribe`), so streams are followed as they come and go.
///
/// Reads are the capture thread's: each one sums the streams' audio (several streams of the
/// application at once are mixed) and converts it to the session's sample format. While the
/// application plays nothing, reads deliver silence at the audio's pace, so the meter, the
/// recording and `--duration` go on; `takeDeviceChange` says when the number of streams
/// changes (0: waiting).
///
/// Thread-safety invariant for `@unchecked Sendable`: the followers, their buffers and the
/// scan run under the threaded main loop's lock (callbacks run with it held); the
/// capture thread alone calls `read` and `takeDeviceChange`.
public final class AppMonitorStream: LiveCapture, @unchecked Sendable {
    public let app: AppSelector
    public let rate: Int
    public let channels: Int
    public let format: SampleFormat
    public let channelNames: [String]
    public private(set) var lastError = ""
    public var captureName: String? { app.device }

    private let mainloop: OpaquePointer
    private let context: OpaquePointer
    private let map: pa_channel_map
    let wake = Wakeup()
    /// Set by the subscription (and a follower's end): the sink inputs need a new look.
    let dirty = Atomic<Bool>(true)
    let contextLost = Atomic<Bool>(false)
    private var followers: [Int: AppStreamFollower] = [:]
    private var announced: Int?
    private var due = 0.0
    private let mix = ScratchBuffer<Float>()

    /// Connects and subscribes; fails (exit 69) when no server answers. Nothing of the
    /// application needs to be playing yet.
    public init(app: AppSelector, rate: Int, channels: Int, format: SampleFormat = .s16) throws(PulseError) {
        (self.app, self.rate, self.channels, self.format) = (app, rate, channels, format)
        map = PulseStream.channelMap(channels: channels, device: nil)
        channelNames = map.names
        guard let ml = pa_threaded_mainloop_new() else { throw .cannotStart(what: "a PulseAudio main loop") }
        mainloop = ml
        context = try PulseDevices.newContext(pa_threaded_mainloop_get_api(ml)) { pa_threaded_mainloop_free(ml) }
        try connect()
    }

    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func from(_ ud: UnsafeMutableRawPointer?) -> AppMonitorStream {
        Unmanaged<AppMonitorStream>.fromOpaque(ud!).takeUnretainedValue()
    }

    private func connect() throws(PulseError) {
        pa_context_set_state_callback(context, { ctx, ud in
            let me = AppMonitorStream.from(ud)
            let state = pa_context_get_state(ctx)
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                me.contextLost.store(true, ordering: .releasing)
                me.wake.signal()
            }
            pa_threaded_mainloop_signal(me.mainloop, 0)
        }, userdata)
        pa_context_set_subscribe_callback(context, { _, event, _, ud in
            let facility = event.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
            guard facility == PA_SUBSCRIPTION_EVENT_SINK_INPUT.rawValue else { return }
            let me = AppMonitorStream.from(ud)
            me.dirty.store(true, ordering: .releasing)
            me.wake.signal()
        }, userdata)
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0,
              pa_threaded_mainloop_start(mainloop) >= 0 else { throw connectError() }
        while true {
            let state = pa_context_get_state(context)
            if state == PA_CONTEXT_READY { break }
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED { throw connectError() }
            pa_threaded_mainloop_wait(mainloop)
        }
        let mask = PA_SUBSCRIPTION_MASK_SINK_INPUT.rawValue
        if let op = pa_context_subscribe(context, pa_subscription_mask_t(rawValue: mask), nil, nil) { pa_operation_unref(op) }
    }

    private func connectError() -> PulseError {
        .cannotConnect(server: PulseStream.serverDescription, reason: String(cString: pa_strerror(pa_context_errno(context))))
    }

    deinit {
        pa_threaded_mainloop_stop(mainloop)
        for f in followers.values { f.disconnect() }
        followers.removeAll()
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_threaded_mainloop_free(mainloop)
    }

    /// Runs `op` to its end, waiting on the main loop (its callbacks signal); lock held.
    private func finish(_ op: OpaquePointer?) {
        guard let op else { return }
        while pa_operation_get_state(op) == PA_OPERATION_RUNNING && !contextLost.load(ordering: .acquiring) {
            pa_threaded_mainloop_wait(mainloop)
        }
        pa_operation_unref(op)
    }

    /// Looks at the sink inputs again: follows each new stream of the application, drops the
    /// streams that ended or moved (a moved one is followed again on its new sink).
    private func rescan() {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        let c = PlaybackStreamCollector(threaded: mainloop)
        withExtendedLifetime(c) {
            finish(c.listSinks(context))
            finish(c.listInputs(context))
        }
        let mine = Dictionary(c.streams.filter { $0.belongs(to: app) }.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        for (index, f) in followers where f.ended || mine[index]?.monitorSource != f.monitorSource {
            f.disconnect()
            followers[index] = nil
        }
        for (index, s) in mine where followers[index] == nil {
            let spec = pa_sample_spec(format: CPulse_SAMPLE_FLOAT32NE, rate: UInt32(rate), channels: UInt8(channels))
            followers[index] = AppStreamFollower(context: context, stream: s, spec: spec, map: map, owner: self,
                                                 fragmentBytes: max(1, rate / 100) * channels * 4)
        }
    }

    /// The change of what is metered since the last call: the number of the application's
    /// streams followed (0: waiting for it); nil when nothing changed.
    public func takeDeviceChange() -> DeviceChange? {
        pa_threaded_mainloop_lock(mainloop)
        let n = followers.values.filter { !$0.ended }.count
        pa_threaded_mainloop_unlock(mainloop)
        guard n != announced else { return nil }
        announced = n
        return DeviceChange(ts: unixSeconds(), source: app.device, streams: n)
    }

    /// Fills `bytes` bytes with the application's streams summed: as soon as every stream has
    /// delivered its share; silence for what a stream has not delivered 0.2 s after the audio
    /// was due, and silence paced by the clock while there is no stream.
    public func read(_ buffer: UnsafeMutableRawPointer, bytes: Int) throws(PulseError) {
        let frames = bytes / (channels * format.bytesPerSample)
        let samples = frames * channels
        let start = monotonicSeconds()
        if due < start - 0.5 { due = start }  // the first read, or after a stall
        due += Double(frames) / Double(rate)
        let out = mix.pointer(count: samples)
        while true {
            if contextLost.load(ordering: .acquiring) {
                lastError = String(cString: pa_strerror(pa_context_errno(context)))
                throw .streamLost(reason: lastError)
            }
            if dirty.exchange(false, ordering: .acquiringAndReleasing) { rescan() }
            pa_threaded_mainloop_lock(mainloop)
            let active = followers.values.filter { !$0.ended }
            let now = monotonicSeconds()
            let ready = !active.isEmpty && active.allSatisfy { $0.available >= samples }
            let deadline = active.isEmpty ? due : due + 0.2
            if ready || now >= deadline {
                out.update(repeating: 0, count: samples)
                for f in active { f.take(into: out, count: samples, keep: rate / 2 * channels) }
                pa_threaded_mainloop_unlock(mainloop)
                if ready { due = max(due, now) }
                break
            }
            pa_threaded_mainloop_unlock(mainloop)
            wake.wait(seconds: max(0.001, deadline - now))
        }
        SampleConversion.samples(from: UnsafePointer(out), format: format, into: buffer, count: samples)
    }
}
