// The C face of fmt, fast_float and std::sort (dconv.h). C++ only because the
// libraries are; nothing here throws or allocates.
#include "dconv.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include <fast_float/fast_float.h>
#include <fmt/compile.h>
#include <fmt/format.h>

// Two digits of a pair table at a time, from the end of buf[0..k).
static void pairs_back(uint32_t u, char *buf, size_t k)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";

	for (; k >= 2; k -= 2, u /= 100)
		memcpy(buf + k - 2, pairs + 2 * (u % 100), 2);
	if (k)
		buf[0] = (char)('0' + u % 10);
}

size_t dconv_digits(uint64_t u, char *buf)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
		10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
	};
	// how many: from the bit length, 1233/4096 being about log10(2)
	size_t k = (size_t)((64 - __builtin_clzll(u | 1)) * 1233 >> 12), lo;

	k += k < 20 && u >= pow10[k];
	k += k == 0;
	// in 32-bit parts: the last eight digits, then the eight before
	// them, then what is left (a 64-bit division is several times slower)
	if (k <= 9) {
		pairs_back((uint32_t)u, buf, k);
		return k;
	}
	lo = k - 8;
	pairs_back((uint32_t)(u % 100000000), buf + lo, 8);
	u /= 100000000;
	if (lo <= 9) {
		pairs_back((uint32_t)u, buf, lo);
		return k;
	}
	pairs_back((uint32_t)(u % 100000000), buf + lo - 8, 8);
	pairs_back((uint32_t)(u / 100000000), buf, lo - 8);
	return k;
}

// fmt's Dragonbox itself, where the fmt installed has it as fmt 9 to 11
// declare it (Debian 12 and 13, Ubuntu 24.04): the digits as one integer,
// 21 ns a double here, against 55 ns for "{}" and reading its text back.
// It is fmt's detail namespace, not its documented API: any other fmt
// takes the "{}" path below, which gives the same digits (so does a
// build with -DDCONV_TEXT, which is how the tests check that path).
#if !defined(DCONV_TEXT) && defined(FMT_VERSION) && FMT_VERSION >= 90000 && FMT_VERSION < 120000
#define DCONV_DRAGONBOX 1
#endif

int dconv_shortest(double v, char digits[18], int *e10, bool *neg)
{
#ifdef DCONV_DRAGONBOX
	auto d = fmt::detail::dragonbox::to_decimal(v);	// v = significand * 10^exponent
	unsigned long long s = d.significand;
	int k;

	*neg = v < 0;
	while (s % 10 == 0 && s > 9) {	// 1200: digits 12 (Dragonbox leaves none)
		s /= 10;
		d.exponent++;
	}
	k = (int)dconv_digits(s, digits);
	digits[k] = '\0';
	*e10 = d.exponent + k - 1;
	return k;
#else
	// fmt's "{}" is the shortest text that reads back, the closest of
	// them (Dragonbox), in fixed or exponent form: its digits and the
	// power of ten of the first are read off that text
	char text[40], *end = fmt::format_to(text, FMT_COMPILE("{}"), v), *c = text;
	int k = 0, seen = 0, point = -1, lead = 0, exp = 0;

	*end = '\0';	// at most 24 characters: "-1.2345678901234567e-308"
	*neg = *c == '-';
	c += *neg;
	for (; c < end && *c != 'e'; c++) {
		if (*c == '.')
			point = seen + lead;
		else if (*c == '0' && seen == 0)	// leading zeros of 0.000123
			lead++;
		else if (seen++ < 17)
			digits[k++] = *c;
	}
	if (point < 0)
		point = seen + lead;
	if (c < end)
		exp = atoi(c + 1);
	while (k > 1 && digits[k - 1] == '0')	// 1200 in fixed form: digits 12
		k--;
	digits[k] = '\0';
	*e10 = point - lead - 1 + exp;
	return k;
#endif
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

void dconv_sort(double *v, size_t n)
{
	std::sort(v, v + n);
}
