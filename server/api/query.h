/*
 * query: a request's inputs read by field, from its query string or its
 * JSON body, through one table of field specs (fields_read): numbers and
 * integers in a range, lists, yes/no, text; and the series (system,
 * application, variant) and the label.K=V filters. A bad one is a 400
 * naming it.
 */
#ifndef KARTE_QUERY_H
#define KARTE_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/kerr.h"
#include "http/http.h"
#include "store/store.h"
#include "render/report.h"

/* The label.K=V parameters of a query: runs whose labels hold each K with
 * value V. At most RUN_FILTER_LABELS_MAX; 400 naming the parameter for a
 * key or value out of the run limits. */
struct label_set {
	struct label_eq eq[RUN_FILTER_LABELS_MAX];
	size_t n;
};

int query_labels(struct req *rq, struct label_set *ls, struct kerr *err);

/* system=&application=&variant= naming one series (variant "" when left
 * out); -1 with a 400 naming the one missing. */
int query_series(struct req *rq, const char **system, const char **application,
		 const char **variant, struct kerr *err);

/* ---- fields: the one way a handler reads its inputs ----
 *
 * A table of the fields a request may carry, read from its query string or
 * from a JSON body object by fields_read: each bad value is a 400 naming
 * the field (and the item of a list), a missing FIELD_REQUIRED one too. An
 * absent optional field leaves its out alone. */
enum field_kind {
	FIELD_NUMBER,		/* double *: a finite number in [lo, hi] */
	FIELD_INTEGER,		/* int64_t *: a whole number in [lo, hi] */
	FIELD_BOOL,		/* bool *: true or false */
	FIELD_TEXT,		/* const char **: borrowed (from the query, or the body); of
				 * lo to hi bytes when hi > 0 */
	FIELD_NUMBERS,		/* struct numbers *: 1 to max numbers in [lo, hi]; a query
				 * writes them "1,2,3" */
	FIELD_ARRAY,		/* json_t **: a body's array of lo to hi items, borrowed */
};

enum field_flags {
	FIELD_REQUIRED = 1,
	FIELD_ABOVE_LO = 2,	/* lo itself is out: (lo, hi] */
};

/* The numbers of a FIELD_NUMBERS field: v malloc'd (free it), n of them. */
struct numbers {
	double *v;
	size_t n;
};

struct field {
	const char *name;
	enum field_kind kind;
	unsigned flags;
	double lo, hi;
	void *out;
	size_t max;		/* FIELD_NUMBERS: at most this many */
};

#define FIELDS(table) (table), sizeof(table) / sizeof((table)[0])

/* Read every field of f[0, n) from body (a JSON object), or from the
 * query when body is NULL. 0, or -1 with err on the first bad one
 * (numbers read before it are freed). */
int fields_read(struct req *rq, json_t *body, const struct field *f, size_t n, struct kerr *err);

/* The id of the path ({} of the route): a positive decimal integer, else
 * KERR_NOT_FOUND naming what ("run", "alert"). */
int path_id(struct req *rq, const char *what, int64_t *id, struct kerr *err);

/* fields_read of a body that holds these fields only: a key not in f is a
 * 400 naming it. */
int fields_only(json_t *body, const struct field *f, size_t n, struct kerr *err);

/* The fields of one item of a list (only: and no others): a bad one is
 * named prefix + its name ("regions[2].f_opt", "modules.p_max"), at index. */
int fields_in(json_t *item, const char *prefix, long index, const struct field *f, size_t n,
	      bool only, struct kerr *err);

/* One field of the query: a number in [lo, hi] / an integer in [min, max]
 * / a list of at most max numbers into out (*n of them) / "true" or
 * "false" (def when absent). Absent keeps *out. 400 naming key. */
int query_num(struct req *rq, const char *key, double lo, double hi, double *out,
	      struct kerr *err);
int query_int(struct req *rq, const char *key, int64_t min, int64_t max, int64_t *out,
	      struct kerr *err);
int query_list(struct req *rq, const char *key, double lo, double hi, double *out, size_t max,
	       size_t *n, struct kerr *err);
int query_bool(struct req *rq, const char *key, bool def, bool *out, struct kerr *err);

/* A drawn report's query: width, height (px), scale (PNG), base=P,N,
 * tolerance, c2_rtol, max_p and the view x_min, x_max, y_min, y_max; the
 * defaults of report_opts_default for the rest. */
int report_opts_read(struct req *rq, struct report_opts *o, struct kerr *err);

#endif
