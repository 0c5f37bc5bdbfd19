// C surface of libebur128 (EBU R128 / ITU-R BS.1770 loudness) used by MeterIO's EBUR128Loudness.
#pragma once
#include <ebur128.h>
