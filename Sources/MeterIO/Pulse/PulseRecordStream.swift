import CPulse
import Glibc
import MeterCore

/// A record stream on a `PulseDevices` connection (`pa_stream_new`, `pa_stream_connect_record`,
/// then `pa_stream_peek` / `pa_stream_drop`), that connection's `pa_mainloop` driven by the
/// reading thread: the one connection that found the device and its native format also
/// carries the audio. Native-endian samples in `format`; fragments of `fragmentFrames`, the
/// size of the caller's reads, so each read is about one delivery from the server.
///
/// Owned by one thread at a time (opened by the caller, then read by the capture thread);
/// `@unchecked Sendable` only so it can be handed to that thread once.
public final class PulseRecordStream: LiveCapture, @unchecked Sendable {
    public let device: String?
    public private(set) var lastError = ""
    private let connection: PulseDevices
    private let stream: OpaquePointer
    /// The fragment being read (`pa_stream_peek`; nil data: a hole), until dropped.
    private var fragment: (data: UnsafeRawPointer?, bytes: Int, offset: Int)?

    /// Resolves `device` on `connection` (as `PulseDevices.resolve`: special names, indexes,
    /// an unknown name an error), then connects the stream; a server that accepts it but never
    /// starts it (pipewire-pulse without a session manager) fails after `startTimeout` s.
    public init(on connection: PulseDevices, device: String?, rate: Int, channels: Int, format: SampleFormat = .s16,
                fragmentFrames: Int, name: String = "pulsemeter", startTimeout: Double = 4) throws(PulseError) {
        self.connection = connection
        let resolved = try connection.resolve(device, direction: .record)?.name
        self.device = resolved
        var spec = pa_sample_spec(format: PulseStream.paFormat(format), rate: UInt32(rate), channels: UInt8(channels))
        // As `PulseStream`: wider than 6 channels, the WAVE order then auxiliary channels.
        var map = pa_channel_map()
        let wide = channels > 6
        if wide { pa_channel_map_init_extend(&map, UInt32(channels), PA_CHANNEL_MAP_WAVEEX) }
        guard let s = wide ? pa_stream_new(connection.context, name, &spec, &map)
                           : pa_stream_new(connection.context, name, &spec, nil) else {
            throw PulseStream.openError(pa_context_errno(connection.context), device: resolved, direction: .record)
        }
        stream = s
        let unset = UInt32.max
        var attr = pa_buffer_attr(maxlength: unset, tlength: unset, prebuf: unset, minreq: unset,
                                  fragsize: UInt32(fragmentFrames * channels * format.bytesPerSample))
        guard pa_stream_connect_record(s, resolved, &attr, CPulse_RECORD_FLAGS) == 0 else {
            throw PulseStream.openError(pa_context_errno(connection.context), device: resolved, direction: .record)
        }
        let deadline = monotonicSeconds() + startTimeout
        while pa_stream_get_state(s) != PA_STREAM_READY {
            let state = pa_stream_get_state(s)
            if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
                throw PulseStream.openError(pa_context_errno(connection.context), device: resolved, direction: .record)
            }
            guard monotonicSeconds() < deadline else { throw .streamNeverStarted(server: PulseStream.serverDescription) }
            connection.iterate(pollingAtMost: 100_000)
        }
    }

    deinit {
        if fragment != nil { pa_stream_drop(stream) }
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
    }

    public var captureName: String? { device }

    /// Fills `bytes` bytes at `buffer` with captured audio; blocks until full (a hole in the
    /// server's data reads as silence). Throws when the stream or the connection fails.
    public func read(_ buffer: UnsafeMutableRawPointer, bytes: Int) throws(PulseError) {
        var filled = 0
        while filled < bytes {
            if fragment == nil { fragment = try nextFragment() }
            guard let f = fragment else { continue }
            let n = min(f.bytes - f.offset, bytes - filled)
            if let data = f.data { memcpy(buffer + filled, data + f.offset, n) } else { memset(buffer + filled, 0, n) }
            filled += n
            if f.offset + n == f.bytes {
                pa_stream_drop(stream)
                fragment = nil
            } else {
                fragment = (f.data, f.bytes, f.offset + n)
            }
        }
    }

    /// The next fragment the server delivered, sleeping in the main loop until there is one.
    private func nextFragment() throws(PulseError) -> (data: UnsafeRawPointer?, bytes: Int, offset: Int) {
        while true {
            guard pa_stream_get_state(stream) == PA_STREAM_READY else { throw lost() }
            if pa_stream_readable_size(stream) > 0 {
                var data: UnsafeRawPointer?
                var n = 0
                guard pa_stream_peek(stream, &data, &n) == 0 else { throw lost() }
                if n > 0 { return (data, n, 0) }
            }
            connection.iterate(pollingAtMost: -1)
        }
    }

    private func lost() -> PulseError {
        lastError = String(cString: pa_strerror(pa_context_errno(connection.context)))
        return .streamLost(reason: lastError)
    }
}
