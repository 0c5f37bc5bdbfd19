// C surface of libmosquitto (Debian's libmosquitto-dev) used by MeterIO's MQTT client wrapper.
//
// The library is not linked: the wrapper loads it (dlopen) when the first client is made, so
// that a run without --mqtt maps neither it nor the TLS stack it pulls in (libssl and
// libcrypto: their relocations were about 2 ms of every run's start-up, a tenth of a 20 ms
// `analyze`), and calls its functions through pointers it looked up (dlsym).
#pragma once
#include <stdbool.h>
#include <mosquitto.h>

// The types of the functions the wrapper calls.
typedef __typeof__(&mosquitto_lib_init) CMosquitto_lib_init_function;
typedef __typeof__(&mosquitto_new) CMosquitto_new_function;
typedef __typeof__(&mosquitto_destroy) CMosquitto_destroy_function;
typedef __typeof__(&mosquitto_username_pw_set) CMosquitto_username_pw_set_function;
typedef __typeof__(&mosquitto_will_set) CMosquitto_will_set_function;
typedef __typeof__(&mosquitto_tls_set) CMosquitto_tls_set_function;
typedef __typeof__(&mosquitto_int_option) CMosquitto_int_option_function;
typedef __typeof__(&mosquitto_reconnect_delay_set) CMosquitto_reconnect_delay_set_function;
typedef __typeof__(&mosquitto_connect_callback_set) CMosquitto_connect_callback_set_function;
typedef __typeof__(&mosquitto_disconnect_callback_set) CMosquitto_disconnect_callback_set_function;
typedef __typeof__(&mosquitto_publish_callback_set) CMosquitto_publish_callback_set_function;
typedef __typeof__(&mosquitto_connect_async) CMosquitto_connect_async_function;
typedef __typeof__(&mosquitto_loop_start) CMosquitto_loop_start_function;
typedef __typeof__(&mosquitto_loop_stop) CMosquitto_loop_stop_function;
typedef __typeof__(&mosquitto_disconnect) CMosquitto_disconnect_function;
typedef __typeof__(&mosquitto_publish) CMosquitto_publish_function;
typedef __typeof__(&mosquitto_strerror) CMosquitto_strerror_function;
typedef __typeof__(&mosquitto_connack_string) CMosquitto_connack_string_function;
