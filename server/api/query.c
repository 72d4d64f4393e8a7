/* The query parameters of a request (query.h). */
#include "query.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"


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


static const char *query_text(void *rq, const char *key)
{
	return req_query(rq, key);
}

int fields_read(struct req *rq, json_t *body, const struct field *f, size_t n, struct kerr *err)
{
	return fields_get(query_text, rq, body, f, n, err);
}

int report_opts_of(struct req *rq, struct report_opts *o, struct kerr *err)
{
	return report_opts_read(query_text, rq, o, err);
}

int path_id(struct req *rq, const char *what, int64_t *id, struct kerr *err)
{
	const char *s = req_param(rq);
	char *end;

	errno = 0;
	*id = isdigit((unsigned char)s[0]) ? strtoll(s, &end, 10) : 0;
	if (*id <= 0 || errno || *end)
		return kerr_set(err, KERR_NOT_FOUND, "there is no %s with id '%.40s'", what, s);
	return 0;
}

int query_num(struct req *rq, const char *key, double lo, double hi, double *out,
	      struct kerr *err)
{
	const struct field f = {key, FIELD_NUMBER, 0, lo, hi, out, 0};

	return fields_read(rq, NULL, &f, 1, err);
}

int query_int(struct req *rq, const char *key, int64_t min, int64_t max, int64_t *out,
	      struct kerr *err)
{
	const struct field f = {key, FIELD_INTEGER, 0, (double)min, (double)max, out, 0};

	return fields_read(rq, NULL, &f, 1, err);
}

int query_list(struct req *rq, const char *key, double lo, double hi, double *out,
	       size_t max, size_t *n, struct kerr *err)
{
	struct numbers nums = {NULL, 0};
	const struct field f = {key, FIELD_NUMBERS, 0, lo, hi, &nums, max};

	if (fields_read(rq, NULL, &f, 1, err))
		return -1;
	if (nums.v) {
		memcpy(out, nums.v, nums.n * sizeof(double));
		*n = nums.n;
		free(nums.v);
	}
	return 0;
}

int query_bool(struct req *rq, const char *key, bool def, bool *out, struct kerr *err)
{
	const struct field f = {key, FIELD_BOOL, 0, 0, 0, out, 0};

	*out = def;
	return fields_read(rq, NULL, &f, 1, err);
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


/* Write s to f percent-encoded as a query component (RFC 3986's
 * unreserved characters as they are). */
static void link_put(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~')
			fputc(c, f);
		else
			fprintf(f, "%%%02X", c);
	}
}

static void link_param(const char *key, const char *value, void *ctx)
{
	FILE *f = ctx;

	if (!strcmp(key, "after"))
		return;
	fputc('&', f);
	link_put(f, key);
	fputc('=', f);
	link_put(f, value);
}

void query_link_next(struct req *rq, struct resp *rs, const char *cursor)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;	/* no memory: the answer goes without its Link */
	fprintf(f, "<%s?after=", req_path(rq));
	link_put(f, cursor);
	req_query_all(rq, link_param, f);
	fputs(">; rel=\"next\"", f);
	if (fclose(f)) {
		free(text);
		return;
	}
	free(rs->link);
	rs->link = text;
}
