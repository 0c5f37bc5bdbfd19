import CPulse
import Glibc
import MeterCore
import Synchronization

/// A PulseAudio simple-API stream (`pa_simple_new`) for playback (`pa_simple_write`),
/// native-endian samples in `format` (s16 unless asked: s24 in 32-bit words, s32, float; the
/// server converts to the device's own format). Capture uses `PulseRecordStream`, on the
/// connection that resolved the device.
///
/// Owned by one thread at a time: `play`'s audio thread writes;
/// `@unchecked Sendable` only so it can be handed to that thread once.
public final class PulseStream: @unchecked Sendable {
    public enum Direction: Sendable { case record, playback }

    public let rate: Int
    public let channels: Int
    public let format: SampleFormat
    public let device: String?
    /// The stream's channel map, one name per channel (`front-left`, `lfe`, `aux0`, ...).
    public let channelNames: [String]
    private var handle: OpaquePointer?
    /// Why the last read or write failed (`pa_strerror`), for the caller's message.
    public private(set) var lastError = ""

    /// The server the library will contact, for messages: $PULSE_SERVER or the default.
    public static var serverDescription: String {
        if let s = ProcessEnvironment.get("PULSE_SERVER"), !s.isEmpty { return "PulseAudio server \(s)" }
        return "the PulseAudio server"
    }

    /// Opens a stream on `device` (nil: the server's default). The name is first resolved and
    /// checked by introspection (`PulseDevices.resolve`: special names and indexes become real
    /// names, an unknown name is an error instead of a silent fallback to the default); then
    /// `pa_simple_new` runs on a helper thread so that a server that accepts the connection but
    /// never starts the stream (pipewire-pulse without a session manager) fails after
    /// `startTimeout` seconds rather than libpulse's 30. Record streams ask for fragments of
    /// `fragmentFrames` (default ~10 ms), the size of the caller's reads, so each read is one
    /// delivery from the server; playback streams keep a short target buffer so pausing is
    /// heard at once. A stop (`cancellation`) ends the opening's waits at once, the look and
    /// the stream's start alike, as if their time had run out (the owner says it was a stop;
    /// `pa_simple_new`, which nothing interrupts, is left to its thread, which frees what it
    /// gets).
    public init(direction: Direction, device: String?, rate: Int, channels: Int,
                format: SampleFormat = .s16, name: String = "pulsemeter", latencyMs: Int = 10,
                fragmentFrames: Int? = nil, startTimeout: Double = 4,
                cancellation: Cancellation? = nil) throws(PulseError) {
        self.rate = rate
        self.channels = channels
        self.format = format
        let found = try PulseDevices(timeout: startTimeout, cancellation: cancellation).resolve(device, direction: direction)
        let resolved = found?.name
        self.device = resolved
        let spec = pa_sample_spec(format: Self.paFormat(format), rate: UInt32(rate), channels: UInt8(channels))
        let bytes = UInt32((fragmentFrames ?? max(1, rate * latencyMs / 1000)) * channels * format.bytesPerSample)
        let unset = UInt32.max
        var attr: pa_buffer_attr
        switch direction {
        case .record:
            attr = pa_buffer_attr(maxlength: unset, tlength: unset, prebuf: unset, minreq: unset, fragsize: bytes)
        case .playback:
            attr = pa_buffer_attr(maxlength: unset, tlength: bytes, prebuf: unset, minreq: unset, fragsize: unset)
        }
        let map = Self.channelMap(channels: channels, device: direction == .record ? found : nil)
        channelNames = map.names
        opening = Opening(direction: direction, name: name, spec: spec, map: map, attr: attr, timeout: startTimeout)
        handle = try Self.open(opening, device: resolved, cancellation: cancellation)
    }

    /// What `open` needs, kept to open the stream again on another device.
    private struct Opening {
        var direction: Direction, name: String, spec: pa_sample_spec, map: pa_channel_map, attr: pa_buffer_attr
        var timeout: Double
    }
    private let opening: Opening

    /// `pa_simple_new` on a helper thread (see `Opener`), giving up after `o.timeout` or at once
    /// when `cancellation` fires.
    private static func open(_ o: Opening, device: String?, cancellation: Cancellation?) throws(PulseError) -> OpaquePointer {
        let opener = Opener(direction: o.direction, device: device, name: o.name, spec: o.spec, map: o.map, attr: o.attr)
        do {
            try OSThread.spawn(role: "pm-stream-open") { opener.open() }
        } catch {
            throw .cannotStart(what: "a thread to open the stream")
        }
        switch opener.wait(seconds: o.timeout, cancellation: cancellation) {
        case .opened(let h): return h
        case .failed(let err): throw openError(err, device: device, direction: o.direction)
        case nil: throw .streamNeverStarted(server: serverDescription)
        }
    }

    /// The map a stream of `channels` channels asks for: a record stream with the source's own
    /// channel count takes the source's map (so the names are the device's, a pro-audio
    /// device's `aux0`... included); otherwise the server's default map for 1 to 6 channels
    /// (`pa_channel_map_init_auto`), and for wider specs the WAVE order, then auxiliary
    /// channels (`pa_channel_map_init_extend`; the default covers no more than 6, and the
    /// stream would be refused with "Invalid argument").
    static func channelMap(channels: Int, device: PulseDevice?) -> pa_channel_map {
        var map = pa_channel_map()
        if let device, device.channelMap.count == channels,
           device.channelMap.joined(separator: ",").withCString({ pa.channel_map_parse(&map, $0) }) != nil,
           Int(map.channels) == channels {
            return map
        }
        if channels > 6 {
            _ = pa.channel_map_init_extend(&map, UInt32(channels), PA_CHANNEL_MAP_WAVEEX)
        } else {
            _ = pa.channel_map_init_auto(&map, UInt32(channels), PA_CHANNEL_MAP_DEFAULT)
        }
        return map
    }

    /// `pa_simple_new` on its own thread. If the caller stops waiting, the thread frees the
    /// handle it gets later (libpulse gives up by itself after 30 s).
    private final class Opener: @unchecked Sendable {
        /// `@unchecked Sendable`: the handle passes from the opening thread to the waiter once.
        enum Outcome: Equatable, @unchecked Sendable { case opened(OpaquePointer), failed(Int32) }
        // Invariant for @unchecked Sendable: the inputs are read by the opening thread only;
        // the outcome and `abandoned` are guarded by `state`.
        let direction: Direction, device: String?, name: String
        var spec: pa_sample_spec, map: pa_channel_map, attr: pa_buffer_attr
        private let state = Mutex<(outcome: Outcome?, abandoned: Bool)>((nil, false))
        private let done = Wakeup()

        init(direction: Direction, device: String?, name: String, spec: pa_sample_spec, map: pa_channel_map,
             attr: pa_buffer_attr) {
            (self.direction, self.device, self.name, self.spec, self.map, self.attr) = (direction, device, name, spec, map, attr)
        }

        func open() {
            var err: Int32 = 0
            let dir: pa_stream_direction_t = direction == .record ? PA_STREAM_RECORD : PA_STREAM_PLAYBACK
            let h = pa.simple_new(nil, "pulsemeter", dir, device, name, &spec, &map, &attr, &err)
            let keep = state.withLock { s -> Bool in
                if s.abandoned { return false }
                s.outcome = h.map { .opened($0) } ?? .failed(err)
                return true
            }
            if !keep, let h { pa.simple_free(h) }
            done.signal()
        }

        /// The outcome, or nil (and the handle left to the opening thread) after `seconds` or
        /// once `cancellation` fires.
        func wait(seconds: Double, cancellation: Cancellation?) -> Outcome? {
            let deadline = monotonicSeconds() + seconds
            let wake = cancellation?.onCancel { [done] in done.signal() }
            defer { if let cancellation, let wake { cancellation.remove(wake) } }
            while state.withLock({ $0.outcome == nil }) && monotonicSeconds() < deadline
                    && !(cancellation?.isCancelled ?? false) {
                done.wait(seconds: max(0.001, deadline - monotonicSeconds()))
            }
            return state.withLock { s in
                if s.outcome == nil { s.abandoned = true }
                return s.outcome
            }
        }
    }

    deinit { if let handle { pa.simple_free(handle) } }

    /// libpulse's name for `format`, native-endian.
    static func paFormat(_ format: SampleFormat) -> pa_sample_format_t {
        switch format {
        case .s16: CPulse_SAMPLE_S16NE
        case .s24: CPulse_SAMPLE_S24_32NE
        case .s32: CPulse_SAMPLE_S32NE
        case .float: CPulse_SAMPLE_FLOAT32NE
        }
    }

    static func openError(_ err: Int32, device: String?, direction: Direction) -> PulseError {
        let reason = pa.errorText(err)
        if err == Int32(PA_ERR_NOENTITY.rawValue), let device {
            return .noSuchDevice(direction, name: device, server: serverDescription)
        }
        if err == Int32(PA_ERR_CONNECTIONREFUSED.rawValue) || err == Int32(PA_ERR_INVALIDSERVER.rawValue)
            || err == Int32(PA_ERR_TIMEOUT.rawValue) || err == Int32(PA_ERR_ACCESS.rawValue) {
            return .cannotConnect(server: serverDescription, reason: reason)
        }
        return .cannotOpen(direction, device: device, reason: reason)
    }

    /// Queues `bytes` bytes for playback (`pa_simple_write`); blocks while the buffer is full.
    public func write(_ buffer: UnsafeRawPointer, bytes: Int) throws(PulseError) {
        var err: Int32 = 0
        guard let handle, pa.simple_write(handle, buffer, bytes, &err) >= 0 else {
            lastError = pa.errorText(err)
            throw .streamLost(reason: lastError)
        }
    }

    /// Drops everything buffered for playback (`pa_simple_flush`), so a pause is heard at once.
    public func flush() {
        var err: Int32 = 0
        if let handle { _ = pa.simple_flush(handle, &err) }
    }

    /// Waits until everything written has played (`pa_simple_drain`).
    public func drain() {
        var err: Int32 = 0
        if let handle { _ = pa.simple_drain(handle, &err) }
    }

    /// Microseconds of audio between the application and the speaker (`pa_simple_get_latency`).
    public func latencyMicroseconds() -> UInt64 {
        var err: Int32 = 0
        guard let handle else { return 0 }
        return pa.simple_get_latency(handle, &err)
    }
}
