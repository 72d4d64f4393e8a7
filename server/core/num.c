#include "num.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t num_shortest(double v, char *buf, bool real)
{
	int prec, n = 0;

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
