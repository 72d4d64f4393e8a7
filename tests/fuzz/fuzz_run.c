/*
 * libFuzzer harness for the request body parser (server/core/run.c): any bytes,
 * as JSON and as NDJSON, must give runs that satisfy every rule of a run or
 * a 400 with a sentence, and never a crash, a leak or undefined behaviour
 * (built with -fsanitize=fuzzer,address,undefined). The runs it accepts are
 * checked against the contract here, so a validation hole fails too.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"

static void check(const struct run_batch *b)
{
	size_t i;

	for (i = 0; i < b->count; i++) {
		const struct run *r = &b->runs[i];

		if (!r->system || !*r->system || !r->application || !*r->application || !r->variant ||
		    r->p < 1 || !(r->n > 0) || !isfinite(r->n) || !(r->tau > 0) || !isfinite(r->tau) ||
		    strchr(r->system, ':') || strchr(r->application, ':'))
			abort();
		/* whatever was accepted serialises, whole: strict UTF-8 everywhere */
		{
			json_t *o = run_to_json(r);
			char *text = json_dumps(o, KARTE_JSON_FLAGS);

			if (!text || (r->labels && !json_object_get(o, "labels")) ||
			    (r->regions && !json_object_get(o, "regions")))
				abort();
			free(text);
			json_decref(o);
		}
		/* chi and gamma: both in [0, tau], or both NAN (tau alone) */
		if (r->has & RUN_HAS_CHI) {
			if (!(r->chi >= 0) || r->chi > r->tau * (1 + 1e-12) || !isfinite(r->gamma))
				abort();
		} else if (!isnan(r->chi) || !isnan(r->gamma)) {
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run_batch b;
	struct kerr err;
	int kind;

	for (kind = 0; kind < 2; kind++) {
		if (run_parse_body((const char *)data, size, kind ? BODY_NDJSON : BODY_JSON, &b, &err)) {
			if (err.code != KERR_INVALID || !err.msg[0] || b.count || b.runs)
				abort();
			continue;
		}
		check(&b);
		run_batch_free(&b);
	}
	return 0;
}
