// C surface of PulseAudio used by MeterIO: the simple API for playback, the asynchronous API
// for device introspection and capture (a record stream on the introspection connection).
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
