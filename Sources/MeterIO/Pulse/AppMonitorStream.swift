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

    let pulse: ThreadedPulseContext
    private let map: pa_channel_map
    private var followers: [Int: AppStreamFollower] = [:]
    private var announced: Int?
    private var due = 0.0
    private let mix = ScratchBuffer<Float>()
    /// Wakes a read when the run is stopped.
    private var stop: (Cancellation, Cancellation.Registration)?

    /// Connects and subscribes to sink-input events; throws `cannotConnect` when no server answers.
    /// Nothing of the application needs to be playing yet. Cancelling `cancellation` ends a
    /// read at once (`StopRequested`).
    public init(app: AppSelector, rate: Int, channels: Int, format: SampleFormat = .s16,
                cancellation: Cancellation? = nil) throws(PulseError) {
        (self.app, self.rate, self.channels, self.format) = (app, rate, channels, format)
        map = PulseStream.channelMap(channels: channels, device: nil)
        channelNames = map.names
        let pulse = try ThreadedPulseContext(subscribe: PA_SUBSCRIPTION_MASK_SINK_INPUT)
        self.pulse = pulse
        stop = cancellation.map { ($0, $0.onCancel { pulse.wake.signal() }) }
    }

    deinit {
        if let (cancellation, registration) = stop { cancellation.remove(registration) }
        pulse.stop()
        for f in followers.values { f.disconnect() }
    }

    /// Looks at the sink inputs again: follows each new stream of the application, drops the
    /// streams that ended or moved (a moved one is followed again on its new sink).
    private func rescan() {
        pulse.locked { rescanLocked() }
    }

    private func rescanLocked() {
        let context = pulse.context
        let c = PlaybackStreamCollector(threaded: pulse.mainloop)
        withExtendedLifetime(c) {
            pulse.finish(c.listSinks(context))
            pulse.finish(c.listInputs(context))
        }
        let mine = Dictionary(c.streams.filter { $0.belongs(to: app) }.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
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

    /// Fills `bytes` bytes with the application's streams summed: as soon as every stream has
    /// delivered its share; silence for what a stream has not delivered 0.2 s after the audio
    /// was due, and silence paced by the clock while there is no stream.
    /// Throws `PulseError` when the server goes away, `StopRequested` when the run is stopped.
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
            if pulse.changed.exchange(false, ordering: .acquiringAndReleasing) { rescan() }
            let now = monotonicSeconds()
            let (ready, deadline) = pulse.locked { () -> (Bool, Double) in
                let active = followers.values.filter { !$0.ended }
                let ready = !active.isEmpty && active.allSatisfy { $0.available >= samples }
                let deadline = active.isEmpty ? due : due + 0.2
                if ready || now >= deadline {
                    out.update(repeating: 0, count: samples)
                    for f in active { f.take(into: out, count: samples, keep: rate / 2 * channels) }
                }
                return (ready, deadline)
            }
            if ready || now >= deadline {
                if ready { due = max(due, now) }
                break
            }
            pulse.wake.wait(seconds: max(0.001, deadline - now))
        }
        SampleConversion.samples(from: UnsafePointer(out), format: format, into: buffer, count: samples)
    }
}
