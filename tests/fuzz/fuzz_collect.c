/*
 * libFuzzer harness for karte-collect's readers of outside files: a CSV of
 * runs (libcsv) and a JSON / NDJSON results file (other tools' files are
 * read by karted: fuzz_import). The first byte picks the reader, the rest is the file. What a reader
 * turns into NDJSON must be runs karted's own parser takes or refuses with
 * a sentence, never anything that crashes it: the readers of
 * collectors/collect_runs.c, linked as karte-collect links them.
 */
#include <stdint.h>
#include <stdlib.h>

#include "collectors/collect.h"
#include "memfile.h"
#include "core/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct opts o = {0};
	struct buf b = {NULL, 0};
	const char *file;

	if (size < 1)
		return 0;
	o.system = "s";
	o.application = "a";
	file = memfile(data + 1, size - 1);
	switch (data[0] % 2) {
	case 0:
		if (csv_to_ndjson(file, &o, &b) == 0) {
			struct run_batch rb;
			struct kerr e;

			if (b.len && run_parse_body(b.p, b.len, BODY_NDJSON, &rb, &e) == 0)
				run_batch_free(&rb);
		}
		free(b.p);
		break;
	default:
		if (json_to_ndjson(file, &o, &b) == 0)
			free(b.p);
		break;
	}
	return 0;
}
