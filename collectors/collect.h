/*
 * karte-collect's parts (collect.c holds main and its options): what they
 * share, the options a command runs with, and each part's entry points.
 *
 *   collect_send.c    idempotency keys, the HTTP client, the spool, flush
 *   collect_runs.c    runs built from options, CSV and JSON files; post, run
 *   collect_import.c  other tools' files sent to karted's import; import
 */
#ifndef KARTE_COLLECT_H
#define KARTE_COLLECT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define JSONF (JSON_COMPACT | JSON_REAL_PRECISION(17))
/* What a POST of runs may be (karted's --max-body, read from the same
 * variable), and a file to import (--max-import-body). */
#define BODY_LIMIT "karted's --max-body (KARTE_MAX_BODY)"
#define IMPORT_LIMIT "karted's --max-import-body (KARTE_MAX_IMPORT_BODY)"

struct opts {
	const char *url, *token, *spool, *system, *application, *variant;
	const char *p, *n, *chi, *gamma, *frequency;
	const char *labels[32];
	int nlabels;
	int retries;
	bool dry_run;
	/* import */
	const char *format, *p_param, *n_param, *n_value, *metric, *region, *chi_regions,
		*gamma_regions, *time_unit;
	const char *cols[32];
	int ncols;
};

struct buf {
	char *p;
	size_t len;
};

enum sent { SENT, REJECTED, UNREACHABLE };

/* How a POST goes: where, as what, and what to show while it is sent. */
struct post {
	const char *path;	/* "/api/v1/runs" or "/api/v1/import?..." */
	const char *type;	/* Content-Type */
	long timeout_s;
	const char *progress;	/* a name to show an upload's progress under, or NULL */
	json_t *answer;		/* out: the parsed answer of a 2xx or 4xx */
	long status;		/* out */
	int shown;		/* the percentage shown last; -1 before */
};

/* collect_send.c */
void content_key(json_t *run, size_t index, char *key);
void random_key(char *key);
char *read_input(const char *file, size_t cap, const char *limit, size_t *len);
enum sent post_body(const struct opts *o, struct post *p, const char *body, size_t len);
int deliver(const struct opts *o, const char *body, size_t len);
int cmd_flush(const struct opts *o);

/* collect_runs.c */
int csv_to_ndjson(const char *file, const struct opts *o, struct buf *out);
int json_to_ndjson(const char *file, const struct opts *o, struct buf *out);
int cmd_post(const struct opts *o, int argc, char **argv);
int cmd_run(const struct opts *o, int argc, char **argv);

/* collect_import.c */
int cmd_import(const struct opts *o, int argc, char **argv);

#endif
