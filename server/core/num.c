#include "num.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole number below 10^15 in magnitude, as %.15g writes it (every
 * digit, no exponent): p, n and counts, most of the numbers of an answer,
 * without printf's float path. Returns the length. */
static int whole(double v, char *buf)
{
	char tmp[24];
	uint64_t u = (uint64_t)(v < 0 ? -v : v);
	int n = 0, k = 0;

	do {
		tmp[k++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		buf[n++] = '-';
	while (k)
		buf[n++] = tmp[--k];
	buf[n] = '\0';
	return n;
}

/* v's first 17 significant digits (d[17], no point) and the power of ten
 * of the first, from one "%.16e" (17 digits is enough for any double). */
static void digits17(double v, char d[17], int *e10, bool *neg)
{
	char t[40];
	int i, k = 0;

	snprintf(t, sizeof(t), "%.16e", v);
	*neg = t[0] == '-';
	for (i = *neg; t[i] != 'e'; i++)
		if (t[i] != '.')
			d[k++] = t[i];
	*e10 = atoi(t + i + 1);
}

/* d (17 digits) rounded to p (15 or 16) into out, the power of ten in *e10
 * (one more when 9s carry over): false when d's dropped digits are a 5
 * and zeros, where d itself was rounded and so cannot tell which way v
 * rounds (then printf is asked). */
static bool round_to(const char d[17], int p, char out[17], int *e10)
{
	int i;
	bool up = d[p] >= '5';

	if (d[p] == '5') {
		for (i = p + 1; i < 17 && d[i] == '0'; i++)
			;
		if (i == 17)
			return false;
	}
	memcpy(out, d, (size_t)p);
	for (i = p - 1; up && i >= 0; i--) {
		up = out[i] == '9';
		out[i] = up ? '0' : (char)(out[i] + 1);
	}
	if (up) {	/* 99...9 -> 100...0 */
		out[0] = '1';
		++*e10;
	}
	return true;
}

/* p significant digits d with the first at 10^e10, written as %.{p}g
 * writes them: fixed for -4 <= e10 < p, else d.ddde+XX; trailing zeros of
 * the fraction, and a bare point, left out. Returns the length. */
static int as_g(const char *d, int p, int e10, bool neg, char *buf)
{
	int n = 0, i, last = p;

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
		n += sprintf(buf + n, "e%c%02d", e10 < 0 ? '-' : '+', e10 < 0 ? -e10 : e10);
		return n;
	}
	if (e10 < 0) {
		buf[n++] = '0';
		buf[n++] = '.';
		for (i = -1; i > e10; i--)
			buf[n++] = '0';
		for (i = 0; i < last; i++)
			buf[n++] = d[i];
	} else {
		for (i = 0; i <= e10; i++)
			buf[n++] = d[i];	/* e10 < p: every one a digit of d */
		if (last > e10 + 1) {
			buf[n++] = '.';
			for (i = e10 + 1; i < last; i++)
				buf[n++] = d[i];
		}
	}
	buf[n] = '\0';
	return n;
}

/* v as %.{p}g (p 15 or 16) from its 17 digits, or from printf when they
 * cannot tell; true when it reads back as v. */
static bool try_digits(double v, const char d17[17], int e17, bool neg, int p, char *buf, int *n)
{
	char d[17];
	int e10 = e17;

	*n = round_to(d17, p, d, &e10) ? as_g(d, p, e10, neg, buf) : snprintf(buf, NUM_TEXT_MAX, "%.*g", p, v);
	return strtod(buf, NULL) == v;
}

size_t num_shortest(double v, char *buf, bool real)
{
	char d17[17], b16[NUM_TEXT_MAX];
	int n = 0, n16, e17;
	bool neg;

	if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v && !(v == 0 && signbit(v))) {	/* range first: a cast out of it is undefined */
		n = whole(v, buf);
		if (real) {
			memcpy(buf + n, ".0", 3);
			n += 2;
		}
		return (size_t)n;
	}
	if (!isfinite(v) || v == 0) {
		n = snprintf(buf, NUM_TEXT_MAX, "%.15g", v);
	} else {
		/* one printf of 17 digits, rounded here to 16 and 15: the shortest
		 * of them that reads back, as %.15g, %.16g, %.17g tried in turn
		 * would give (the 16 digits read back whenever the 15 do) */
		digits17(v, d17, &e17, &neg);
		if (!try_digits(v, d17, e17, neg, 16, b16, &n16))
			n = as_g(d17, 17, e17, neg, buf);
		else if (!try_digits(v, d17, e17, neg, 15, buf, &n)) {
			memcpy(buf, b16, (size_t)n16 + 1);
			n = n16;
		}
	}
	if (real && !strpbrk(buf, ".eEni")) {	/* 4 -> 4.0; not inf, nan */
		memcpy(buf + n, ".0", 3);
		n += 2;
	}
	return (size_t)n;
}
