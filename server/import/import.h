/*
 * import: other tools' files turned into karte runs. A reader per format
 * fills one experiment model (parameters, points, call paths, metrics and
 * the repetitions measured at each), and one mapping turns the model into
 * runs: which parameters are p and n, which metric and region become tau,
 * the call paths one level under that region become the run's regions,
 * every point and repetition one run. CSV rows map to runs directly.
 * Pure: no I/O and no global state; the API and the fuzz target call it.
 */
#ifndef KARTE_IMPORT_H
#define KARTE_IMPORT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/kerr.h"
#include "core/run.h"

/* What one import may hold (documented in docs/api.md). */
#define IMPORT_RUNS_MAX	   1000000  /* runs one file may make (their ids fit an answer) */
#define IMPORT_PARAMS_MAX  16	    /* parameters of a file */
#define IMPORT_PATHS_MAX   100000   /* call paths (regions) of a file */
#define IMPORT_METRICS_MAX 1000	    /* metrics of a file */
#define IMPORT_CELLS_MAX   20000000 /* runs x regions of one import */
#define IMPORT_COLS_MAX	   32	    /* col.<field>=<header> mappings */
#define IMPORT_WARNINGS_MAX 50	    /* warnings listed; the rest are counted */

/* The formats, as the API and the CLI name them. */
#define IMPORT_FORMATS "extrap-text, extrap-jsonl, extrap-json, talpas, caliper-json, cali, " \
		       "geopm-report, csv, ndjson, cube, extrap-experiment, thicket-json"

struct import_col {
	const char *field;	/* a run field: p, n, tau, chi, ..., label.NAME */
	const char *header;	/* the CSV column that holds it */
};

struct import_opts {
	const char *format;	/* NULL: guessed from the content */
	const char *system, *application, *variant;	/* variant NULL: "" */
	const char *p, *n;	/* the file's parameters that are p and n, or NULL */
	double n_value;		/* a constant n (has_n_value) */
	bool has_n_value;
	const char *metric;	/* what becomes tau; NULL: the time metric */
	const char *region;	/* the region that is tau; NULL: the single root */
	const char *chi_regions;   /* "A,B": regions whose sum is chi, or NULL */
	const char *gamma_regions; /* "A,B": regions whose sum is gamma, or NULL */
	double time_scale;	/* seconds per time unit of the file (Caliper); 0: the file's own */
	struct import_col cols[IMPORT_COLS_MAX];	/* csv */
	size_t ncols;
	/* set (by the request's cancel hook) when the client hung up or karted
	 * is stopping: the readers stop at their next step; NULL: never */
	const atomic_bool *cancel;
};

/* Whether the import o reads was stopped; then err says so (503). */
bool import_stopped(const struct import_opts *o, struct kerr *err);

struct import_result {
	const char *format;	/* the format read (a static string) */
	struct run_batch batch;	/* the runs, validated as POST /api/v1/runs does */
	size_t points;		/* measured points that made runs */
	json_t *regions;	/* names of the regions the runs carry */
	json_t *labels;		/* keys of the labels the import set from the file's metadata */
	json_t *warnings;	/* strings: lines skipped, fields left out, ... */
	json_t *available;	/* on a 400 of the mapping: what the file has, or NULL */
	char hash[48];		/* "import:" and the hash of file and mapping; "" for csv and
				 * ndjson, whose runs carry keys of their own instead */
};

/* Read body[0, len) as o->format (or the guessed format) and map it to
 * runs. res->hash names the import by its file, format and mapping (the
 * store remembers it, so the same import again stores nothing); csv and
 * ndjson runs without an idempotency_key get one made of that hash and
 * their row instead (their rows may carry keys of their own). On success 0 and res filled (free
 * with import_result_clear). On error -1 with err (400 naming the field or
 * the line, 413 naming the limit); res->available may then list the
 * file's parameters, metrics and regions (clear res either way). */
int import_read(const char *body, size_t len, const struct import_opts *o,
		struct import_result *res, struct kerr *err);

void import_result_clear(struct import_result *res);

/* The format body looks like, or NULL when it looks like none of them. */
const char *import_guess(const char *body, size_t len);

#endif
