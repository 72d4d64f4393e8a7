// The C face of double-conversion (dconv.h). C++ only because the
// library is; nothing here throws or allocates.
#include "dconv.h"

#include <climits>
#include <cmath>

#include <double-conversion/double-to-string.h>
#include <double-conversion/string-to-double.h>

using double_conversion::DoubleToStringConverter;
using double_conversion::StringToDoubleConverter;

int dconv_shortest(double v, char digits[18], int *e10, bool *neg)
{
	int length = 0, point = 0;
	bool sign = false;

	DoubleToStringConverter::DoubleToAscii(v, DoubleToStringConverter::SHORTEST, 0, digits, 18,
					       &sign, &length, &point);
	*neg = sign;
	*e10 = point - 1;	// digits 0.d1d2... x 10^point
	return length;
}

int dconv_strtod(const char *s, size_t len, double *out)
{
	// strict: no spaces, no junk, no hex, no "Infinity"/"NaN" words
	static const StringToDoubleConverter conv(StringToDoubleConverter::NO_FLAGS, NAN, NAN,
						  nullptr, nullptr);
	int used = 0;

	if (len == 0 || len > INT_MAX)
		return -1;
	*out = conv.StringToDouble(s, (int)len, &used);
	return (size_t)used == len && !std::isnan(*out) ? 0 : -1;
}
