/*
 * make bench, part 5: the cost of one karte_region_begin/end pair, beside
 * the bare minimum it cannot avoid (two clock_gettime calls), and the bytes
 * allocated by a million pairs after warm-up (mallinfo2). With "rapl" the
 * pair also reads the powercap counters (a fake tree made here, in /tmp).
 * usage: bench_region norapl|rapl
 */
#include <malloc.h>
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
	if (rapl) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		if (system(cmd))
			return 1;
	}
	return after == before && (rapl || pair < 1e-6) ? 0 : 1;
}
