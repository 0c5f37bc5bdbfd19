// C surface of PulseAudio used by MeterIO: the simple API for playback, the asynchronous API
// for device introspection and capture (a record stream on the introspection connection).
//
// The libraries are not linked: MeterIO loads them (dlopen) when a run first talks to a server
// (PulseLibrary), so that a run over files maps neither libpulse nor the sixteen libraries it
// pulls in (D-Bus, X11, libsystemd, libgcrypt, ...): their loading and relocations were about
// 1.5 ms of CPU and 1.8 ms of every run's start-up.
#pragma once
#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/pulseaudio.h>

// Macros that Swift does not import.
static const pa_sample_format_t CPulse_SAMPLE_S16NE = PA_SAMPLE_S16NE;
static const pa_sample_format_t CPulse_SAMPLE_FLOAT32NE = PA_SAMPLE_FLOAT32NE;
static const pa_sample_format_t CPulse_SAMPLE_S24_32NE = PA_SAMPLE_S24_32NE;
static const pa_sample_format_t CPulse_SAMPLE_S32NE = PA_SAMPLE_S32NE;
static const uint32_t CPulse_INVALID_INDEX = PA_INVALID_INDEX;
// A record stream's flags, as pa_simple_new sets them: timing interpolated and kept current,
// the fragment size the caller asks for honoured as the latency.
static const pa_stream_flags_t CPulse_RECORD_FLAGS =
    (pa_stream_flags_t)(PA_STREAM_INTERPOLATE_TIMING | PA_STREAM_ADJUST_LATENCY | PA_STREAM_AUTO_TIMING_UPDATE);

// The types of the functions MeterIO calls (PulseLibrary looks each one up by name).
typedef __typeof__(&pa_channel_map_init_auto) CPulse_channel_map_init_auto;
typedef __typeof__(&pa_channel_map_init_extend) CPulse_channel_map_init_extend;
typedef __typeof__(&pa_channel_map_parse) CPulse_channel_map_parse;
typedef __typeof__(&pa_channel_position_to_string) CPulse_channel_position_to_string;
typedef __typeof__(&pa_context_connect) CPulse_context_connect;
typedef __typeof__(&pa_context_disconnect) CPulse_context_disconnect;
typedef __typeof__(&pa_context_errno) CPulse_context_errno;
typedef __typeof__(&pa_context_get_server_info) CPulse_context_get_server_info;
typedef __typeof__(&pa_context_get_sink_info_list) CPulse_context_get_sink_info_list;
typedef __typeof__(&pa_context_get_sink_input_info_list) CPulse_context_get_sink_input_info_list;
typedef __typeof__(&pa_context_get_source_info_list) CPulse_context_get_source_info_list;
typedef __typeof__(&pa_context_get_source_output_info_list) CPulse_context_get_source_output_info_list;
typedef __typeof__(&pa_context_get_state) CPulse_context_get_state;
typedef __typeof__(&pa_context_move_source_output_by_index) CPulse_context_move_source_output_by_index;
typedef __typeof__(&pa_context_new) CPulse_context_new;
typedef __typeof__(&pa_context_set_state_callback) CPulse_context_set_state_callback;
typedef __typeof__(&pa_context_set_subscribe_callback) CPulse_context_set_subscribe_callback;
typedef __typeof__(&pa_context_subscribe) CPulse_context_subscribe;
typedef __typeof__(&pa_context_unref) CPulse_context_unref;
typedef __typeof__(&pa_mainloop_dispatch) CPulse_mainloop_dispatch;
typedef __typeof__(&pa_mainloop_free) CPulse_mainloop_free;
typedef __typeof__(&pa_mainloop_get_api) CPulse_mainloop_get_api;
typedef __typeof__(&pa_mainloop_new) CPulse_mainloop_new;
typedef __typeof__(&pa_mainloop_poll) CPulse_mainloop_poll;
typedef __typeof__(&pa_mainloop_prepare) CPulse_mainloop_prepare;
typedef __typeof__(&pa_mainloop_wakeup) CPulse_mainloop_wakeup;
typedef __typeof__(&pa_operation_cancel) CPulse_operation_cancel;
typedef __typeof__(&pa_operation_get_state) CPulse_operation_get_state;
typedef __typeof__(&pa_operation_unref) CPulse_operation_unref;
typedef __typeof__(&pa_proplist_gets) CPulse_proplist_gets;
typedef __typeof__(&pa_sample_format_to_string) CPulse_sample_format_to_string;
typedef __typeof__(&pa_simple_drain) CPulse_simple_drain;
typedef __typeof__(&pa_simple_flush) CPulse_simple_flush;
typedef __typeof__(&pa_simple_free) CPulse_simple_free;
typedef __typeof__(&pa_simple_get_latency) CPulse_simple_get_latency;
typedef __typeof__(&pa_simple_new) CPulse_simple_new;
typedef __typeof__(&pa_simple_write) CPulse_simple_write;
typedef __typeof__(&pa_stream_connect_record) CPulse_stream_connect_record;
typedef __typeof__(&pa_stream_disconnect) CPulse_stream_disconnect;
typedef __typeof__(&pa_stream_drop) CPulse_stream_drop;
typedef __typeof__(&pa_stream_get_state) CPulse_stream_get_state;
typedef __typeof__(&pa_stream_new) CPulse_stream_new;
typedef __typeof__(&pa_stream_peek) CPulse_stream_peek;
typedef __typeof__(&pa_stream_set_monitor_stream) CPulse_stream_set_monitor_stream;
typedef __typeof__(&pa_stream_set_read_callback) CPulse_stream_set_read_callback;
typedef __typeof__(&pa_stream_set_state_callback) CPulse_stream_set_state_callback;
typedef __typeof__(&pa_stream_unref) CPulse_stream_unref;
typedef __typeof__(&pa_strerror) CPulse_strerror;
typedef __typeof__(&pa_threaded_mainloop_free) CPulse_threaded_mainloop_free;
typedef __typeof__(&pa_threaded_mainloop_get_api) CPulse_threaded_mainloop_get_api;
typedef __typeof__(&pa_threaded_mainloop_lock) CPulse_threaded_mainloop_lock;
typedef __typeof__(&pa_threaded_mainloop_new) CPulse_threaded_mainloop_new;
typedef __typeof__(&pa_threaded_mainloop_signal) CPulse_threaded_mainloop_signal;
typedef __typeof__(&pa_threaded_mainloop_start) CPulse_threaded_mainloop_start;
typedef __typeof__(&pa_threaded_mainloop_stop) CPulse_threaded_mainloop_stop;
typedef __typeof__(&pa_threaded_mainloop_unlock) CPulse_threaded_mainloop_unlock;
typedef __typeof__(&pa_threaded_mainloop_wait) CPulse_threaded_mainloop_wait;
