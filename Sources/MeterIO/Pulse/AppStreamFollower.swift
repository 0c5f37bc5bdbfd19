import CPulse
import MeterCore

/// One playback stream of an application, recorded through its sink's monitor
/// (`pa_stream_new`, `pa_stream_set_monitor_stream`, `pa_stream_connect_record`): when the
/// stream moves, the server ends this one (it ends a stream's direct monitors) and the owner
/// follows it anew. Not `PA_STREAM_DONT_MOVE`: with it PulseAudio 16 delivered nothing from the
/// monitor of a sink other than the default one (a stream on a second null sink: nothing in
/// 8 s, where the same stream without the flag delivers within 0.1 s). What arrives (`pa_stream_peek` / `pa_stream_drop` in the read callback) waits in a
/// buffer of Float samples until `AppMonitorStream.read` takes it.
///
/// Used only under the owner's threaded main loop lock (its callbacks run with it held).
final class AppStreamFollower {
    let monitorSource: String
    private let stream: OpaquePointer
    private unowned let pulse: ThreadedPulseContext
    private var buffer: [Float] = []
    /// The stream failed or was terminated (the playback stream ended or moved).
    private(set) var ended = false
    /// Audio has arrived since the stream was followed (or since it last fell out of the mix):
    /// the server delivers a monitor stream's first audio 0.8 to 1.8 s after it connects.
    private(set) var started = false
    /// When it last started (monotonic seconds).
    private(set) var startedAt = 0.0
    /// When the stream was followed (monotonic seconds).
    let followedAt = monotonicSeconds()
    private let channels: Int

    init?(context: OpaquePointer, stream s: PlaybackStream, spec: pa_sample_spec, map: pa_channel_map,
          pulse: ThreadedPulseContext, fragmentBytes: Int) {
        var spec = spec, map = map
        guard let st = pa.stream_new(context, "pulsemeter app monitor", &spec, &map) else { return nil }
        stream = st
        monitorSource = s.monitorSource
        channels = Int(spec.channels)
        self.pulse = pulse
        buffer.reserveCapacity(Int(spec.rate) * Int(spec.channels))
        let ud = Unmanaged.passUnretained(self).toOpaque()
        pa.stream_set_read_callback(st, { st, _, ud in
            guard let st, let ud else { return }
            let me = Unmanaged<AppStreamFollower>.fromOpaque(ud).takeUnretainedValue()
            var data: UnsafeRawPointer?
            var bytes = 0
            while pa.stream_peek(st, &data, &bytes) == 0 && bytes > 0 {
                if let data {  // nil: a hole in the stream, nothing to keep
                    me.receive(UnsafeBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: bytes / 4))
                }
                _ = pa.stream_drop(st)
            }
            me.pulse.wake.signal()
        }, ud)
        pa.stream_set_state_callback(st, { st, ud in
            guard let st, let ud else { return }
            let state = pa.stream_get_state(st)
            guard state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED else { return }
            let me = Unmanaged<AppStreamFollower>.fromOpaque(ud).takeUnretainedValue()
            me.ended = true
            me.pulse.onChange?()  // ended or moved: the owner looks again
            me.pulse.wake.signal()
        }, ud)
        _ = pa.stream_set_monitor_stream(st, UInt32(s.index))
        let unset = UInt32.max
        var attr = pa_buffer_attr(maxlength: unset, tlength: unset, prebuf: unset, minreq: unset,
                                  fragsize: UInt32(fragmentBytes))
        let flags = PA_STREAM_ADJUST_LATENCY
        if pa.stream_connect_record(st, s.monitorSource, &attr, flags) < 0 { ended = true }
    }

    /// Samples waiting.
    var available: Int { buffer.count }

    /// Keeps what the server delivered. A monitor stream can begin with the server's zeros
    /// (PulseAudio 16 sent a whole first fragment of them in about half the tries, with five
    /// streams starting at once), which are not the application's audio: until its first
    /// sample that is not zero, or until `AppMonitorStream.startWait` has passed, the stream
    /// has not started and its zeros are dropped (whole frames).
    private func receive(_ samples: UnsafeBufferPointer<Float>) {
        var from = 0
        if !started {
            let now = monotonicSeconds()
            if now < followedAt + AppMonitorStream.startWait {
                guard let first = samples.firstIndex(where: { $0 != 0 }) else { return }
                from = first - first % channels
            }
            (started, startedAt) = (true, now)
        }
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: samples[from...]))
    }

    /// Adds up to `count` waiting samples into `out` (what is missing adds nothing), then
    /// keeps at most `keep` samples waiting (the oldest go: a stream delivering faster than
    /// the others, or in a burst, must not add latency without bound).
    func take(into out: UnsafeMutablePointer<Float>, count: Int, keep: Int) {
        let n = min(count, buffer.count)
        buffer.withUnsafeBufferPointer { b in
            for i in 0..<n { out[i] += b[i] }
        }
        buffer.removeFirst(n)
        if buffer.count > keep { buffer.removeFirst(buffer.count - keep) }
    }

    /// Drops the oldest samples waiting, keeping the newest `count`.
    func dropOldest(keeping count: Int) {
        if buffer.count > count { buffer.removeFirst(buffer.count - count) }
    }

    /// Takes the stream out of the mix until it delivers again (it fell behind the others): what
    /// it holds is dropped, so that it rejoins in step with its new audio.
    func fallOut() {
        buffer.removeAll(keepingCapacity: true)
        started = false
    }

    /// Ends the recording stream (`pa_stream_disconnect`); no callback runs after this.
    func disconnect() {
        pa.stream_set_read_callback(stream, nil, nil)
        pa.stream_set_state_callback(stream, nil, nil)
        _ = pa.stream_disconnect(stream)
        pa.stream_unref(stream)
    }
}
