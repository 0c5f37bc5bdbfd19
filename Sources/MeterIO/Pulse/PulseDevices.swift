import CPulse
import Glibc
import MeterCore

/// One PulseAudio source or sink, as `pulsemeter devices` lists it.
public struct PulseDevice: Sendable, Equatable {
    /// The server's index for it (`-d` takes it as well as the name).
    public var index: Int
    public var name: String
    public var description: String
    public var rate: Int
    public var channels: Int
    public var sampleFormat: String
    /// For a source: the sink it monitors, if it is a monitor.
    public var monitorOf: String?
    public var isDefault: Bool
    public var isSink: Bool
    /// Its channel map, one position per channel as PulseAudio spells them (`front-left`, `lfe`, `aux0`).
    public var channelMap: [String] = []
}

extension pa_channel_map {
    /// The positions' names (`pa_channel_position_to_string`).
    var names: [String] {
        var m = self
        let count = Int(m.channels)
        return withUnsafeBytes(of: &m.map) { raw in
            raw.bindMemory(to: pa_channel_position_t.self).prefix(count).map { pa.channel_position_to_string($0).map { String(cString: $0) } ?? "unknown" }
        }
    }
}

/// What the server says about itself (`pa_context_get_server_info`).
public struct PulseServerInfo: Sendable, Equatable {
    /// "pulseaudio" for PulseAudio; "PulseAudio (on PipeWire 0.3.65)" for pipewire-pulse.
    public var name: String
    /// The protocol-level version ("16.1"; pipewire-pulse reports PulseAudio's "15.0.0").
    public var version: String
    /// Names of the default source and sink (pipewire-pulse without a session manager reports
    /// the placeholders "@DEFAULT_SOURCE@" / "@DEFAULT_SINK@").
    public var defaultSource: String
    public var defaultSink: String

    /// True for PipeWire's pulse server.
    public var isPipeWire: Bool { name.contains("PipeWire") }
}

/// Device introspection over libpulse's asynchronous API: `pa_context_connect`, then
/// `pa_context_get_server_info`, `pa_context_get_source_info_list` and
/// `pa_context_get_sink_info_list`, driven by a private `pa_mainloop` on the calling thread.
///
/// A stop (`stop(on:)`) ends every wait on the connection at once: it wakes the main loop
/// (`pa_mainloop_wakeup`), and a wait that finds the run stopped gives up as if its time had
/// run out (the owner, who holds the cancellation, says it was a stop).
///
/// `@unchecked Sendable`: used by one thread at a time (a record stream on this connection,
/// `PulseRecordStream`, hands it to the capture thread once); a stop's wake-up is the one
/// call from another thread.
public final class PulseDevices: @unchecked Sendable {
    private let loop: MainLoop
    var mainloop: OpaquePointer { loop.pointer }
    let context: OpaquePointer
    private let deadline: Double
    private var stop: (Cancellation, Cancellation.Registration)?

    /// The connection's `pa_mainloop`, in an object of its own so that a stop's wake-up, which
    /// may run on the signal thread as the connection goes, holds it until it is done.
    private final class MainLoop: @unchecked Sendable {
        // Invariant for @unchecked Sendable: from another thread only `pa_mainloop_wakeup`,
        // which libpulse allows from any thread.
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { pa.mainloop_free(pointer) }
        func wakeUp() { pa.mainloop_wakeup(pointer) }
    }

    /// Connects; throws `PulseError.cannotConnect` within `timeout` seconds when no server
    /// answers, `noAnswer` at once when `cancellation` fires meanwhile.
    public init(timeout: Double = 5, cancellation: Cancellation? = nil) throws(PulseError) {
        try PulseLibrary.require()
        guard let ml = pa.mainloop_new() else { throw .cannotStart(what: "a PulseAudio main loop") }
        loop = MainLoop(ml)
        let ctx = try Self.newContext(pa.mainloop_get_api(ml)) {}
        context = ctx
        deadline = monotonicSeconds() + timeout
        if let cancellation { stop(on: cancellation) }
        if pa.context_connect(ctx, nil, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
            throw connectError()
        }
        while true {
            let state = pa.context_get_state(ctx)
            if state == PA_CONTEXT_READY { break }
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED { throw connectError() }
            try iterate()
        }
    }

    /// A context on a main loop's `api` (`pa_context_new`); on failure `free` frees the loop.
    static func newContext(_ api: UnsafeMutablePointer<pa_mainloop_api>?, free: () -> Void) throws(PulseError) -> OpaquePointer {
        guard let ctx = pa.context_new(api, "pulsemeter") else {
            free()
            throw .cannotStart(what: "a PulseAudio context")
        }
        return ctx
    }

    deinit {
        if let (cancellation, registration) = stop { cancellation.remove(registration) }
        pa.context_set_subscribe_callback(context, nil, nil)
        pa.context_disconnect(context)
        pa.context_unref(context)
    }

    /// From now on `cancellation` ends every wait on this connection at once (a read's, an
    /// answer's, a stream's start); one cancellation per connection.
    func stop(on cancellation: Cancellation) {
        if let (old, registration) = stop { old.remove(registration) }
        stop = (cancellation, cancellation.onCancel { [loop] in loop.wakeUp() })
    }

    /// The run was stopped (`stop(on:)`): waits give up.
    var isStopped: Bool { stop?.0.isCancelled ?? false }

    func connectError() -> PulseError {
        let reason = pa.errorText(pa.context_errno(context))
        return .cannotConnect(server: PulseStream.serverDescription, reason: reason)
    }

    /// One main-loop pass; `PulseError.noAnswer` once the connection's deadline passed or the
    /// run was stopped.
    private func iterate() throws(PulseError) {
        guard monotonicSeconds() < deadline && !isStopped else {
            throw .noAnswer(server: PulseStream.serverDescription)
        }
        iterate(pollingAtMost: 100_000)
    }

    /// One main-loop pass (pa_mainloop_prepare/poll/dispatch), its poll waiting at most
    /// `microseconds` (negative: until an event), so a caller can check a deadline often.
    /// A step that fails ends the pass there: libpulse aborts the process when a step is
    /// called in the wrong state (dispatch after a failed poll).
    func iterate(pollingAtMost microseconds: Int32) {
        guard pa.mainloop_prepare(mainloop, microseconds) >= 0 else { return }
        guard pa.mainloop_poll(mainloop) >= 0 else { return }
        _ = pa.mainloop_dispatch(mainloop)
    }

    /// One main-loop pass whose poll waits at most until `deadline` (monotonic seconds; 10 s at
    /// most, then the caller looks again), or until an event when there is none.
    func iterate(until deadline: Double?) {
        guard let deadline else { return iterate(pollingAtMost: -1) }
        iterate(pollingAtMost: Int32(max(0, min(deadline - monotonicSeconds(), 10)) * 1e6) + 1)
    }

    private func wait(_ op: OpaquePointer?) throws(PulseError) {
        try finish(until: deadline, op)
    }

    /// Iterates the main loop until `op` is done; throws when the connection fails, and
    /// `noAnswer` once `deadline` (monotonic seconds) passed or the run was stopped: then the
    /// operation is cancelled (`pa_operation_cancel`), so its callback, which holds the
    /// caller's unretained pointer, never runs after the caller has gone on.
    func finish(until deadline: Double, _ op: OpaquePointer?) throws(PulseError) {
        guard let op else { throw connectError() }
        defer { pa.operation_unref(op) }
        while pa.operation_get_state(op) == PA_OPERATION_RUNNING {
            if pa.context_get_state(context) != PA_CONTEXT_READY { throw connectError() }
            guard monotonicSeconds() < deadline && !isStopped else {
                pa.operation_cancel(op)
                throw .noAnswer(server: PulseStream.serverDescription)
            }
            iterate(pollingAtMost: 100_000)
        }
    }

    /// Set by every event `subscribe` asked for (in the main loop's dispatch, on the thread
    /// iterating it); whoever looks again clears it.
    var changed = false

    /// Asks the server for the events of `mask` (`pa_context_subscribe`); each sets `changed`.
    /// Events arrive while the owner iterates the main loop (a record stream's reads).
    func subscribe(_ mask: pa_subscription_mask_t) {
        pa.context_set_subscribe_callback(context, { _, _, _, ud in
            Unmanaged<PulseDevices>.fromOpaque(ud!).takeUnretainedValue().changed = true
        }, Unmanaged.passUnretained(self).toOpaque())
        if let op = pa.context_subscribe(context, mask, nil, nil) { pa.operation_unref(op) }
    }

    /// Collects callback results; passed to C as an unretained pointer that outlives the wait.
    private final class Collector {
        var devices: [PulseDevice] = []
        var info = PulseServerInfo(name: "", version: "", defaultSource: "", defaultSink: "")

        static func from(_ ud: UnsafeMutableRawPointer) -> Collector {
            Unmanaged<Collector>.fromOpaque(ud).takeUnretainedValue()
        }

        func add(index: UInt32, name: UnsafePointer<CChar>, description: UnsafePointer<CChar>?, spec: pa_sample_spec,
                 map: pa_channel_map, isSink: Bool, monitorOf: UnsafePointer<CChar>?) {
            devices.append(PulseDevice(
                index: Int(index), name: String(cString: name), description: description.map { String(cString: $0) } ?? "",
                rate: Int(spec.rate), channels: Int(spec.channels),
                sampleFormat: pa.sample_format_to_string(spec.format).map { String(cString: $0) } ?? "invalid",
                monitorOf: monitorOf.map { String(cString: $0) }, isDefault: false, isSink: isSink, channelMap: map.names))
        }
    }

    /// The server's name, version and default devices.
    public func serverInfo() throws(PulseError) -> PulseServerInfo {
        let c = Collector()
        let ud = Unmanaged.passUnretained(c).toOpaque()
        try wait(pa.context_get_server_info(context, { _, info, ud in
            guard let info, let ud else { return }
            func text(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }
            Collector.from(ud).info = PulseServerInfo(
                name: text(info.pointee.server_name), version: text(info.pointee.server_version),
                defaultSource: text(info.pointee.default_source_name), defaultSink: text(info.pointee.default_sink_name))
        }, ud))
        return withExtendedLifetime(c) { c.info }
    }

    /// The server's default source and sink names.
    public func defaults() throws(PulseError) -> (source: String, sink: String) {
        let info = try serverInfo()
        return (info.defaultSource, info.defaultSink)
    }

    /// The device a stream should open for `device` (nil: the default): the special names
    /// `@DEFAULT_SOURCE@`, `@DEFAULT_SINK@` and `@DEFAULT_MONITOR@` resolved to real names
    /// (PipeWire's pulse server does not resolve them for simple-API streams), an index
    /// resolved to its device, and a name checked to exist (PipeWire would silently route a
    /// stream for an unknown name to the default device). Returns nil when the default is
    /// wanted but the server names none that exists (the server then decides).
    public func resolve(_ device: String?, direction: PulseStream.Direction) throws(PulseError) -> PulseDevice? {
        let info = try serverInfo()
        let sink = direction == .playback
        let list = try sink ? sinks(defaultName: info.defaultSink) : sources(defaultName: info.defaultSource)
        let wanted: String
        var explicit = false
        if device == nil || device == (sink ? "@DEFAULT_SINK@" : "@DEFAULT_SOURCE@") {
            wanted = sink ? info.defaultSink : info.defaultSource
        } else if device == "@DEFAULT_MONITOR@" || device == "@DEFAULT_SINK@" {
            // As PulseAudio's name registry does for record streams: the default sink's monitor.
            wanted = info.defaultSink + ".monitor"
        } else {
            wanted = device!
            explicit = true
        }
        if let d = list.first(where: { $0.name == wanted }) { return d }
        if explicit, let i = Int(wanted), let d = list.first(where: { $0.index == i }) { return d }
        if !explicit { return nil }
        let others = (try? (sink ? sources(defaultName: "") : sinks(defaultName: ""))) ?? []
        if others.contains(where: { $0.name == wanted }) {
            throw .wrongKind(direction, name: wanted, server: PulseStream.serverDescription)
        }
        throw .noSuchDevice(direction, name: wanted, server: PulseStream.serverDescription)
    }

    /// Applications' playback streams (sink inputs), each with its sink.
    public func playbackStreams() throws(PulseError) -> [PlaybackStream] {
        let c = PlaybackStreamCollector()
        try withExtendedLifetime(c) { () throws(PulseError) in
            try wait(c.listSinks(context))
            try wait(c.listInputs(context))
        }
        return c.streams
    }

    /// Capture sources, the default marked.
    public func sources() throws(PulseError) -> [PulseDevice] {
        try sources(defaultName: defaults().source)
    }

    /// Playback sinks, the default marked.
    public func sinks() throws(PulseError) -> [PulseDevice] {
        try sinks(defaultName: defaults().sink)
    }

    private func sources(defaultName: String) throws(PulseError) -> [PulseDevice] {
        try list(defaultName: defaultName) { ud in
            pa.context_get_source_info_list(context, { _, info, eol, ud in
                guard eol == 0, let i = info?.pointee, let ud else { return }
                Collector.from(ud).add(
                    index: i.index, name: i.name, description: i.description, spec: i.sample_spec, map: i.channel_map, isSink: false,
                    monitorOf: i.monitor_of_sink != CPulse_INVALID_INDEX ? i.monitor_of_sink_name : nil)
            }, ud)
        }
    }

    private func sinks(defaultName: String) throws(PulseError) -> [PulseDevice] {
        try list(defaultName: defaultName) { ud in
            pa.context_get_sink_info_list(context, { _, info, eol, ud in
                guard eol == 0, let i = info?.pointee, let ud else { return }
                Collector.from(ud).add(index: i.index, name: i.name, description: i.description, spec: i.sample_spec,
                                       map: i.channel_map, isSink: true, monitorOf: nil)
            }, ud)
        }
    }

    /// Runs one list operation whose callback fills a Collector, and marks the default device.
    private func list(defaultName: String,
                      _ start: (UnsafeMutableRawPointer) -> OpaquePointer?) throws(PulseError) -> [PulseDevice] {
        let c = Collector()
        try withExtendedLifetime(c) { () throws(PulseError) in
            try wait(start(Unmanaged.passUnretained(c).toOpaque()))
        }
        return c.devices.map { var d = $0; d.isDefault = d.name == defaultName; return d }
    }
}
