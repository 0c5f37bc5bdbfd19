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
        libInit = try lib.function("mosquitto_lib_init")
        new = try lib.function("mosquitto_new")
        destroy = try lib.function("mosquitto_destroy")
        usernamePasswordSet = try lib.function("mosquitto_username_pw_set")
        willSet = try lib.function("mosquitto_will_set")
        tlsSet = try lib.function("mosquitto_tls_set")
        intOption = try lib.function("mosquitto_int_option")
        reconnectDelaySet = try lib.function("mosquitto_reconnect_delay_set")
        connectCallbackSet = try lib.function("mosquitto_connect_callback_set")
        disconnectCallbackSet = try lib.function("mosquitto_disconnect_callback_set")
        publishCallbackSet = try lib.function("mosquitto_publish_callback_set")
        connectAsync = try lib.function("mosquitto_connect_async")
        loopStart = try lib.function("mosquitto_loop_start")
        loopStop = try lib.function("mosquitto_loop_stop")
        disconnect = try lib.function("mosquitto_disconnect")
        publish = try lib.function("mosquitto_publish")
        strerror = try lib.function("mosquitto_strerror")
        connackString = try lib.function("mosquitto_connack_string")
    }
}
