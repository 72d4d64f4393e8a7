/* Answers a handler fills: JSON bodies, bounded, and errors. No MHD here,
 * so handlers can be driven without a server (tests/fuzz/fuzz_api.c). */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resp.h"
#include "core/jsonw.h"
#include "core/run.h"
#include "core/utf8.h"
#include "core/xalloc.h"

/* An answer that could not be written: over the cap (413), or a body that
 * failed to build (500). Plain text here: resp_errorf comes back to
 * resp_json. */
static void unwritten(struct resp *rs, bool over)
{
	rs->status = over ? 413 : 500;
	rs->body = xstrdup(over ? "{\"error\":\"the answer would be larger than the limit of "
				  "16 MiB; ask for less (fewer points, pairs, node counts "
				  "or samples)\",\"field\":\"answer\"}"
				: "{\"error\":\"internal error: the answer could not be written\"}");
	rs->len = strlen(rs->body);
	rs->content_type = "application/json";
}

void resp_jw(struct resp *rs, int status, struct jw *w)
{
	free(rs->body);
	rs->body = jw_take(w, &rs->len);
	if (!rs->body) {
		unwritten(rs, true);
		return;
	}
	rs->status = status;
	rs->content_type = "application/json";
}

void resp_json(struct resp *rs, int status, json_t *body)
{
	struct jw w;

	free(rs->body);
	rs->body = NULL;
	rs->len = 0;
	if (!body) {
		unwritten(rs, false);
		return;
	}
	jw_init(&w, HTTP_ANSWER_MAX);
	jw_value_new(&w, body);
	resp_jw(rs, status, &w);
}

size_t resp_put_ids(char *out, const int64_t *ids, size_t n)
{
	size_t len = 0, i, k;

	for (i = 0; i < n; i++) {
		char tmp[20];
		uint64_t v = (uint64_t)ids[i];

		if (i)
			out[len++] = ',';
		k = 0;
		do {
			tmp[k++] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		while (k)
			out[len++] = tmp[--k];
	}
	return len;
}

void resp_error(struct resp *rs, const struct kerr *err)
{
	resp_error_with(rs, err, NULL);
}

const char *resp_request_id(const struct resp *rs, char buf[17])
{
	snprintf(buf, 17, "%016llx", (unsigned long long)rs->request_id);
	return buf;
}

/* The one place karte's errors become HTTP statuses. */
static int http_status(int code)
{
	switch (code) {
	case KERR_INVALID:
		return 400;
	case KERR_NOT_FOUND:
		return 404;
	case KERR_TOO_LARGE:
		return 413;
	case KERR_STORE:
		return 503;
	default:
		return 500;
	}
}

/* err answered with status (the error's own, or one a handler chose). */
static void answer(struct resp *rs, int status, const struct kerr *err, json_t *extra)
{
	json_t *o = extra ? extra : json_object();
	char msg[sizeof(err->msg)], field[sizeof(err->field)], id[17];

	/* messages quote input cut at a byte count: keep them valid UTF-8 */
	snprintf(msg, sizeof(msg), "%s", err->msg[0] ? err->msg : "internal error");
	snprintf(field, sizeof(field), "%s", err->field);
	utf8_scrub(msg);
	utf8_scrub(field);
	json_object_set_new(o, "error", json_string(msg));
	if (field[0])
		json_object_set_new(o, "field", json_string(field));
	if (err->index >= 0)
		json_object_set_new(o, "index", json_integer(err->index));
	if (status >= 500) {
		/* the store's own text (hosts, ports, SQL) only in the log,
		 * under the id the answer names */
		if (rs->request_id)
			json_object_set_new(o, "request_id", json_string(resp_request_id(rs, id)));
		free(rs->log);
		rs->log = err->detail[0] ? xstrdup(err->detail) : NULL;
		if (status == 503 && !rs->retry_after)
			rs->retry_after = 1;
	}
	resp_json(rs, status, o);
}

void resp_error_with(struct resp *rs, const struct kerr *err, json_t *extra)
{
	answer(rs, http_status(err->code), err, extra);
}

void resp_errorf(struct resp *rs, int status, const char *fmt, ...)
{
	struct kerr err;
	va_list ap;

	kerr_clear(&err);
	va_start(ap, fmt);
	kerr_vset(&err, KERR_INVALID, fmt, ap);
	va_end(ap);
	answer(rs, status, &err, NULL);
}

static void field_error(struct resp *rs, int status, const char *field, long index,
			const char *fmt, va_list ap)
{
	struct kerr err;

	kerr_clear(&err);
	err.index = index;
	snprintf(err.field, sizeof(err.field), "%s", field);
	kerr_vset(&err, KERR_INVALID, fmt, ap);
	answer(rs, status, &err, NULL);
}

int resp_field_errorf(struct resp *rs, const char *field, long index, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	field_error(rs, 400, field, index, fmt, ap);
	va_end(ap);
	return -1;
}

int resp_field_statusf(struct resp *rs, int status, const char *field, long index,
		       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	field_error(rs, status, field, index, fmt, ap);
	va_end(ap);
	return -1;
}


json_t *json_finite(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}
