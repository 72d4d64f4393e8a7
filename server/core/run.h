/*
 * run: one measured run of a parallel program, as the API posts and answers
 * it. run_parse_body() turns a request body (one object, an array, or NDJSON)
 * into validated runs, naming the bad field and item on the first error;
 * run_to_json() gives the answer form. Pure: no I/O, no global state.
 */
#ifndef KARTE_RUN_H
#define KARTE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "kerr.h"

/* Limits on what one run may carry (documented in the README). */
#define RUN_NAME_MAX	  128	/* system, application, variant, region and counter names */
#define RUN_KEY_MAX	  256	/* idempotency_key */
#define RUN_LABEL_MAX	  64	/* label keys */
#define RUN_LABEL_VAL_MAX 1024	/* label values */
#define RUN_REGIONS_MAX	  4096	/* regions per run */
#define RUN_COUNTERS_MAX  512	/* counters per region */
#define RUN_LABELS_MAX	  128	/* labels per run */
#define RUN_ENERGIES_KEPT 64	/* region energies a parsed run keeps aside */
#define RUN_PATH_MAX	  32	/* names in a region's path (call-path depth) */
#define RUN_PATH_SEP	  '\x01'	/* joins a path's names in a key: no name holds it */
#define RUN_KEY_SIZE	  (RUN_PATH_MAX * (RUN_NAME_MAX + 1))	/* room for any region's key */

enum run_opt {			/* bits of run.has: which optional numbers are set */
	RUN_HAS_FREQ = 1 << 0,
	RUN_HAS_CAP = 1 << 1,
	RUN_HAS_ENERGY = 1 << 2,
	RUN_HAS_CHI = 1 << 3,	/* chi and gamma (one was posted, the other follows) */
};

struct run {
	int64_t id;		/* 0 until stored */
	char *system;
	char *application;
	char *variant;		/* "" when not posted */
	int64_t p;		/* processors, >= 1 */
	double n;		/* problem size, > 0 */
	double tau;		/* parallel time, seconds, > 0 */
	double chi;		/* overhead, seconds, 0..tau (tau - gamma when only gamma posted);
				   NAN without RUN_HAS_CHI */
	double gamma;		/* parallel computation, seconds (tau - chi when only chi posted);
				   NAN without RUN_HAS_CHI */
	unsigned has;		/* enum run_opt bits */
	double frequency_mhz;
	double power_cap_w;
	double energy_j;
	char *measured_at;	/* ISO 8601 or NULL */
	char *idempotency_key;	/* or NULL */
	char *regions;		/* canonical JSON array text or NULL */
	char *labels;		/* canonical JSON object text or NULL */
	/* as parsed (run_parse_body; from the store: NULL, parsed false): the
	 * first RUN_ENERGIES_KEPT regions that carry energy_j, for the check
	 * on ingest without a second parse of regions */
	struct run_energy {
		char *name;
		double energy_j;
	} *energies;
	size_t nenergies;
	bool parsed;
	char *created_at;	/* set by the store, NULL before */
};

struct run_batch {
	struct run *runs;
	size_t count;
};

enum body_kind { BODY_JSON, BODY_NDJSON };

/* Parse and validate a whole body. JSON: one object or a non-empty array;
 * NDJSON: one object per line (any whitespace between objects). Unknown
 * fields are errors; null stands for "not given". All or nothing: on the first bad
 * item fills err (field, index = item number from 0) and returns -1 with
 * *batch empty. On success the caller frees with run_batch_free(). */
int run_parse_body(const char *body, size_t len, enum body_kind kind,
		   struct run_batch *batch, struct kerr *err);

/* JSON's whitespace is space, tab, newline and return, and a string holds
 * no raw control character. yajl takes \v and \f as blanks and passes raw
 * controls in strings (jansson, which reads what is stored, does not): a
 * body read with yajl is refused here first, naming the line. 0 or -1
 * with err. */
int run_json_controls(const char *body, size_t len, struct kerr *err);

/* A JSON number token s[0, len) as the nearest double, as strtod rounds it;
 * 0, or -1 when it is not a finite number. */
int run_number(const char *s, size_t len, double *out);

/* The first-level regions (no path, or a path of one name) of a stored
 * regions text (a JSON array of region objects, as karted writes it) that
 * carry a name and a numeric energy_j:
 * each(name, energy_j, ctx) in their order, at most max of them, from
 * yajl's events without a tree. Returns how many, or -1 when the text is
 * not such an array (after giving those met before the fault). */
int run_region_energies(const char *regions, size_t max,
			void (*each)(const char *name, double energy_j, void *ctx), void *ctx);

/* A region's key: its path's names joined by RUN_PATH_SEP, or its name
 * when it has no path (a child of the root: the same key as the path
 * [name]). A region object as karted stores it; its depth (1 for a
 * child of the root), or 0 when it has no name (buf ""). */
size_t run_region_key(json_t *region, char *buf, size_t size);

/* A key written out as the importers and metric=region: read a path,
 * "main->solve->MPI_Send", into buf (cut short to size). Returns buf. */
char *run_path_text(const char *key, char *buf, size_t size);

void run_clear(struct run *r);
void run_batch_free(struct run_batch *batch);

/* The answer form of a stored run; a new reference. */
json_t *run_to_json(const struct run *r);

/* Flags for every json_dumps of karte: compact, doubles exact. */
#define KARTE_JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(17))

#endif
