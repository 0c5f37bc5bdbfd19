// C surface of PulseAudio used by MeterIO: the simple API for capture and playback,
// the asynchronous API for device introspection.
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
