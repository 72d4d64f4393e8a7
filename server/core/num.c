#include "num.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dconv.h"

size_t num_int(int64_t v, char *buf)
{
	size_t n = v < 0;

	if (v < 0)
		buf[0] = '-';
	n += dconv_digits(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, buf + n);
	buf[n] = '\0';
	return n;
}

/* p significant digits d with the first at 10^e10, written as %.{p}g
 * writes them: fixed for -4 <= e10 < p, else d.ddde+XX; trailing zeros of
 * the fraction, and a bare point, left out. Returns the length; *whole
 * says it is written as a whole number (no point, no exponent). */
static int as_g(const char *d, int p, int e10, bool neg, char *buf, bool *whole)
{
	int n = 0, i, last = p;
	unsigned x;

	while (last > 1 && d[last - 1] == '0')
		last--;
	if (neg)
		buf[n++] = '-';
	if (e10 < -4 || e10 >= p) {
		buf[n++] = d[0];
		if (last > 1) {
			buf[n++] = '.';
			for (i = 1; i < last; i++)
				buf[n++] = d[i];
		}
		buf[n++] = 'e';
		buf[n++] = e10 < 0 ? '-' : '+';
		x = (unsigned)(e10 < 0 ? -e10 : e10);	/* two digits at least, as printf */
		if (x >= 100)
			buf[n++] = (char)('0' + x / 100);
		buf[n++] = (char)('0' + x / 10 % 10);
		buf[n++] = (char)('0' + x % 10);
		buf[n] = '\0';
		*whole = false;
		return n;
	}
	if (e10 < 0) {
		buf[n++] = '0';
		buf[n++] = '.';
		for (i = -1; i > e10; i--)
			buf[n++] = '0';
		for (i = 0; i < last; i++)
			buf[n++] = d[i];
		*whole = false;
	} else {
		for (i = 0; i <= e10; i++)
			buf[n++] = d[i];	/* e10 < p: every one a digit of d */
		*whole = last <= e10 + 1;
		if (!*whole) {
			buf[n++] = '.';
			for (i = e10 + 1; i < last; i++)
				buf[n++] = d[i];
		}
	}
	buf[n] = '\0';
	return n;
}

/* A subnormal as the first of %.15g, %.16g, %.17g that reads back: below
 * DBL_MIN a double has fewer than 15 digits of precision, so its shortest
 * form (5e-324) can be shorter than the %.15g that every answer has
 * always written (4.94065645841247e-324). Rare enough for printf. */
static int subnormal(double v, char *buf)
{
	int n = 0, prec;

	for (prec = 15; prec <= 17; prec++) {
		n = snprintf(buf, NUM_TEXT_MAX, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return n;
}

size_t num_shortest(double v, char *buf, bool real)
{
	char d[18];
	int n = 0, k, e10;
	bool neg, whole;

	/* a whole number below 10^15 (p, n and counts, most numbers of an
	 * answer) without the float path; range first: a cast out of it is
	 * undefined */
	if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v && !(v == 0 && signbit(v))) {
		n = (int)num_int((int64_t)v, buf);	/* every digit, no exponent: as %.15g */
		if (real) {
			memcpy(buf + n, ".0", 3);
			n += 2;
		}
		return (size_t)n;
	}
	if (!isfinite(v) || v == 0) {
		n = snprintf(buf, NUM_TEXT_MAX, "%.15g", v);
	} else if (fabs(v) < DBL_MIN) {
		n = subnormal(v, buf);
	} else {
		/* the shortest digits that read back, and the closest of them
		 * (Schubfach, dconv.h); written as %.{p}g with p = 15, 16 or 17
		 * writes them, the first precision at which printf's digits read
		 * back: for a normal double no other 15-digit decimal reads back
		 * as v, and at 16 and 17 digits printf's are the closest too */
		k = dconv_shortest(v, d, &e10, &neg);
		for (; k < 15; k++)
			d[k] = '0';
		n = as_g(d, k, e10, neg, buf, &whole);
		if (real && whole) {	/* 16 or 17 digits, 1234567890123456: no point */
			memcpy(buf + n, ".0", 3);
			n += 2;
		}
		return (size_t)n;
	}
	if (real && !strpbrk(buf, ".eEni")) {	/* 4 -> 4.0; not inf, nan */
		memcpy(buf + n, ".0", 3);
		n += 2;
	}
	return (size_t)n;
}
