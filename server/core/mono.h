/* mono_s: seconds on the monotonic clock, for intervals (not dates). */
#ifndef KARTE_MONO_H
#define KARTE_MONO_H

#include <time.h>

static inline double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif
