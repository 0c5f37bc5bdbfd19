// C surface of FFTW (single precision) used by MeterIO's spectrum transform.
#pragma once
#include <fftw3.h>
