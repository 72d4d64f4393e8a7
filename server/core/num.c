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

size_t num_shortest(double v, char *buf, bool real)
{
	int prec, n = 0;

	if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v && !(v == 0 && signbit(v))) {	/* range first: a cast out of it is undefined */
		n = whole(v, buf);
		if (real) {
			memcpy(buf + n, ".0", 3);
			n += 2;
		}
		return (size_t)n;
	}
	for (prec = 15; prec <= 17; prec++) {
		n = snprintf(buf, NUM_TEXT_MAX, "%.*g", prec, v);
		if (prec == 17 || strtod(buf, NULL) == v)
			break;
	}
	if (real && !strpbrk(buf, ".eEni")) {	/* 4 -> 4.0; not inf, nan */
		memcpy(buf + n, ".0", 3);
		n += 2;
	}
	return (size_t)n;
}
