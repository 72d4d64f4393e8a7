/*
 * make bench, part 5: the cost of one karte_region_begin/end pair, beside
 * the bare minimum it cannot avoid (two clock_gettime calls), and the bytes
 * allocated by a million pairs after warm-up (mallinfo2). With "rapl" the
 * pair also reads the powercap counters (a fake tree made here, in /tmp).
 * Without RAPL, also the pair from THREADS threads at once (each its own
 * figures: no lock after a thread's first call).
 * usage: bench_region norapl|rapl
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collectors/karte_region.h"
#include "core/mono.h"

#define PAIRS 1000000

static void fake_tree(const char *root)
{
	static const char *const zones[][2] = {{"intel-rapl:0", "package-0"}, {"intel-rapl:0:1", "dram"}};
	char path[512];
	size_t i;
	FILE *f;

	mkdir(root, 0700);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, zones[i][0]);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/%s/name", root, zones[i][0]);
		f = fopen(path, "w");
		fprintf(f, "%s\n", zones[i][1]);
		fclose(f);
		snprintf(path, sizeof(path), "%s/%s/energy_uj", root, zones[i][0]);
		f = fopen(path, "w");
		fprintf(f, "123456789\n");
		fclose(f);
		snprintf(path, sizeof(path), "%s/%s/max_energy_range_uj", root, zones[i][0]);
		f = fopen(path, "w");
		fprintf(f, "262143328850\n");
		fclose(f);
	}
}

#define THREADS 2

/* PAIRS pairs in a thread of its own: its seconds per pair into *arg. */
static void *pairs_in_a_thread(void *arg)
{
	double t0;
	int i;

	karte_region_begin("threaded");	/* this thread's first: its figures made */
	karte_region_end("threaded");
	t0 = mono_s();
	for (i = 0; i < PAIRS; i++) {
		karte_region_begin("threaded");
		karte_region_end("threaded");
	}
	*(double *)arg = (mono_s() - t0) / PAIRS;
	return NULL;
}

/* THREADS threads marking one region at once: the slowest thread's
 * seconds per pair. */
static double threaded(void)
{
	pthread_t th[THREADS];
	double per[THREADS], worst = 0;
	int i;

	for (i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, pairs_in_a_thread, &per[i]))
			return -1;
	for (i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		if (per[i] > worst)
			worst = per[i];
	}
	return worst;
}

int main(int argc, char **argv)
{
	int rapl = argc > 1 && !strcmp(argv[1], "rapl"), i;
	char root[64];
	size_t before, after;
	double t0, pair, bare;
	volatile double sink = 0;

	snprintf(root, sizeof(root), "/tmp/karte-bench-powercap-%d", (int)getpid());
	if (rapl) {
		fake_tree(root);
		setenv("KARTE_POWERCAP_ROOT", root, 1);
	} else {
		setenv("KARTE_REGION_RAPL", "0", 1);
	}
	setenv("KARTE_RESULTS", "/dev/null", 1);
	karte_region_begin("warm");	/* the first call makes the slot */
	karte_region_end("warm");
	before = mallinfo2().uordblks;
	t0 = mono_s();
	for (i = 0; i < PAIRS; i++) {
		karte_region_begin("warm");
		karte_region_end("warm");
	}
	pair = (mono_s() - t0) / PAIRS;
	after = mallinfo2().uordblks;
	t0 = mono_s();
	for (i = 0; i < PAIRS; i++)
		sink += mono_s() - mono_s();
	bare = (mono_s() - t0) / PAIRS;
	printf("region begin/end pair %s RAPL reads: %.0f ns (two clock_gettime: %.0f ns, ratio %.1f); "
	       "%zd bytes allocated by %d pairs after warm-up%s\n", rapl ? "with" : "without",
	       pair * 1e9, bare * 1e9, pair / bare, (ssize_t)(after - before), PAIRS,
	       rapl ? "" : "; target < 1 us");
	if (!rapl) {
		double th = threaded();

		printf("region begin/end pair from %d threads at once, without RAPL reads: %.0f ns (the slowest "
		       "thread; ratio to one thread %.2f); target < 1 us\n", THREADS, th * 1e9, th / pair);
		if (th < 0 || th >= 1e-6)
			return 1;
	}
	if (rapl) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		if (system(cmd))
			return 1;
	}
	return after == before && (rapl || pair < 1e-6) ? 0 : 1;
}
