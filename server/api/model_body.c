/* The body of POST /api/v1/analysis/model, read by yajl's callbacks into
 * arrays (model_body.h). One place where it stands: `where` (which list or
 * object the next token belongs to) and `want` (the member a key named). */
#include "model_body.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "core/utf8.h"
#include "core/xalloc.h"

enum where { W_BODY, W_TOP, W_PAR, W_PTS, W_PT, W_COORDS, W_VALS, W_PRED, W_PREDC, W_END };
enum want { K_NONE, K_PAR, K_PTS, K_PRED, K_RES, K_COORDS, K_VALS };
enum tok { T_SCALAR, T_FALSE, T_TRUE, T_NUMBER, T_STRING, T_MAP, T_ARRAY };

struct mbx {
	struct model_body *mb;
	struct kerr *err;
	yajl_handle h;
	enum where where;
	enum want want;
	unsigned seen;			/* bit K_*: the member was given */
	size_t npar;			/* parameters listed */
	size_t npts;			/* points begun */
	size_t ncap;			/* room in mb->o */
	size_t pt_first, ncoord;	/* this point: its first value, coordinates given */
	double x[KA_PMNF_PARAMS];	/* its coordinates */
	unsigned char *pt_ncoord;	/* each point's count of coordinates (to check against nparams) */
	size_t pt_cap;
	unsigned char pred_n[MODEL_PREDICT_MAX];	/* each prediction's count of coordinates */
	size_t end;			/* bytes up to the end of the body's object */
};

static int bad(struct mbx *x, enum kerr_code code, long index, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int bad(struct mbx *x, enum kerr_code code, long index, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kerr_vset(x->err, code, fmt, ap);
	va_end(ap);
	snprintf(x->err->field, sizeof(x->err->field), "%s", field);
	x->err->index = index;
	return 0;	/* yajl stops */
}

static int bad_point(struct mbx *x)
{
	char f[32];

	snprintf(f, sizeof(f), "points[%zu]", x->npts - 1);
	return bad(x, KERR_INVALID, (long)x->npts - 1, f, "%s must be {\"coordinates\": [...], \"values\": "
		   "[one or more numbers]}", f);
}

static int bad_coords(struct mbx *x)
{
	char f[48];

	snprintf(f, sizeof(f), "points[%zu].coordinates", x->npts - 1);
	return bad(x, KERR_INVALID, (long)x->npts - 1, f, "%s must be an array of numbers above 0 and at "
		   "most %g, one per parameter", f, MODEL_MAGNITUDE);
}

static int bad_pred(struct mbx *x)
{
	char f[32];

	snprintf(f, sizeof(f), "predict[%zu]", x->mb->npred - 1);
	return bad(x, KERR_INVALID, (long)x->mb->npred - 1, f, "%s must be an array of numbers above 0 "
		   "and at most %g, one per parameter", f, MODEL_MAGNITUDE);
}

static int add_value(struct mbx *x, double v)
{
	struct model_body *mb = x->mb;
	char f[48];

	if (!(fabs(v) <= MODEL_MAGNITUDE)) {
		snprintf(f, sizeof(f), "points[%zu].values", x->npts - 1);
		return bad(x, KERR_INVALID, (long)x->npts - 1, f, "%s[%zu] must be a number of magnitude at "
			   "most %g", f, mb->nv - x->pt_first, MODEL_MAGNITUDE);
	}
	if (mb->nv == MODEL_VALUES_MAX)
		return bad(x, KERR_TOO_LARGE, (long)x->npts - 1, "points", "points carry more than %d values, "
			   "the most one model takes", MODEL_VALUES_MAX);
	if (mb->nv == x->ncap) {
		x->ncap = x->ncap ? 2 * x->ncap : 1024;
		mb->o = xrealloc(mb->o, x->ncap * sizeof(*mb->o));
	}
	mb->o[mb->nv++].v = v;
	return 1;
}

/* A coordinate of a point or a prediction: above 0, kept while there is
 * room (a count past KA_PMNF_PARAMS is refused once nparams is known). */
static int add_coord(struct mbx *x, double v, double *to, size_t *n, int (*refuse)(struct mbx *))
{
	if (!(v > 0 && v <= MODEL_MAGNITUDE))
		return refuse(x);
	if (*n < KA_PMNF_PARAMS)
		to[*n] = v;
	if (*n <= KA_PMNF_PARAMS)
		++*n;
	return 1;
}

/* Any value token: where it may stand, and what it opens. */
static int value(struct mbx *x, enum tok t, const char *s, size_t len)
{
	struct model_body *mb = x->mb;
	enum want want = x->want;
	double v = NAN;
	size_t n;

	x->want = K_NONE;
	if (t == T_NUMBER && run_number(s, len, &v))
		v = NAN;	/* not finite: refused as out of range below */
	switch (x->where) {
	case W_BODY:
		if (t != T_MAP)
			return bad(x, KERR_INVALID, -1, "", "the body must be a JSON object");
		x->where = W_TOP;
		return 1;
	case W_TOP:
		if (want == K_RES) {
			if (t == T_STRING && len == 4 && !memcmp(s, "auto", 4))
				mb->resource = MODEL_RESOURCE_AUTO;
			else if (t == T_TRUE || t == T_FALSE)
				mb->resource = t == T_TRUE ? MODEL_RESOURCE : MODEL_AS_GIVEN;
			else
				return bad(x, KERR_INVALID, -1, "resource", "resource must be true, false or "
					   "\"auto\"");
			return 1;
		}
		if (t != T_ARRAY) {
			static const char *const names[] = {"", "parameters", "points", "predict"};
			static const char *const sizes[] = {"", "1 to 2", "1 or more", "0 to 1000"};

			return bad(x, KERR_INVALID, -1, names[want], "%s must be an array of %s items",
				   names[want], sizes[want]);
		}
		x->where = want == K_PAR ? W_PAR : want == K_PTS ? W_PTS : W_PRED;
		if (want == K_PRED)
			mb->pred = xmalloc(MODEL_PREDICT_MAX * KA_PMNF_PARAMS * sizeof(double));
		return 1;
	case W_PAR:
		n = x->npar++;
		if (t != T_STRING || len == 0 || len > RUN_NAME_MAX || !utf8_valid((const unsigned char *)s, len))
			return bad(x, KERR_INVALID, (long)n, "parameters", "parameters[%zu] must be a name of "
				   "1 to %d bytes", n, RUN_NAME_MAX);
		if (n < KA_PMNF_PARAMS)
			memcpy(mb->names[n], s, len);
		return 1;
	case W_PTS:
		x->npts++;
		if (t != T_MAP)
			return bad_point(x);
		if (x->npts > x->pt_cap) {
			x->pt_cap = x->pt_cap ? 2 * x->pt_cap : 256;
			x->pt_ncoord = xrealloc(x->pt_ncoord, x->pt_cap);
		}
		x->pt_first = mb->nv;
		x->ncoord = 0;
		x->where = W_PT;
		x->seen &= ~(1u << K_COORDS | 1u << K_VALS);
		return 1;
	case W_PT:
		if (t != T_ARRAY)
			return want == K_COORDS ? bad_coords(x) : bad_point(x);
		x->where = want == K_COORDS ? W_COORDS : W_VALS;
		return 1;
	case W_COORDS:
		return t == T_NUMBER ? add_coord(x, v, x->x, &x->ncoord, bad_coords) : bad_coords(x);
	case W_VALS:
		if (t != T_NUMBER) {
			char f[48];

			snprintf(f, sizeof(f), "points[%zu].values", x->npts - 1);
			return bad(x, KERR_INVALID, (long)x->npts - 1, f, "%s[%zu] must be a number of "
				   "magnitude at most %g", f, mb->nv - x->pt_first, MODEL_MAGNITUDE);
		}
		return add_value(x, v);
	case W_PRED:
		if (mb->npred == MODEL_PREDICT_MAX)
			return bad(x, KERR_INVALID, -1, "predict", "predict must be an array of 0 to %d items",
				   MODEL_PREDICT_MAX);
		mb->npred++;
		if (t != T_ARRAY)
			return bad_pred(x);
		x->pred_n[mb->npred - 1] = 0;
		x->where = W_PREDC;
		return 1;
	case W_PREDC:
		if (t != T_NUMBER)
			return bad_pred(x);
		n = x->pred_n[mb->npred - 1];
		if (!add_coord(x, v, mb->pred + (mb->npred - 1) * KA_PMNF_PARAMS, &n, bad_pred))
			return 0;
		x->pred_n[mb->npred - 1] = (unsigned char)n;
		return 1;
	default:
		return bad(x, KERR_INVALID, -1, "", "the body is not valid JSON: something follows the object");
	}
}

static int on_null(void *c)
{
	return value(c, T_SCALAR, NULL, 0);
}

static int on_bool(void *c, int b)
{
	return value(c, b ? T_TRUE : T_FALSE, NULL, 0);
}

static int on_number(void *c, const char *s, size_t len)
{
	return value(c, T_NUMBER, s, len);
}

static int on_string(void *c, const unsigned char *s, size_t len)
{
	return value(c, T_STRING, (const char *)s, len);
}

static int on_start_map(void *c)
{
	return value(c, T_MAP, NULL, 0);
}

static int on_start_array(void *c)
{
	return value(c, T_ARRAY, NULL, 0);
}

static int on_key(void *c, const unsigned char *k, size_t len)
{
	static const char *const keys[] = {"", "parameters", "points", "predict", "resource", "coordinates",
					   "values"};
	struct mbx *x = c;
	enum want w = K_NONE, i;

	for (i = x->where == W_TOP ? K_PAR : K_COORDS; i <= (x->where == W_TOP ? K_RES : K_VALS); i++)
		if (strlen(keys[i]) == len && !memcmp(keys[i], k, len))
			w = i;
	if (x->where == W_PT && (w == K_NONE || x->seen & 1u << w))
		return bad_point(x);
	if (w == K_NONE) {
		char key[64];

		snprintf(key, sizeof(key), "%.*s", (int)(len < 60 ? len : 60), (const char *)k);
		return bad(x, KERR_INVALID, -1, key, "%s is not a field here", key);
	}
	if (x->seen & 1u << w)
		return bad(x, KERR_INVALID, -1, keys[w], "%s is given twice", keys[w]);
	x->seen |= 1u << w;
	x->want = w;
	return 1;
}

static int on_end_map(void *c)
{
	struct mbx *x = c;
	struct model_body *mb = x->mb;
	size_t i;

	if (x->where == W_TOP) {
		x->where = W_END;
		x->end = yajl_get_bytes_consumed(x->h);
		return 1;
	}
	/* the end of a point: both members, its coordinates on its values */
	if (!(x->seen & 1u << K_COORDS) || !(x->seen & 1u << K_VALS) || mb->nv == x->pt_first)
		return bad_point(x);
	x->pt_ncoord[x->npts - 1] = (unsigned char)x->ncoord;
	for (i = x->pt_first; i < mb->nv; i++) {
		memset(mb->o[i].x, 0, sizeof(mb->o[i].x));
		memcpy(mb->o[i].x, x->x, (x->ncoord < KA_PMNF_PARAMS ? x->ncoord : KA_PMNF_PARAMS) * sizeof(double));
	}
	x->where = W_PTS;
	return 1;
}

static int on_end_array(void *c)
{
	struct mbx *x = c;

	switch (x->where) {
	case W_PAR:
		if (x->npar < 1 || x->npar > KA_PMNF_PARAMS)
			return bad(x, KERR_INVALID, -1, "parameters", "parameters must be an array of 1 to %d "
				   "items", KA_PMNF_PARAMS);
		x->mb->nparams = (int)x->npar;
		x->where = W_TOP;
		return 1;
	case W_PTS:
		if (x->npts == 0)
			return bad(x, KERR_INVALID, -1, "points", "points must be an array of 1 or more items");
		x->where = W_TOP;
		return 1;
	case W_COORDS:
	case W_VALS:
		x->where = W_PT;
		return 1;
	case W_PRED:
		x->where = W_TOP;
		return 1;
	default:	/* W_PREDC */
		x->where = W_PRED;
		return 1;
	}
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_bool,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_key,
	.yajl_end_map = on_end_map,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end_array,
};

/* What the tokens could not say: the members required, parameter names
 * distinct, and every point and prediction at nparams coordinates. */
static int check(struct mbx *x)
{
	struct model_body *mb = x->mb;
	size_t i;

	if (!(x->seen & 1u << K_PAR) || !(x->seen & 1u << K_PTS))
		return !bad(x, KERR_INVALID, -1, x->seen & 1u << K_PAR ? "points" : "parameters", "%s is required",
			    x->seen & 1u << K_PAR ? "points" : "parameters");
	if (mb->nparams == 2 && !strcmp(mb->names[0], mb->names[1]))
		return !bad(x, KERR_INVALID, 1, "parameters", "parameters names %s twice", mb->names[0]);
	for (i = 0; i < x->npts; i++)
		if (x->pt_ncoord[i] != mb->nparams) {
			x->npts = i + 1;
			return !bad_coords(x);
		}
	for (i = 0; i < mb->npred; i++)
		if (x->pred_n[i] != mb->nparams) {
			mb->npred = i + 1;
			return !bad_pred(x);
		}
	/* kept KA_PMNF_PARAMS apart while nparams was unknown: nparams apart */
	for (i = 0; i < mb->npred * (size_t)mb->nparams; i++)
		mb->pred[i] = mb->pred[i / (size_t)mb->nparams * KA_PMNF_PARAMS + i % (size_t)mb->nparams];
	return 0;
}

int model_body_read(const char *body, size_t len, struct model_body *mb, struct kerr *err)
{
	struct mbx x = {.mb = mb, .err = err, .where = W_BODY};
	size_t used, lone;
	yajl_status st;

	memset(mb, 0, sizeof(*mb));
	kerr_clear(err);
	if (run_json_controls(body, len, err))
		return -1;
	if ((lone = utf8_lone_surrogate_escape(body, len)) != (size_t)-1)
		return kerr_set(err, KERR_INVALID, "the body is not valid JSON: the escape at byte %zu "
				"stands for a lone surrogate, which is no character", lone);
	x.h = yajl_alloc(&callbacks, NULL, &x);
	st = yajl_parse(x.h, (const unsigned char *)body, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(x.h);
	if (st != yajl_status_ok && !err->code) {
		unsigned char *msg = yajl_get_error(x.h, 0, (const unsigned char *)body, len);
		char *nl = strchr((char *)msg, '\n');

		if (nl)
			*nl = '\0';
		kerr_set(err, KERR_INVALID, "the body is not valid JSON (%s, near byte %zu)", (char *)msg,
			 yajl_get_bytes_consumed(x.h));
		yajl_free_error(x.h, msg);
	}
	yajl_free(x.h);
	if (!err->code) {
		/* yajl lets a token cut short after the value pass: blanks only */
		for (used = x.end; used < len && strchr(" \t\n\r", body[used]); used++)
			;
		if (x.where != W_END || used < len)
			kerr_set(err, KERR_INVALID, "the body is not valid JSON: something follows the object");
		else
			check(&x);
	}
	free(x.pt_ncoord);
	return err->code ? -1 : 0;
}

void model_body_free(struct model_body *mb)
{
	free(mb->o);
	free(mb->pred);
	memset(mb, 0, sizeof(*mb));
}
