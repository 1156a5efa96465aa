// dtoa.cc - see dtoa.h: a C entry point to libdouble-conversion's shortest
// mode.  No exceptions, no RTTI, no static objects: the C linker needs
// nothing of the C++ runtime but the library itself.
#include "base/dtoa.h"

#include <double-conversion/double-to-string.h>

extern "C" int et_dtoa_shortest(double x, char *digits, int *point)
{
    using double_conversion::DoubleToStringConverter;
    char buf[DoubleToStringConverter::kBase10MaximalLength + 1];
    bool sign = false;
    int length = 0;
    DoubleToStringConverter::DoubleToAscii(x, DoubleToStringConverter::SHORTEST, 0, buf,
                                           (int)sizeof buf, &sign, &length, point);
    for (int i = 0; i < length; i++)
        digits[i] = buf[i];
    return length;
}
