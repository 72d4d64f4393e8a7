/*
 * libFuzzer harness for karte's OTF2 reader (server/import/otf2in.c over Debian's
 * libotf2): a real archive is written once with libotf2's writer (the
 * tests' tests/otf2/otf2_trace.c, included whole), then each input takes
 * the place of one of its files, chosen by the first byte: the event file
 * (samples, Enter/Leave) or the global definitions (regions, metric,
 * clock). The anchor is left whole: libotf2 4.x leaks its archive when an
 * anchor does not parse (inside OTF2_Reader_Open, before karte holds
 * anything), which LeakSanitizer would report as this harness's. Whatever the bytes, otf2_trace_read returns a trace or an
 * error, and a trace's samples are in time order with finite values.
 * The archive lives in build/fuzz/otf2 (libFuzzer ends by _exit: a folder
 * in /tmp would stay).
 */
#define main otf2_writer_main
#include "../otf2/otf2_trace.c"
#undef main

#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/otf2in.h"

static const char *const files[] = {"build/fuzz/otf2/t/0.evt", "build/fuzz/otf2/t.def",
				    "build/fuzz/otf2/t.otf2"};
static char *orig[3];
static size_t orig_len[3];

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		abort();
	buf = malloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		abort();
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void put(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *args[] = {"otf2_trace", "build/fuzz/otf2", "t", "instrumented", NULL};
	size_t i;

	(void)argc;
	(void)argv;
	if (system("rm -rf build/fuzz/otf2") != 0 || mkdir("build/fuzz/otf2", 0755) ||
	    otf2_writer_main(4, args))
		abort();
	for (i = 0; i < 3; i++)
		orig[i] = slurp(files[i], &orig_len[i]);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct otf2_trace t;
	struct kerr err;
	size_t which, i;

	if (size < 1)
		return 0;
	which = data[0] % 2;
	put(files[which], data + 1, size - 1);
	if (otf2_trace_read(files[2], &t, &err) == 0) {
		for (i = 0; i < t.nsamples; i++)
			if (!isfinite(t.samples[i].t) || !isfinite(t.samples[i].p) ||
			    (i && t.samples[i].t < t.samples[i - 1].t))
				abort();
		otf2_trace_free(&t);
	}
	put(files[which], orig[which], orig_len[which]);
	return 0;
}
