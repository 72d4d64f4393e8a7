/*
 * libFuzzer harness for the karte CLI's readers of outside files: the CSV
 * of runs (libcsv: header mapping, numbers, series) and the energy model
 * JSON of `karte plot energy --model`. The first byte picks the reader, the
 * rest is the file. server/cli/karte.c is included whole so that its static
 * readers are reached as they are; its main() is renamed.
 */
#define main karte_cli_main
#include "../../server/cli/karte.c"
#undef main

#include "memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *file;
	size_t i, j, nacc = 0;

	if (size < 1)
		return 0;
	file = memfile(data + 1, size - 1);
	if (data[0] & 1) {
		struct series_acc acc[SERIES_MAX] = {{{0}, NULL, 0, 0}};

		if (read_csv(file, (data[0] & 2) ? 2000 : NAN, acc, &nacc) == 0)
			for (i = 0; i < nacc; i++)
				for (j = 0; j < acc[i].n; j++)
					if (!(acc[i].runs[j].p >= 1) || !(acc[i].runs[j].tau > 0) ||
					    !(acc[i].runs[j].chi >= 0) ||
					    acc[i].runs[j].chi > acc[i].runs[j].tau)
						abort();	/* a run the analyses cannot take */
		for (i = 0; i < SERIES_MAX; i++)
			free(acc[i].runs);
	} else {
		struct report_series rs = {0};
		struct ka_region_model *m = NULL;
		const char **names = NULL;
		json_t *root = NULL;

		read_model(file, &rs, &m, &names, &root);
		free(m);
		free(names);
		json_decref(root);
	}
	return 0;
}
