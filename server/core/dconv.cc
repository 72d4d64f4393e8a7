// The C face of double-conversion and fast_float (dconv.h). C++ only
// because the libraries are; nothing here throws or allocates.
#include "dconv.h"

#include <climits>
#include <cmath>
#include <system_error>

#include <double-conversion/double-to-string.h>
#include <fast_float/fast_float.h>

using double_conversion::DoubleToStringConverter;

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
	// fast_float (Eisel-Lemire, exact, with a big-number fallback): about
	// four times glibc's strtod on the 17-digit decimals computed values
	// print as. It reads "inf" and "nan" too, which JSON does not have.
	fast_float::from_chars_result r;

	if (len == 0 || ((s[0] < '0' || s[0] > '9') && s[0] != '-') ||
	    (s[0] == '-' && (len == 1 || s[1] < '0' || s[1] > '9')))
		return -1;
	r = fast_float::from_chars(s, s + len, *out);
	return r.ec == std::errc() && r.ptr == s + len ? 0 : -1;
}
