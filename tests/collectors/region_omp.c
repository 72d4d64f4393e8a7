/* The region API from OpenMP threads, for tests/collectors.py: every thread
 * marks "step" 50 times (2 ms each) inside a parallel loop, the first thread
 * also marks "serial" once; built with -fsanitize=thread and run with
 * Archer, so a race in the library is a failure. */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#include "karte_region.h"

int main(void)
{
	int bad = 0;

	karte_region_overhead("serial");
#pragma omp parallel num_threads(4) reduction(+ : bad)
	{
		int i;

		for (i = 0; i < 50; i++) {
			bad += karte_region_begin("step") != 0;
			usleep(2000);
			bad += karte_region_end("step") != 0;
		}
#pragma omp master
		{
			bad += karte_region_begin("serial") != 0;
			usleep(20000);
			bad += karte_region_end("serial") != 0;
		}
	}
	if (bad)
		fprintf(stderr, "region_omp: %d calls failed\n", bad);
	return bad || karte_finish() ? 1 : 0;
}
