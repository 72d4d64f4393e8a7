/*
 * libFuzzer harness for one reader of POST /api/v1/import (server/import*.c),
 * built once per format (IMPORT_FORMAT, from the Makefile): any file must
 * give runs that obey every rule of a run, or a 4xx with a sentence, never
 * a crash, a leak, undefined behaviour or a 500. The first byte picks the
 * mapping options, so their paths are reached too; the rest is the file.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "import/import.h"

#ifndef IMPORT_FORMAT
#define IMPORT_FORMAT "extrap-text"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_opts o = {0};
	struct import_result res;
	struct kerr err;
	size_t i;

	if (size < 1)
		return 0;
	o.format = (data[0] & 128) ? NULL : IMPORT_FORMAT;	/* the guess too */
	o.system = "s";
	o.application = "a";
	if (data[0] & 1) {
		o.has_n_value = true;
		o.n_value = 10;
	}
	o.region = (data[0] & 2) ? "main" : NULL;
	o.metric = (data[0] & 4) ? "time" : NULL;
	o.p = (data[0] & 8) ? "x" : NULL;
	o.chi_regions = (data[0] & 16) ? "a,main->b" : NULL;
	o.time_scale = (data[0] & 32) ? 1e-6 : 0;
	if (data[0] & 64) {
		o.cols[0] = (struct import_col){"p", "nodes"};
		o.cols[1] = (struct import_col){"label.cc", "compiler"};
		o.ncols = 2;
	}
	if (import_read((const char *)data + 1, size - 1, &o, &res, &err) == 0) {
		if (!res.batch.count || res.batch.count > IMPORT_RUNS_MAX || !res.format)
			abort();
		for (i = 0; i < res.batch.count; i++) {
			const struct run *r = &res.batch.runs[i];

			/* a repeat is known by the import's hash, or csv's and ndjson's keys */
			if (r->p < 1 || !(r->n > 0) || !isfinite(r->n) || !(r->tau > 0) || !isfinite(r->tau) ||
			    (!res.hash[0] && !r->idempotency_key))
				abort();
		}
	} else if (!(err.code == KERR_INVALID || err.code == KERR_TOO_LARGE || err.code == KERR_NOT_FOUND) || !err.msg[0]) {
		abort();
	}
	import_result_clear(&res);
	return 0;
}
