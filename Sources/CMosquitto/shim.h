// C surface of libmosquitto (Debian's libmosquitto-dev) used by MeterIO's MQTT client wrapper.
#pragma once
#include <stdbool.h>
#include <mosquitto.h>
