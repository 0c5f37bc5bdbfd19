import CMosquitto

/// libmosquitto's functions, looked up once per process (`dlopen`, `dlsym`) by the first
/// `MQTTClient`: a run without `--mqtt` does not map the library nor the TLS libraries it
/// pulls in (see CMosquitto/shim.h). Immutable once built.
final class MosquittoLibrary: @unchecked Sendable {
    let libInit: CMosquitto_lib_init_function
    let new: CMosquitto_new_function
    let destroy: CMosquitto_destroy_function
    let usernamePasswordSet: CMosquitto_username_pw_set_function
    let willSet: CMosquitto_will_set_function
    let tlsSet: CMosquitto_tls_set_function
    let intOption: CMosquitto_int_option_function
    let reconnectDelaySet: CMosquitto_reconnect_delay_set_function
    let connectCallbackSet: CMosquitto_connect_callback_set_function
    let disconnectCallbackSet: CMosquitto_disconnect_callback_set_function
    let publishCallbackSet: CMosquitto_publish_callback_set_function
    let connectAsync: CMosquitto_connect_async_function
    let loopStart: CMosquitto_loop_start_function
    let loopStop: CMosquitto_loop_stop_function
    let disconnect: CMosquitto_disconnect_function
    let publish: CMosquitto_publish_function
    let strerror: CMosquitto_strerror_function
    let connackString: CMosquitto_connack_string_function

    /// The library, or why it could not be loaded (`dlerror`, or a function missing).
    static let loaded: Result<MosquittoLibrary, RuntimeLibrary.LoadFailure> = Result {
        () throws(RuntimeLibrary.LoadFailure) in try MosquittoLibrary()
    }

    private init() throws(RuntimeLibrary.LoadFailure) {
        let lib = try RuntimeLibrary("libmosquitto.so.1")
        func find<F>(_ name: String, as type: F.Type) throws(RuntimeLibrary.LoadFailure) -> F {
            try lib.function(name, as: type)
        }
        libInit = try find("mosquitto_lib_init", as: CMosquitto_lib_init_function.self)
        new = try find("mosquitto_new", as: CMosquitto_new_function.self)
        destroy = try find("mosquitto_destroy", as: CMosquitto_destroy_function.self)
        usernamePasswordSet = try find("mosquitto_username_pw_set", as: CMosquitto_username_pw_set_function.self)
        willSet = try find("mosquitto_will_set", as: CMosquitto_will_set_function.self)
        tlsSet = try find("mosquitto_tls_set", as: CMosquitto_tls_set_function.self)
        intOption = try find("mosquitto_int_option", as: CMosquitto_int_option_function.self)
        reconnectDelaySet = try find("mosquitto_reconnect_delay_set", as: CMosquitto_reconnect_delay_set_function.self)
        connectCallbackSet = try find("mosquitto_connect_callback_set", as: CMosquitto_connect_callback_set_function.self)
        disconnectCallbackSet = try find("mosquitto_disconnect_callback_set",
                                         as: CMosquitto_disconnect_callback_set_function.self)
        publishCallbackSet = try find("mosquitto_publish_callback_set", as: CMosquitto_publish_callback_set_function.self)
        connectAsync = try find("mosquitto_connect_async", as: CMosquitto_connect_async_function.self)
        loopStart = try find("mosquitto_loop_start", as: CMosquitto_loop_start_function.self)
        loopStop = try find("mosquitto_loop_stop", as: CMosquitto_loop_stop_function.self)
        disconnect = try find("mosquitto_disconnect", as: CMosquitto_disconnect_function.self)
        publish = try find("mosquitto_publish", as: CMosquitto_publish_function.self)
        strerror = try find("mosquitto_strerror", as: CMosquitto_strerror_function.self)
        connackString = try find("mosquitto_connack_string", as: CMosquitto_connack_string_function.self)
    }
}
