/*
 * query: the parameters of a request's query string read once, by field:
 * numbers and integers in a range, lists, yes/no, the series (system,
 * application, variant) and the label.K=V filters; a bad one is a 400
 * naming it.
 */
#ifndef KARTE_QUERY_H
#define KARTE_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kerr.h"
#include "http/http.h"
#include "store/store.h"

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

/* A query parameter that is a number in [lo, hi] / an integer in [min,
 * max]; absent keeps *out. 400 naming key. */
int query_num(struct req *rq, const char *key, double lo, double hi, double *out,
	      struct kerr *err);
int query_int(struct req *rq, const char *key, int64_t min, int64_t max, int64_t *out,
	      struct kerr *err);

/* A comma-separated list of numbers in [lo, hi], at most max, into out
 * (*n of them); absent leaves out and *n alone. 400 naming key. */
int query_list(struct req *rq, const char *key, double lo, double hi, double *out, size_t max,
	       size_t *n, struct kerr *err);

/* A yes/no query parameter: "true" or "false", def when absent. */
int query_bool(struct req *rq, const char *key, bool def, bool *out, struct kerr *err);

#endif
