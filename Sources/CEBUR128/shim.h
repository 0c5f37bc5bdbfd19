// C surface of libebur128 (EBU R128 / ITU-R BS.1770 loudness) the tests' loudness reference (Tests/MeterIOTests/LibEBUR128.swift).
#pragma once
#include <ebur128.h>
