import CPulse
import Glibc
import MeterCore

/// One PulseAudio source or sink, as `pulsemeter devices` lists it.
public struct PulseDevice: Sendable, Equatable {
    public var name: String
    public var description: String
    public var rate: Int
    public var channels: Int
    public var sampleFormat: String
    /// For a source: the sink it monitors, if it is a monitor.
    public var monitorOf: String?
    public var isDefault: Bool
    public var isSink: Bool
}

/// Device introspection over libpulse's asynchronous API: `pa_context_connect`, then
/// `pa_context_get_server_info`, `pa_context_get_source_info_list` and
/// `pa_context_get_sink_info_list`, driven by a private `pa_mainloop` on the calling thread.
public final class PulseDevices {
    private let mainloop: OpaquePointer
    private let context: OpaquePointer
    private let deadline: Double

    /// Connects, failing with exit 69 within `timeout` seconds when no server answers.
    public init(timeout: Double = 5) throws(PulseError) {
        guard let ml = pa_mainloop_new() else { throw .cannotStart(what: "a PulseAudio main loop") }
        mainloop = ml
        guard let ctx = pa_context_new(pa_mainloop_get_api(ml), "pulsemeter") else {
            pa_mainloop_free(ml)
            throw .cannotStart(what: "a PulseAudio context")
        }
        context = ctx
        deadline = monotonicSeconds() + timeout
        if pa_context_connect(ctx, nil, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
            throw connectError()
        }
        while true {
            let state = pa_context_get_state(ctx)
            if state == PA_CONTEXT_READY { break }
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED { throw connectError() }
            try iterate()
        }
    }

    deinit {
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_mainloop_free(mainloop)
    }

    private func connectError() -> PulseError {
        let reason = String(cString: pa_strerror(pa_context_errno(context)))
        return .cannotConnect(server: PulseStream.serverDescription, reason: reason)
    }

    private func iterate() throws(PulseError) {
        guard monotonicSeconds() < deadline else {
            throw .noAnswer(server: PulseStream.serverDescription)
        }
        // One main-loop pass (pa_mainloop_prepare/poll/dispatch), polling at most 100 ms so
        // the deadline is checked often.
        _ = pa_mainloop_prepare(mainloop, 100_000)
        _ = pa_mainloop_poll(mainloop)
        _ = pa_mainloop_dispatch(mainloop)
    }

    private func wait(_ op: OpaquePointer?) throws(PulseError) {
        guard let op else { throw connectError() }
        defer { pa_operation_unref(op) }
        while pa_operation_get_state(op) == PA_OPERATION_RUNNING {
            if pa_context_get_state(context) != PA_CONTEXT_READY { throw connectError() }
            try iterate()
        }
    }

    /// Collects callback results; passed to C as an unretained pointer that outlives the wait.
    private final class Collector {
        var devices: [PulseDevice] = []
        var defaultSource = ""
        var defaultSink = ""

        static func from(_ ud: UnsafeMutableRawPointer) -> Collector {
            Unmanaged<Collector>.fromOpaque(ud).takeUnretainedValue()
        }

        func add(name: UnsafePointer<CChar>, description: UnsafePointer<CChar>?, spec: pa_sample_spec,
                 isSink: Bool, monitorOf: UnsafePointer<CChar>?) {
            devices.append(PulseDevice(
                name: String(cString: name), description: description.map { String(cString: $0) } ?? "",
                rate: Int(spec.rate), channels: Int(spec.channels),
                sampleFormat: String(cString: pa_sample_format_to_string(spec.format)),
                monitorOf: monitorOf.map { String(cString: $0) }, isDefault: false, isSink: isSink))
        }
    }

    /// The server's default source and sink names.
    public func defaults() throws(PulseError) -> (source: String, sink: String) {
        let c = Collector()
        let ud = Unmanaged.passUnretained(c).toOpaque()
        try wait(pa_context_get_server_info(context, { _, info, ud in
            guard let info, let ud else { return }
            let c = Unmanaged<Collector>.fromOpaque(ud).takeUnretainedValue()
            if let s = info.pointee.default_source_name { c.defaultSource = String(cString: s) }
            if let s = info.pointee.default_sink_name { c.defaultSink = String(cString: s) }
        }, ud))
        return withExtendedLifetime(c) { (c.defaultSource, c.defaultSink) }
    }

    /// Capture sources, the default marked.
    public func sources() throws(PulseError) -> [PulseDevice] {
        try list(defaultName: defaults().source) { ud in
            pa_context_get_source_info_list(context, { _, info, eol, ud in
                guard eol == 0, let i = info?.pointee, let ud else { return }
                Collector.from(ud).add(
                    name: i.name, description: i.description, spec: i.sample_spec, isSink: false,
                    monitorOf: i.monitor_of_sink != CPulse_INVALID_INDEX ? i.monitor_of_sink_name : nil)
            }, ud)
        }
    }

    /// Playback sinks, the default marked.
    public func sinks() throws(PulseError) -> [PulseDevice] {
        try list(defaultName: defaults().sink) { ud in
            pa_context_get_sink_info_list(context, { _, info, eol, ud in
                guard eol == 0, let i = info?.pointee, let ud else { return }
                Collector.from(ud).add(name: i.name, description: i.description, spec: i.sample_spec,
                                       isSink: true, monitorOf: nil)
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
