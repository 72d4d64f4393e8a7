/* A program instrumented with the region API, for tests/collectors.py. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "karte_region.h"

static void spin(double seconds)
{
	struct timespec ts = {0, (long)(seconds * 1e9)};

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int i, iters = argc > 1 ? atoi(argv[1]) : 5;

	karte_region_overhead("exchange");
	for (i = 0; i < iters; i++) {
		karte_region_begin("resid");
		spin(0.004);
		karte_region_end("resid");
		karte_region_begin("exchange");
		spin(0.002);
		karte_region_end("exchange");
	}
	return 0;	/* the run is written at exit */
}
