import CPulse
import MeterCore

/// One playback stream of an application, recorded through its sink's monitor
/// (`pa_stream_new`, `pa_stream_set_monitor_stream`, `pa_stream_connect_record` with
/// `PA_STREAM_DONT_MOVE`: when the stream moves, this one ends and the owner follows it
/// anew). What arrives (`pa_stream_peek` / `pa_stream_drop` in the read callback) waits in a
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

    init?(context: OpaquePointer, stream s: PlaybackStream, spec: pa_sample_spec, map: pa_channel_map,
          pulse: ThreadedPulseContext, fragmentBytes: Int) {
        var spec = spec, map = map
        guard let st = pa_stream_new(context, "pulsemeter app monitor", &spec, &map) else { return nil }
        stream = st
        monitorSource = s.monitorSource
        self.pulse = pulse
        buffer.reserveCapacity(Int(spec.rate) * Int(spec.channels))
        let ud = Unmanaged.passUnretained(self).toOpaque()
        pa_stream_set_read_callback(st, { st, _, ud in
            guard let st, let ud else { return }
            let me = Unmanaged<AppStreamFollower>.fromOpaque(ud).takeUnretainedValue()
            var data: UnsafeRawPointer?
            var bytes = 0
            while pa_stream_peek(st, &data, &bytes) == 0 && bytes > 0 {
                if let data {  // nil: a hole in the stream, nothing to keep
                    let p = data.assumingMemoryBound(to: Float.self)
                    me.buffer.append(contentsOf: UnsafeBufferPointer(start: p, count: bytes / 4))
                }
                pa_stream_drop(st)
            }
            me.pulse.wake.signal()
        }, ud)
        pa_stream_set_state_callback(st, { st, ud in
            guard let st, let ud else { return }
            let state = pa_stream_get_state(st)
            guard state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED else { return }
            let me = Unmanaged<AppStreamFollower>.fromOpaque(ud).takeUnretainedValue()
            me.ended = true
            me.pulse.changed.store(true, ordering: .releasing)
            me.pulse.wake.signal()
        }, ud)
        pa_stream_set_monitor_stream(st, UInt32(s.index))
        let unset = UInt32.max
        var attr = pa_buffer_attr(maxlength: unset, tlength: unset, prebuf: unset, minreq: unset,
                                  fragsize: UInt32(fragmentBytes))
        let flags = pa_stream_flags_t(rawValue: PA_STREAM_DONT_MOVE.rawValue | PA_STREAM_ADJUST_LATENCY.rawValue)
        if pa_stream_connect_record(st, s.monitorSource, &attr, flags) < 0 { ended = true }
    }

    /// Samples waiting.
    var available: Int { buffer.count }

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

    /// Ends the recording stream (`pa_stream_disconnect`); no callback runs after this.
    func disconnect() {
        pa_stream_set_read_callback(stream, nil, nil)
        pa_stream_set_state_callback(stream, nil, nil)
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
    }
}
