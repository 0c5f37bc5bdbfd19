import CPulse
import MeterCore

/// One application's playback stream on the server (a sink input), as `devices --apps` lists
/// it and `-d app:NAME` finds it.
public struct PlaybackStream: Sendable, Equatable {
    /// The server's sink input index.
    public var index: Int
    /// `application.name`, `application.process.binary`, `application.process.id`.
    public var application: String?
    public var binary: String?
    public var pid: Int?
    /// The sink it plays to, and that sink's monitor source (what `app:` records from).
    public var sinkIndex: Int
    public var sink: String
    public var monitorSource: String

    public func belongs(to app: AppSelector) -> Bool {
        app.matches(application: application, binary: binary, pid: pid)
    }
}

/// Collects sinks and sink inputs from `pa_context_get_sink_info_list` and
/// `pa_context_get_sink_input_info_list` callbacks: waited for on a private `pa_mainloop`
/// (introspection), or handed to `done` when both lists are in (`AppMonitorStream`, on its
/// threaded loop's thread).
final class PlaybackStreamCollector {
    var sinks: [UInt32: (name: String, monitor: String)] = [:]
    var inputs: [(index: UInt32, sink: UInt32, application: String?, binary: String?, pid: Int?)] = []
    private let done: ((PlaybackStreamCollector) -> Void)?
    private var listsLeft = 2

    init(done: ((PlaybackStreamCollector) -> Void)? = nil) { self.done = done }

    /// Asks for both lists without waiting; `done` runs when the last is in (at once when the
    /// connection cannot ask). The caller keeps the collector until then.
    func listBoth(_ context: OpaquePointer) {
        for op in [listSinks(context), listInputs(context)] {
            if let op { pa.operation_unref(op) } else { finished() }
        }
    }

    static func from(_ ud: UnsafeMutableRawPointer) -> PlaybackStreamCollector {
        Unmanaged<PlaybackStreamCollector>.fromOpaque(ud).takeUnretainedValue()
    }

    /// The streams found, each with its sink's name and monitor.
    var streams: [PlaybackStream] {
        inputs.compactMap { i in
            guard let s = sinks[i.sink] else { return nil }
            return PlaybackStream(index: Int(i.index), application: i.application, binary: i.binary, pid: i.pid,
                                  sinkIndex: Int(i.sink), sink: s.name, monitorSource: s.monitor)
        }
    }

    /// Starts listing the sinks (`pa_context_get_sink_info_list`).
    func listSinks(_ context: OpaquePointer) -> OpaquePointer? {
        pa.context_get_sink_info_list(context, { _, info, eol, ud in
            guard let ud else { return }
            let c = PlaybackStreamCollector.from(ud)
            if eol != 0 { c.finished(); return }
            guard let i = info?.pointee else { return }
            c.sinks[i.index] = (String(cString: i.name), i.monitor_source_name.map { String(cString: $0) } ?? "")
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Starts listing the sink inputs (`pa_context_get_sink_input_info_list`), with the
    /// application properties read by `pa_proplist_gets`.
    func listInputs(_ context: OpaquePointer) -> OpaquePointer? {
        pa.context_get_sink_input_info_list(context, { _, info, eol, ud in
            guard let ud else { return }
            let c = PlaybackStreamCollector.from(ud)
            if eol != 0 { c.finished(); return }
            guard let i = info?.pointee else { return }
            func prop(_ key: String) -> String? { pa.proplist_gets(i.proplist, key).map { String(cString: $0) } }
            c.inputs.append((i.index, i.sink, prop("application.name"), prop("application.process.binary"),
                             prop("application.process.id").flatMap { Int($0) }))
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    private func finished() {
        listsLeft -= 1
        if listsLeft == 0 { done?(self) }
    }
}
