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
#include "core/fields.h"
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

/* A handler reads its inputs through one table of fields (core/fields.h):
 * from its query string, or from a JSON body object. */
int fields_read(struct req *rq, json_t *body, const struct field *f, size_t n, struct kerr *err);

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

/* A drawn report's query (report_opts_read of render/report.h). */
int report_opts_of(struct req *rq, struct report_opts *o, struct kerr *err);

/* The id of the path ({} of the route): a positive decimal integer, else
 * KERR_NOT_FOUND naming what ("run", "alert"). */
int path_id(struct req *rq, const char *what, int64_t *id, struct kerr *err);

/* rs's Link header for the next page: this request's path and query with
 * after=cursor in place of any after (RFC 8288: <...>; rel="next"). */
void query_link_next(struct req *rq, struct resp *rs, const char *cursor);

#endif
