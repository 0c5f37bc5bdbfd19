import CPulse
import Glibc
import MeterCore
import Synchronization

/// A record stream on a `PulseDevices` connection (`pa_stream_new`, `pa_stream_connect_record`,
/// then `pa_stream_peek` / `pa_stream_drop`), that connection's `pa_mainloop` driven by the
/// reading thread: the one connection that found the device and its native format also
/// carries the audio. Native-endian samples in `format`; fragments of `fragmentFrames`, the
/// size of the caller's reads, so each read is about one delivery from the server.
///
/// Owned by one thread at a time (opened by the caller, then read by the capture thread);
/// `@unchecked Sendable` only so it can be handed to that thread once.
public final class PulseRecordStream: LiveCapture, @unchecked Sendable {
    public private(set) var device: String?
    public private(set) var lastError = ""
    /// The stream's channel map, one name per channel (`front-left`, `lfe`, `aux0`, ...).
    public let channelNames: [String]
    private let connection: PulseDevices
    private var stream: OpaquePointer
    /// The fragment being read (`pa_stream_peek`; nil data: a hole), until dropped.
    private var fragment: (data: UnsafeRawPointer?, bytes: Int, offset: Int)?
    /// Set by the stream's read and state callbacks (`pa_stream_set_read_callback`,
    /// `pa_stream_set_state_callback`, run by the main loop's dispatch on the reading thread)
    /// when the server delivered audio or the stream's state changed; cleared when a peek
    /// finds nothing. A delivery takes a pass of the loop per socket read, so without it each
    /// pass would peek in vain, and every libpulse call costs a system call (its fork check).
    private let delivered: UnsafeMutablePointer<Bool> = {
        let p = UnsafeMutablePointer<Bool>.allocate(capacity: 1)
        p.initialize(to: true)
        return p
    }()
    /// What `connect` needs, kept to connect the stream again on another device.
    private struct Opening {
        var name: String, spec: pa_sample_spec, map: pa_channel_map, attr: pa_buffer_attr, timeout: Double
    }
    private let opening: Opening
    /// Follows the default, keeps a named source (see `SourceWatcher`), on this connection.
    private var watcher: SourceWatcher?
    /// A stream being connected on the default the watcher follows, and until when it may take
    /// to start; it replaces `stream` once ready, the reads going on meanwhile.
    private var incoming: (stream: OpaquePointer, device: String, deadline: Double)?
    /// Numbers the record streams of this process, so each has a name the watcher can find.
    private static let streams = Atomic<Int>(0)

    /// Resolves `device` on `connection` (as `PulseDevices.resolve`: special names, indexes,
    /// an unknown name an error), then connects the stream; a server that accepts it but never
    /// starts it (pipewire-pulse without a session manager) fails after `startTimeout` s.
    /// Cancelling `cancellation` ends every wait on the connection at once (`PulseDevices.stop`):
    /// a read throws `StopRequested`, the opening a `PulseError` (the caller knows it stopped).
    public init(on connection: PulseDevices, device: String?, rate: Int, channels: Int, format: SampleFormat = .s16,
                fragmentFrames: Int, name: String = "pulsemeter", startTimeout: Double = 4,
                cancellation: Cancellation? = nil) throws(PulseError) {
        self.connection = connection
        if let cancellation { connection.stop(on: cancellation) }
        let found = try connection.resolve(device, direction: .record)
        let resolved = found?.name
        self.device = resolved
        let spec = pa_sample_spec(format: PulseStream.paFormat(format), rate: UInt32(rate), channels: UInt8(channels))
        let map = PulseStream.channelMap(channels: channels, device: found)
        channelNames = map.names
        let unset = UInt32.max
        let attr = pa_buffer_attr(maxlength: unset, tlength: unset, prebuf: unset, minreq: unset,
                                  fragsize: UInt32(fragmentFrames * channels * format.bytesPerSample))
        let streamName = "\(name) \(getpid())-\(Self.streams.add(1, ordering: .relaxed).newValue)"
        opening = Opening(name: streamName, spec: spec, map: map, attr: attr, timeout: startTimeout)
        stream = try Self.connect(opening, on: connection, device: resolved, delivered: delivered)
        if let resolved {
            let wanted: SourceWatcher.Wanted
            switch device {
            case nil, "@DEFAULT_SOURCE@": wanted = .defaultSource
            case "@DEFAULT_MONITOR@", "@DEFAULT_SINK@": wanted = .defaultMonitor
            default: wanted = .named(resolved)
            }
            watcher = SourceWatcher(on: connection, streamName: streamName, wanted: wanted, current: resolved)
        }
    }

    /// `pa_stream_new` and `pa_stream_connect_record` on `connection`, iterating its main loop
    /// until the stream is ready (at most `o.timeout` s; a stop ends the wait at once).
    private static func connect(_ o: Opening, on connection: PulseDevices, device: String?,
                                delivered: UnsafeMutablePointer<Bool>) throws(PulseError) -> OpaquePointer {
        let s = try begin(o, on: connection, device: device)
        let deadline = monotonicSeconds() + o.timeout
        while true {
            switch starting(s, on: connection, device: device, until: deadline) {
            case .ready: return ready(s, delivered: delivered)
            case .failed(let error): throw error
            case nil: connection.iterate(until: deadline)
            }
        }
    }

    /// `pa_stream_new` and `pa_stream_connect_record`: the stream starts connecting.
    private static func begin(_ o: Opening, on connection: PulseDevices, device: String?) throws(PulseError) -> OpaquePointer {
        var spec = o.spec, map = o.map, attr = o.attr
        guard let s = pa.stream_new(connection.context, o.name, &spec, &map) else {
            throw PulseStream.openError(pa.context_errno(connection.context), device: device, direction: .record)
        }
        guard pa.stream_connect_record(s, device, &attr, CPulse_RECORD_FLAGS) == 0 else {
            pa.stream_unref(s)
            throw PulseStream.openError(pa.context_errno(connection.context), device: device, direction: .record)
        }
        return s
    }

    private enum Start { case ready, failed(PulseError) }

    /// How a connecting stream stands: ready, failed (then disconnected and released: it
    /// failed, its time ran out, or the run was stopped), or nil while it is still connecting.
    private static func starting(_ s: OpaquePointer, on connection: PulseDevices, device: String?,
                                 until deadline: Double) -> Start? {
        let state = pa.stream_get_state(s)
        if state == PA_STREAM_READY { return .ready }
        let failed = state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED
        guard failed || monotonicSeconds() >= deadline || connection.isStopped else { return nil }
        let error = PulseStream.openError(pa.context_errno(connection.context), device: device, direction: .record)
        _ = pa.stream_disconnect(s)
        pa.stream_unref(s)
        return .failed(failed ? error : .streamNeverStarted(server: PulseStream.serverDescription))
    }

    /// A stream that started: only now does it get the callbacks (so no failed one can reach
    /// `delivered` later); what arrived before them is found by the first peek.
    private static func ready(_ s: OpaquePointer, delivered: UnsafeMutablePointer<Bool>) -> OpaquePointer {
        pa.stream_set_read_callback(s, { _, _, flag in flag?.assumingMemoryBound(to: Bool.self).pointee = true },
                                    UnsafeMutableRawPointer(delivered))
        pa.stream_set_state_callback(s, { _, flag in flag?.assumingMemoryBound(to: Bool.self).pointee = true },
                                     UnsafeMutableRawPointer(delivered))
        delivered.pointee = true
        return s
    }

    /// The source the stream moved to since the last call, as a device change; nil when it
    /// stayed (the capture thread asks after each read).
    public func takeDeviceChange() -> DeviceChange? {
        watch()
        defer { change = nil }
        return change
    }

    /// A device change not yet taken.
    private var change: DeviceChange?

    /// Acts on what the watcher saw since it last looked. When the default it follows changed
    /// and the server did not move the stream (PipeWire keeps a stream where it was opened,
    /// and cannot move one onto a monitor), a stream is connected on the new device while the
    /// reads go on; once it is ready it replaces the old one, which is closed. Called between
    /// fragments; never waits.
    private func watch() {
        if let incoming { settle(incoming) }
        switch watcher?.poll() {
        case nil: return
        case .moved(let name):
            device = name
            change = DeviceChange(ts: unixSeconds(), source: name)
        case .follow(let name):
            guard incoming == nil, let s = try? Self.begin(opening, on: connection, device: name) else {
                watcher?.followFailed()
                return
            }
            incoming = (s, name, monotonicSeconds() + opening.timeout)
        }
    }

    /// The stream connecting on the followed default: in place of the old one once ready,
    /// given up (and the watcher told) when it fails or its time runs out.
    private func settle(_ p: (stream: OpaquePointer, device: String, deadline: Double)) {
        switch Self.starting(p.stream, on: connection, device: p.device, until: p.deadline) {
        case nil: return
        case .failed:
            incoming = nil
            watcher?.followFailed()
        case .ready:
            incoming = nil
            close(stream)
            stream = Self.ready(p.stream, delivered: delivered)
            device = p.device
            watcher?.followed(p.device)
            change = DeviceChange(ts: unixSeconds(), source: p.device)
        }
    }

    private func close(_ s: OpaquePointer) {
        if fragment != nil { _ = pa.stream_drop(s) }
        fragment = nil
        // No callback after this: `delivered` may be gone before libpulse lets go of the stream.
        pa.stream_set_read_callback(s, nil, nil)
        pa.stream_set_state_callback(s, nil, nil)
        _ = pa.stream_disconnect(s)
        pa.stream_unref(s)
    }

    deinit {
        watcher = nil  // its look's answers are given up before the streams go
        if let incoming {
            _ = pa.stream_disconnect(incoming.stream)
            pa.stream_unref(incoming.stream)
        }
        close(stream)
        delivered.deallocate()
    }

    public var captureName: String? { device }

    /// Fills `bytes` bytes at `buffer` with captured audio; blocks until full (a hole in the
    /// server's data reads as silence). Throws `PulseError` when the stream or the connection
    /// fails, `StopRequested` when the run is stopped meanwhile.
    public func read(_ buffer: UnsafeMutableRawPointer, bytes: Int) throws {
        var filled = 0
        while filled < bytes {
            if fragment == nil { fragment = try nextFragment() }
            guard let f = fragment else { continue }
            let n = min(f.bytes - f.offset, bytes - filled)
            if let data = f.data { memcpy(buffer + filled, data + f.offset, n) } else { memset(buffer + filled, 0, n) }
            filled += n
            if f.offset + n == f.bytes {
                _ = pa.stream_drop(stream)
                fragment = nil
            } else {
                fragment = (f.data, f.bytes, f.offset + n)
            }
        }
    }

    /// The next fragment the server delivered, sleeping in the main loop until there is one.
    /// It peeks only after a delivery or a change of the stream's state (`pa_stream_peek`
    /// fails once the stream is no longer ready: that is how a lost stream shows).
    private func nextFragment() throws -> (data: UnsafeRawPointer?, bytes: Int, offset: Int) {
        while true {
            if connection.isStopped { throw StopRequested() }
            if delivered.pointee {
                var data: UnsafeRawPointer?
                var n = 0
                guard pa.stream_peek(stream, &data, &n) == 0 else { throw lost() }
                if n > 0 { return (data, n, 0) }
                delivered.pointee = false
            }
            connection.iterate(until: nextDue)
            watch()  // an event woke the loop: the stream may be elsewhere now
        }
    }

    /// Until when a pass of the main loop may wait without an event: until the watcher or the
    /// stream connecting on the default has something to do (nil: until an event).
    private var nextDue: Double? {
        guard let connecting = incoming?.deadline else { return watcher?.nextDue }
        return min(connecting, watcher?.nextDue ?? connecting)
    }

    private func lost() -> PulseError {
        lastError = pa.errorText(pa.context_errno(connection.context))
        return .streamLost(reason: lastError)
    }
}
