// C surface of libsndfile used by MeterIO (reading, writing, header updates).
#pragma once
#include <sndfile.h>
