import CPulse
import MeterCore

/// A PulseAudio simple-API stream (`pa_simple_new`), for recording (`pa_simple_read`) or
/// playback (`pa_simple_write`), s16 native-endian.
///
/// Owned by one thread at a time: the capture thread reads, `play`'s audio thread writes;
/// `@unchecked Sendable` only so it can be handed to that thread once.
public final class PulseStream: @unchecked Sendable {
    public enum Direction: Sendable { case record, playback }

    public let rate: Int
    public let channels: Int
    public let device: String?
    private var handle: OpaquePointer?
    /// Why the last read or write failed (`pa_strerror`), for the caller's message.
    public private(set) var lastError = ""

    /// The server the library will contact, for messages: $PULSE_SERVER or the default.
    public static var serverDescription: String {
        if let s = ProcessEnvironment.get("PULSE_SERVER"), !s.isEmpty { return "PulseAudio server \(s)" }
        return "the PulseAudio server"
    }

    /// Opens a stream. Record streams ask for fragments of `fragmentFrames` (default ~10 ms),
    /// the size of the caller's reads, so each read is one delivery from the server; playback
    /// streams keep a short target buffer so pausing is heard at once.
    public init(direction: Direction, device: String?, rate: Int, channels: Int,
                name: String = "pulsemeter", latencyMs: Int = 10, fragmentFrames: Int? = nil) throws(PulseError) {
        self.rate = rate
        self.channels = channels
        self.device = device
        var spec = pa_sample_spec(format: CPulse_SAMPLE_S16NE, rate: UInt32(rate), channels: UInt8(channels))
        let bytes = UInt32((fragmentFrames ?? max(1, rate * latencyMs / 1000)) * channels * 2)
        let unset = UInt32.max
        var attr: pa_buffer_attr
        switch direction {
        case .record:
            attr = pa_buffer_attr(maxlength: unset, tlength: unset, prebuf: unset, minreq: unset, fragsize: bytes)
        case .playback:
            attr = pa_buffer_attr(maxlength: unset, tlength: bytes, prebuf: unset, minreq: unset, fragsize: unset)
        }
        var err: Int32 = 0
        let dir: pa_stream_direction_t = direction == .record ? PA_STREAM_RECORD : PA_STREAM_PLAYBACK
        handle = pa_simple_new(nil, "pulsemeter", dir, device, name, &spec, nil, &attr, &err)
        guard handle != nil else {
            throw Self.openError(err, device: device, direction: direction)
        }
    }

    deinit { if let handle { pa_simple_free(handle) } }

    static func openError(_ err: Int32, device: String?, direction: Direction) -> PulseError {
        let reason = String(cString: pa_strerror(err))
        if err == Int32(PA_ERR_NOENTITY.rawValue), let device {
            return .noSuchDevice(direction, name: device, server: serverDescription)
        }
        if err == Int32(PA_ERR_CONNECTIONREFUSED.rawValue) || err == Int32(PA_ERR_INVALIDSERVER.rawValue)
            || err == Int32(PA_ERR_TIMEOUT.rawValue) || err == Int32(PA_ERR_ACCESS.rawValue) {
            return .cannotConnect(server: serverDescription, reason: reason)
        }
        return .cannotOpen(direction, device: device, reason: reason)
    }

    /// Fills `bytes` bytes at `buffer` with captured audio (`pa_simple_read`); blocks until full.
    public func read(_ buffer: UnsafeMutableRawPointer, bytes: Int) throws(PulseError) {
        var err: Int32 = 0
        guard let handle, pa_simple_read(handle, buffer, bytes, &err) >= 0 else {
            lastError = String(cString: pa_strerror(err))
            throw .streamLost(reason: lastError)
        }
    }

    /// Queues `bytes` bytes for playback (`pa_simple_write`); blocks while the buffer is full.
    public func write(_ buffer: UnsafeRawPointer, bytes: Int) throws(PulseError) {
        var err: Int32 = 0
        guard let handle, pa_simple_write(handle, buffer, bytes, &err) >= 0 else {
            lastError = String(cString: pa_strerror(err))
            throw .streamLost(reason: lastError)
        }
    }

    /// Drops everything buffered for playback (`pa_simple_flush`), so a pause is heard at once.
    public func flush() {
        var err: Int32 = 0
        if let handle { _ = pa_simple_flush(handle, &err) }
    }

    /// Waits until everything written has played (`pa_simple_drain`).
    public func drain() {
        var err: Int32 = 0
        if let handle { _ = pa_simple_drain(handle, &err) }
    }

    /// Microseconds of audio between the application and the speaker (`pa_simple_get_latency`).
    public func latencyMicroseconds() -> UInt64 {
        var err: Int32 = 0
        guard let handle else { return 0 }
        return pa_simple_get_latency(handle, &err)
    }
}
