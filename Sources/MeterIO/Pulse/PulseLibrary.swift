import CPulse

/// libpulse's and libpulse-simple's functions, looked up once per process (`dlopen`, `dlsym`)
/// when a run first talks to a server: a run over files maps neither library nor what they
/// pull in (see CPulse/shim.h). Each function is the member named as in C without `pa_`
/// (`pa.context_new` is `pa_context_new`). Immutable once built.
final class PulseLibrary: @unchecked Sendable {
    let channel_map_init_auto: CPulse_channel_map_init_auto
    let channel_map_init_extend: CPulse_channel_map_init_extend
    let channel_map_parse: CPulse_channel_map_parse
    let channel_position_to_string: CPulse_channel_position_to_string
    let context_connect: CPulse_context_connect
    let context_disconnect: CPulse_context_disconnect
    let context_errno: CPulse_context_errno
    let context_get_server_info: CPulse_context_get_server_info
    let context_get_sink_info_list: CPulse_context_get_sink_info_list
    let context_get_sink_input_info_list: CPulse_context_get_sink_input_info_list
    let context_get_source_info_list: CPulse_context_get_source_info_list
    let context_get_source_output_info_list: CPulse_context_get_source_output_info_list
    let context_get_state: CPulse_context_get_state
    let context_move_source_output_by_index: CPulse_context_move_source_output_by_index
    let context_new: CPulse_context_new
    let context_set_state_callback: CPulse_context_set_state_callback
    let context_set_subscribe_callback: CPulse_context_set_subscribe_callback
    let context_subscribe: CPulse_context_subscribe
    let context_unref: CPulse_context_unref
    let mainloop_dispatch: CPulse_mainloop_dispatch
    let mainloop_free: CPulse_mainloop_free
    let mainloop_get_api: CPulse_mainloop_get_api
    let mainloop_new: CPulse_mainloop_new
    let mainloop_poll: CPulse_mainloop_poll
    let mainloop_prepare: CPulse_mainloop_prepare
    let mainloop_wakeup: CPulse_mainloop_wakeup
    let operation_cancel: CPulse_operation_cancel
    let operation_get_state: CPulse_operation_get_state
    let operation_unref: CPulse_operation_unref
    let proplist_gets: CPulse_proplist_gets
    let sample_format_to_string: CPulse_sample_format_to_string
    let simple_drain: CPulse_simple_drain
    let simple_flush: CPulse_simple_flush
    let simple_free: CPulse_simple_free
    let simple_get_latency: CPulse_simple_get_latency
    let simple_new: CPulse_simple_new
    let simple_write: CPulse_simple_write
    let stream_connect_record: CPulse_stream_connect_record
    let stream_disconnect: CPulse_stream_disconnect
    let stream_drop: CPulse_stream_drop
    let stream_get_state: CPulse_stream_get_state
    let stream_new: CPulse_stream_new
    let stream_peek: CPulse_stream_peek
    let stream_set_monitor_stream: CPulse_stream_set_monitor_stream
    let stream_set_read_callback: CPulse_stream_set_read_callback
    let stream_set_state_callback: CPulse_stream_set_state_callback
    let stream_unref: CPulse_stream_unref
    let strerror: CPulse_strerror
    let threaded_mainloop_free: CPulse_threaded_mainloop_free
    let threaded_mainloop_get_api: CPulse_threaded_mainloop_get_api
    let threaded_mainloop_lock: CPulse_threaded_mainloop_lock
    let threaded_mainloop_new: CPulse_threaded_mainloop_new
    let threaded_mainloop_signal: CPulse_threaded_mainloop_signal
    let threaded_mainloop_start: CPulse_threaded_mainloop_start
    let threaded_mainloop_stop: CPulse_threaded_mainloop_stop
    let threaded_mainloop_unlock: CPulse_threaded_mainloop_unlock
    let threaded_mainloop_wait: CPulse_threaded_mainloop_wait

    /// libpulse's text for an error number (`pa_strerror`).
    func errorText(_ error: Int32) -> String {
        strerror(error).map { String(cString: $0) } ?? "error \(error)"
    }

    /// The libraries, or why they could not be loaded (`dlerror`, or a function missing).
    static let loaded: Result<PulseLibrary, RuntimeLibrary.LoadFailure> = Result {
        () throws(RuntimeLibrary.LoadFailure) in try PulseLibrary()
    }

    /// Loads the libraries if this is the first call; throws when they cannot be had. Every
    /// way into libpulse (a main loop, a simple stream) calls this first, so `pa` is loaded.
    static func require() throws(PulseError) {
        if case .failure(let f) = loaded { throw .cannotStart(what: "libpulse (\(f.reason))") }
    }

    private init() throws(RuntimeLibrary.LoadFailure) {
        let lib = try RuntimeLibrary("libpulse.so.0")
        let simple = try RuntimeLibrary("libpulse-simple.so.0")
        channel_map_init_auto = try lib.function("pa_channel_map_init_auto")
        channel_map_init_extend = try lib.function("pa_channel_map_init_extend")
        channel_map_parse = try lib.function("pa_channel_map_parse")
        channel_position_to_string = try lib.function("pa_channel_position_to_string")
        context_connect = try lib.function("pa_context_connect")
        context_disconnect = try lib.function("pa_context_disconnect")
        context_errno = try lib.function("pa_context_errno")
        context_get_server_info = try lib.function("pa_context_get_server_info")
        context_get_sink_info_list = try lib.function("pa_context_get_sink_info_list")
        context_get_sink_input_info_list = try lib.function("pa_context_get_sink_input_info_list")
        context_get_source_info_list = try lib.function("pa_context_get_source_info_list")
        context_get_source_output_info_list = try lib.function("pa_context_get_source_output_info_list")
        context_get_state = try lib.function("pa_context_get_state")
        context_move_source_output_by_index = try lib.function("pa_context_move_source_output_by_index")
        context_new = try lib.function("pa_context_new")
        context_set_state_callback = try lib.function("pa_context_set_state_callback")
        context_set_subscribe_callback = try lib.function("pa_context_set_subscribe_callback")
        context_subscribe = try lib.function("pa_context_subscribe")
        context_unref = try lib.function("pa_context_unref")
        mainloop_dispatch = try lib.function("pa_mainloop_dispatch")
        mainloop_free = try lib.function("pa_mainloop_free")
        mainloop_get_api = try lib.function("pa_mainloop_get_api")
        mainloop_new = try lib.function("pa_mainloop_new")
        mainloop_poll = try lib.function("pa_mainloop_poll")
        mainloop_prepare = try lib.function("pa_mainloop_prepare")
        mainloop_wakeup = try lib.function("pa_mainloop_wakeup")
        operation_cancel = try lib.function("pa_operation_cancel")
        operation_get_state = try lib.function("pa_operation_get_state")
        operation_unref = try lib.function("pa_operation_unref")
        proplist_gets = try lib.function("pa_proplist_gets")
        sample_format_to_string = try lib.function("pa_sample_format_to_string")
        stream_connect_record = try lib.function("pa_stream_connect_record")
        stream_disconnect = try lib.function("pa_stream_disconnect")
        stream_drop = try lib.function("pa_stream_drop")
        stream_get_state = try lib.function("pa_stream_get_state")
        stream_new = try lib.function("pa_stream_new")
        stream_peek = try lib.function("pa_stream_peek")
        stream_set_monitor_stream = try lib.function("pa_stream_set_monitor_stream")
        stream_set_read_callback = try lib.function("pa_stream_set_read_callback")
        stream_set_state_callback = try lib.function("pa_stream_set_state_callback")
        stream_unref = try lib.function("pa_stream_unref")
        strerror = try lib.function("pa_strerror")
        threaded_mainloop_free = try lib.function("pa_threaded_mainloop_free")
        threaded_mainloop_get_api = try lib.function("pa_threaded_mainloop_get_api")
        threaded_mainloop_lock = try lib.function("pa_threaded_mainloop_lock")
        threaded_mainloop_new = try lib.function("pa_threaded_mainloop_new")
        threaded_mainloop_signal = try lib.function("pa_threaded_mainloop_signal")
        threaded_mainloop_start = try lib.function("pa_threaded_mainloop_start")
        threaded_mainloop_stop = try lib.function("pa_threaded_mainloop_stop")
        threaded_mainloop_unlock = try lib.function("pa_threaded_mainloop_unlock")
        threaded_mainloop_wait = try lib.function("pa_threaded_mainloop_wait")
        simple_drain = try simple.function("pa_simple_drain")
        simple_flush = try simple.function("pa_simple_flush")
        simple_free = try simple.function("pa_simple_free")
        simple_get_latency = try simple.function("pa_simple_get_latency")
        simple_new = try simple.function("pa_simple_new")
        simple_write = try simple.function("pa_simple_write")
    }
}

/// The loaded libpulse, for code that runs after `PulseLibrary.require()` succeeded.
let pa: PulseLibrary = try! PulseLibrary.loaded.get()
