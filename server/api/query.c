/* The query parameters of a request (query.h). */
#include "query.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


struct label_query {
	struct label_set *ls;
	struct kerr *err;
	int rc;
};

static void label_param(const char *key, const char *value, void *ctx)
{
	struct label_query *q = ctx;
	const char *k = key + 6;

	if (q->rc || strncmp(key, "label.", 6))
		return;
	if (!*k || strlen(k) > RUN_LABEL_MAX || strlen(value) > RUN_LABEL_VAL_MAX)
		q->rc = kerr_field(q->err, KERR_INVALID, key, "label.KEY=VALUE takes a key of 1 to %d bytes "
				   "and a value of at most %d", RUN_LABEL_MAX, RUN_LABEL_VAL_MAX);
	else if (q->ls->n == RUN_FILTER_LABELS_MAX)
		q->rc = kerr_field(q->err, KERR_INVALID, key, "at most %d label filters", RUN_FILTER_LABELS_MAX);
	else
		q->ls->eq[q->ls->n++] = (struct label_eq){k, value};
}

int query_labels(struct req *rq, struct label_set *ls, struct kerr *err)
{
	struct label_query q = {ls, err, 0};

	ls->n = 0;
	req_query_all(rq, label_param, &q);
	return q.rc;
}


/* A query parameter that is a number in [lo, hi]; absent keeps *out. */
int query_num(struct req *rq, const char *key, double lo, double hi, double *out,
	      struct kerr *err)
{
	const char *s = req_query(rq, key);
	char *end;
	double v;

	if (!s)
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !(v >= lo && v <= hi))
		return kerr_field(err, KERR_INVALID, key, "%s must be a number from %g to %g (got '%.40s')", key,
				  lo, hi, s);
	*out = v;
	return 0;
}

/* A query parameter that is an integer in [min, max]; absent keeps *out. */
int query_int(struct req *rq, const char *key, int64_t min, int64_t max, int64_t *out,
	      struct kerr *err)
{
	const char *s = req_query(rq, key);
	long long v;
	char *end;

	if (!s)
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		return kerr_field(err, KERR_INVALID, key, "%s must be an integer from %lld to %lld (got '%.40s')",
				  key, (long long)min, (long long)max, s);
	*out = v;
	return 0;
}

/* A comma-separated list of numbers in [lo, hi]: at most max of them. */
int query_list(struct req *rq, const char *key, double lo, double hi, double *out,
	       size_t max, size_t *n, struct kerr *err)
{
	const char *s = req_query(rq, key);
	char *end;

	if (!s)
		return 0;
	*n = 0;
	while (*s) {
		errno = 0;
		out[*n] = strtod(s, &end);
		if (end == s || errno || !(out[*n] >= lo && out[*n] <= hi) || (*end && *end != ','))
			return kerr_field(err, KERR_INVALID, key,
					  "%s must be a comma-separated list of numbers from %g to %g",
					  key, lo, hi);
		if (++*n == max && *end)
			return kerr_field(err, KERR_INVALID, key, "%s takes at most %zu values", key, max);
		s = *end ? end + 1 : end;
	}
	if (*n == 0)
		return kerr_field(err, KERR_INVALID, key, "%s is empty", key);
	return 0;
}

/* A yes/no query parameter: "true" or "false", def when absent. */
int query_bool(struct req *rq, const char *key, bool def, bool *out, struct kerr *err)
{
	const char *s = req_query(rq, key);

	*out = def;
	if (!s)
		return 0;
	if (strcmp(s, "true") && strcmp(s, "false"))
		return kerr_field(err, KERR_INVALID, key, "%s must be true or false", key);
	*out = !strcmp(s, "true");
	return 0;
}

int query_series(struct req *rq, const char **system, const char **application,
		 const char **variant, struct kerr *err)
{
	*system = req_query(rq, "system");
	*application = req_query(rq, "application");
	*variant = req_query(rq, "variant") ? req_query(rq, "variant") : "";
	if (!*system || !**system || !*application || !**application)
		return kerr_field(err, KERR_INVALID, *system && **system ? "application" : "system",
				  "system and application (and variant) select the series");
	return 0;
}
