/* mono_s: seconds on the monotonic clock, for intervals (not dates);
 * clock_in: a deadline that far ahead on a clock, for timed waits. */
#ifndef KARTE_MONO_H
#define KARTE_MONO_H

#include <stdint.h>
#include <time.h>

static inline double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Now plus ns (>= 0) on clock (the one a pthread_cond_timedwait's
 * condition was made for: CLOCK_REALTIME by default). */
static inline struct timespec clock_in(clockid_t clock, int64_t ns)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	ts.tv_sec += (time_t)(ns / 1000000000L);
	ts.tv_nsec += (long)(ns % 1000000000L);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

#endif
