/* Nested regions for tests/collectors.py: a region opened inside another is
 * its child, the same name under two parents two call paths, overhead
 * inside computation taken out of gamma, and at most
 * KARTE_REGION_DEPTH_MAX regions open in a thread at once. */
#include <stdio.h>
#include <time.h>

#include "karte_region.h"

static void spin(double seconds)
{
	struct timespec ts = {0, (long)(seconds * 1e9)};

	nanosleep(&ts, NULL);
}

int main(void)
{
	char name[16];
	int i, bad = 0, opened = 0;

	karte_region_overhead("MPI_Allreduce");
	for (i = 0; i < 3; i++) {
		bad += karte_region_begin("solve") != 0;
		spin(0.004);
		bad += karte_region_begin("MPI_Allreduce") != 0;
		spin(0.002);
		bad += karte_region_begin("MPI_Allreduce") != -1;	/* open already: not re-entered */
		bad += karte_region_end("MPI_Allreduce") != 0;
		bad += karte_region_end("solve") != 0;
		bad += karte_region_begin("io") != 0;
		bad += karte_region_begin("MPI_Allreduce") != 0;
		spin(0.001);
		bad += karte_region_end("MPI_Allreduce") != 0;
		bad += karte_region_end("io") != 0;
	}
	/* a chain as deep as a thread may open: the next one is refused */
	for (i = 0; i <= KARTE_REGION_DEPTH_MAX; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		opened += karte_region_begin(name) == 0;
	}
	for (i = KARTE_REGION_DEPTH_MAX - 1; i >= 0; i--) {
		snprintf(name, sizeof(name), "d%d", i);
		bad += karte_region_end(name) != 0;
	}
	bad += karte_region_end("solve") != -1;	/* not open */
	if (bad || opened != KARTE_REGION_DEPTH_MAX)
		fprintf(stderr, "region_tree: %d calls answered wrongly, %d opened\n", bad, opened);
	return bad || opened != KARTE_REGION_DEPTH_MAX;
}
