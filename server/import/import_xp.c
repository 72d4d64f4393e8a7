/* The experiment model of the importers (see import_xp.h). */
#include "import_xp.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

#define VALUES_MAX 50000000	/* repetitions held at once, all measurements */

void xp_init(struct xp *x)
{
	memset(x, 0, sizeof(*x));
	x->warnings = json_array();
	x->sets = json_array();
	x->set_index = json_object();
	x->cur_set = XP_NONE;
}

void xp_free(struct xp *x)
{
	size_t i;

	for (i = 0; i < x->nparams; i++)
		free(x->params[i]);
	for (i = 0; i < x->npaths; i++)
		free(x->paths[i].name);
	for (i = 0; i < x->nmetrics; i++)
		free(x->metrics[i]);
	free(x->coords);
	free(x->paths);
	free(x->metrics);
	free(x->meas);
	free(x->vals);
	free(x->next);
	free(x->point_map.slot);
	free(x->path_map.slot);
	free(x->metric_map.slot);
	free(x->meas_map.slot);
	json_decref(x->warnings);
	json_decref(x->sets);
	json_decref(x->set_index);
	free(x->point_set);
	memset(x, 0, sizeof(*x));
}

static bool printable(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return n > 0;
}

bool xp_label_value(const char *key, json_t *v, char *out, size_t size)
{
	size_t n;

	if (!printable(key, strlen(key)) || strlen(key) > XP_LABEL_KEY_MAX)
		return false;
	if (json_is_string(v))
		n = (size_t)snprintf(out, size, "%s", json_string_value(v));
	else if (json_is_integer(v))
		n = (size_t)snprintf(out, size, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v) && isfinite(json_real_value(v)))
		n = (size_t)snprintf(out, size, "%.17g", json_real_value(v));
	else if (json_is_boolean(v))
		n = (size_t)snprintf(out, size, "%s", json_is_true(v) ? "true" : "false");
	else
		return false;
	return n < size && n <= XP_LABEL_VALUE_MAX && printable(out, n) &&
	       (!json_is_string(v) || n == json_string_length(v)) &&	/* no NUL inside */
	       !strpbrk(out, ",;") && out[0] != '/' && out[0] != '~' && !strstr(out, ":/");
}

uint32_t xp_label_set(struct xp *x, json_t *obj, const char *const *skip, size_t nskip)
{
	json_t *set = json_object(), *v, *at;
	const char *k;
	char text[XP_LABEL_VALUE_MAX + 2], *key;
	size_t i;

	json_object_foreach(obj, k, v) {
		for (i = 0; i < nskip && strcmp(skip[i], k); i++)
			;
		if (i < nskip || json_object_size(set) == XP_LABELS_MAX || !xp_label_value(k, v, text, sizeof(text)))
			continue;
		json_object_set_new(set, k, json_string(text));
	}
	x->cur_set = XP_NONE;
	if (!json_object_size(set) || !(key = json_dumps(set, JSON_COMPACT | JSON_SORT_KEYS))) {
		json_decref(set);
		return XP_NONE;
	}
	if ((at = json_object_get(x->set_index, key))) {
		x->cur_set = (uint32_t)json_integer_value(at);
		json_decref(set);
	} else {
		x->cur_set = (uint32_t)json_array_size(x->sets);
		json_array_append_new(x->sets, set);
		json_object_set_new(x->set_index, key, json_integer(x->cur_set));
	}
	free(key);
	return x->cur_set;
}

void xp_warn(struct xp *x, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	json_t *w;

	if (x->nwarnings++ >= IMPORT_WARNINGS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* a file's names need not be UTF-8: such a warning is said without them */
	w = json_string(buf);
	json_array_append_new(x->warnings, w ? w : json_string("a part of the file was left out "
							       "(its text is not UTF-8)"));
}

/* Grow *p (of *cap elements of size) to hold n + 1. */
static void grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return;
	*cap = *cap ? 2 * *cap : 16;
	*p = xrealloc(*p, *cap * size);
}

static uint64_t hash_bytes(const void *s, size_t len, uint64_t h)
{
	const unsigned char *b = s;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#define HASH_SEED 0xcbf29ce484222325ull

/* ---- one table type for points, names and measurements ------------------ */

struct probe {
	const struct xp *x;
	int kind;		/* 0 point, 1 path, 2 metric, 3 measurement */
	const void *key;
	size_t len;
	uint32_t set;		/* a point's label set */
};

static uint64_t key_hash(const struct probe *q)
{
	uint64_t h = hash_bytes(q->key, q->len, HASH_SEED);

	/* a point's label set, a path's parent */
	return q->kind <= 1 ? hash_bytes(&q->set, sizeof(q->set), h) : h;
}

static uint64_t item_hash(const struct xp *x, int kind, uint32_t i)
{
	struct probe q = {x, kind, NULL, 0, XP_NONE};

	switch (kind) {
	case 0:
		q.key = x->coords + (size_t)i * x->nparams;
		q.len = x->nparams * sizeof(double);
		q.set = x->point_set[i];
		break;
	case 1:
		q.key = x->paths[i].name;
		q.len = strlen(x->paths[i].name);
		q.set = x->paths[i].parent;
		break;
	case 2:
		q.key = x->metrics[i];
		q.len = strlen(x->metrics[i]);
		break;
	default:
		q.key = &x->meas[i].path;
		q.len = 3 * sizeof(uint32_t);
		break;
	}
	return key_hash(&q);
}

static bool item_equal(const struct probe *q, uint32_t i)
{
	const struct xp *x = q->x;

	switch (q->kind) {
	case 0:
		return x->point_set[i] == q->set && !memcmp(x->coords + (size_t)i * x->nparams, q->key, q->len);
	case 1:
		return x->paths[i].parent == q->set && strlen(x->paths[i].name) == q->len &&
		       !memcmp(x->paths[i].name, q->key, q->len);
	case 2:
		return strlen(x->metrics[i]) == q->len && !memcmp(x->metrics[i], q->key, q->len);
	default:
		return !memcmp(&x->meas[i].path, q->key, q->len);
	}
}

static struct xp_map *map_of(struct xp *x, int kind)
{
	return kind == 0 ? &x->point_map : kind == 1 ? &x->path_map :
	       kind == 2 ? &x->metric_map : &x->meas_map;
}

/* The slot where q's item is or would go. */
static uint32_t *map_slot(const struct xp_map *m, const struct probe *q)
{
	size_t s;

	if (!m->cap)
		return NULL;
	for (s = key_hash(q) & (m->cap - 1); m->slot[s]; s = (s + 1) & (m->cap - 1))
		if (item_equal(q, m->slot[s] - 1))
			break;
	return &m->slot[s];
}

/* Make room for one more of count items (rehashing them when it grows). */
static void map_reserve(struct xp *x, int kind, size_t count)
{
	struct xp_map *m = map_of(x, kind);
	size_t i, s;

	if (2 * (count + 1) <= m->cap)
		return;
	free(m->slot);
	m->cap = m->cap ? 2 * m->cap : 64;
	while (2 * (count + 1) > m->cap)
		m->cap *= 2;
	m->slot = xcalloc(m->cap, sizeof(*m->slot));
	for (i = 0; i < count; i++) {
		for (s = item_hash(x, kind, (uint32_t)i) & (m->cap - 1); m->slot[s];
		     s = (s + 1) & (m->cap - 1))
			;
		m->slot[s] = (uint32_t)(i + 1);
	}
}

/* ---- adding ------------------------------------------------------------- */

int xp_param(struct xp *x, const char *name, size_t len, struct kerr *err)
{
	size_t i;

	if (!len)
		return kerr_set(err, KERR_INVALID, "a parameter has no name");
	for (i = 0; i < x->nparams; i++)
		if (strlen(x->params[i]) == len && !memcmp(x->params[i], name, len))
			return kerr_set(err, KERR_INVALID, "the parameter '%.*s' is named twice", (int)len, name);
	if (x->nparams == IMPORT_PARAMS_MAX)
		return kerr_set(err, KERR_TOO_LARGE, "the file has more than %d parameters", IMPORT_PARAMS_MAX);
	if (x->npoints)
		return kerr_set(err, KERR_INVALID, "a parameter is named after the first point");
	x->params[x->nparams++] = xstrndup(name, len);
	return 0;
}

uint32_t xp_point(struct xp *x, const double *v, struct kerr *err)
{
	struct probe q = {x, 0, v, x->nparams * sizeof(double), x->cur_set};
	double key[IMPORT_PARAMS_MAX];
	uint32_t *slot;
	size_t i;

	for (i = 0; i < x->nparams; i++)
		key[i] = v[i] == 0 ? 0 : v[i];	/* -0 is 0 */
	q.key = key;
	slot = map_slot(&x->point_map, &q);
	if (slot && *slot)
		return *slot - 1;
	if (x->npoints >= IMPORT_RUNS_MAX) {
		kerr_set(err, KERR_TOO_LARGE, "the file has more than %d points", IMPORT_RUNS_MAX);
		return XP_NONE;
	}
	map_reserve(x, 0, x->npoints);
	if (x->npoints * x->nparams + x->nparams > x->cpoints) {
		x->cpoints = x->cpoints ? 2 * x->cpoints : 64 * IMPORT_PARAMS_MAX;
		x->coords = xrealloc(x->coords, x->cpoints * sizeof(double));
	}
	memcpy(x->coords + x->npoints * x->nparams, key, x->nparams * sizeof(double));
	if (x->npoints % 64 == 0)	/* room for 64 more sets */
		x->point_set = xrealloc(x->point_set, (x->npoints + 64) * sizeof(*x->point_set));
	x->point_set[x->npoints] = x->cur_set;
	*map_slot(&x->point_map, &q) = (uint32_t)(x->npoints + 1);
	return (uint32_t)x->npoints++;
}

uint32_t xp_child(struct xp *x, uint32_t parent, const char *seg, size_t len, struct kerr *err)
{
	struct probe q = {x, 1, seg, len, parent};
	uint32_t *slot = map_slot(&x->path_map, &q), depth = 1, text = (uint32_t)len;
	struct xp_path *pa;

	if (slot && *slot)
		return *slot - 1;
	if (parent != XP_NONE) {
		depth = x->paths[parent].depth + 1;
		text = len > XP_PATH_TEXT_MAX ? XP_PATH_TEXT_MAX + 1 : x->paths[parent].text + 2 + (uint32_t)len;
	}
	if (depth > XP_DEPTH_MAX || len > XP_PATH_TEXT_MAX || text > XP_PATH_TEXT_MAX) {
		kerr_field(err, KERR_TOO_LARGE, "body", "a call path is %s than %s (the most a path may have)",
			   depth > XP_DEPTH_MAX ? "deeper" : "longer", depth > XP_DEPTH_MAX ? "256 levels" :
			   "65536 bytes written out");
		return XP_NONE;
	}
	if (x->npaths >= IMPORT_PATHS_MAX) {
		kerr_set(err, KERR_TOO_LARGE, "the file has more than %d call paths", IMPORT_PATHS_MAX);
		return XP_NONE;
	}
	map_reserve(x, 1, x->npaths);
	grow((void **)&x->paths, &x->cpaths, x->npaths, sizeof(*x->paths));
	pa = &x->paths[x->npaths];
	pa->name = xstrndup(seg, len);
	pa->parent = parent;
	pa->indent = -1;
	pa->depth = depth;
	pa->text = text;
	*map_slot(&x->path_map, &q) = (uint32_t)(x->npaths + 1);
	return (uint32_t)x->npaths++;
}

uint32_t xp_path(struct xp *x, const char *name, size_t len, struct kerr *err)
{
	const char *s = name, *end = name + len, *arrow;
	uint32_t at = XP_NONE;

	for (;;) {	/* one segment a step: linear in the name, whatever its depth */
		arrow = len >= 2 ? memmem(s, (size_t)(end - s), "->", 2) : NULL;
		at = xp_child(x, at, s, arrow ? (size_t)(arrow - s) : (size_t)(end - s), err);
		if (at == XP_NONE || !arrow)
			return at;
		s = arrow + 2;
	}
}

char *xp_path_text(const struct xp *x, uint32_t i, char *buf, size_t size)
{
	size_t at, n;
	uint32_t k;

	if (!size)
		return buf;
	at = x->paths[i].text < size ? x->paths[i].text : size - 1;
	buf[at] = '\0';
	for (k = i; k != XP_NONE; k = x->paths[k].parent) {	/* from the leaf back to the root */
		size_t start;

		n = strlen(x->paths[k].name);
		start = x->paths[k].text - n;	/* where the segment begins in the whole text */
		if (start < at)
			memcpy(buf + start, x->paths[k].name, (at - start < n ? at - start : n));
		if (x->paths[k].parent != XP_NONE && start >= 2 && start - 2 < at)
			memcpy(buf + start - 2, "->", (at - (start - 2) < 2 ? at - (start - 2) : 2));
	}
	return buf;
}

uint32_t xp_metric(struct xp *x, const char *name, size_t len, struct kerr *err)
{
	struct probe q = {x, 2, name, len, XP_NONE};
	uint32_t *slot = map_slot(&x->metric_map, &q);

	if (slot && *slot)
		return *slot - 1;
	if (x->nmetrics >= IMPORT_METRICS_MAX) {
		kerr_set(err, KERR_TOO_LARGE, "the file has more than %d metrics", IMPORT_METRICS_MAX);
		return XP_NONE;
	}
	map_reserve(x, 2, x->nmetrics);
	grow((void **)&x->metrics, &x->cmetrics, x->nmetrics, sizeof(*x->metrics));
	x->metrics[x->nmetrics] = xstrndup(name, len);
	*map_slot(&x->metric_map, &q) = (uint32_t)(x->nmetrics + 1);
	return (uint32_t)x->nmetrics++;
}

const struct xp_meas *xp_find(const struct xp *x, uint32_t path, uint32_t metric, uint32_t point)
{
	uint32_t key[3] = {path, metric, point};
	struct probe q = {x, 3, key, sizeof(key), XP_NONE};
	uint32_t *slot = map_slot(&x->meas_map, &q);

	return slot && *slot ? &x->meas[*slot - 1] : NULL;
}

int xp_value(struct xp *x, uint32_t path, uint32_t metric, uint32_t point, double v,
	     struct kerr *err)
{
	uint32_t key[3] = {path, metric, point};
	struct probe q = {x, 3, key, sizeof(key), XP_NONE};
	uint32_t *slot = map_slot(&x->meas_map, &q);
	struct xp_meas *m;

	if (x->nvals >= VALUES_MAX)
		return kerr_set(err, KERR_TOO_LARGE, "the file has more than %d measured values", VALUES_MAX);
	/* every 65,536 values: was the import stopped (its client left, karted stops)? */
	if ((x->nvals & 0xffff) == 0xffff && x->opts && import_stopped(x->opts, err))
		return -1;
	if (!slot || !*slot) {
		map_reserve(x, 3, x->nmeas);
		grow((void **)&x->meas, &x->cmeas, x->nmeas, sizeof(*x->meas));
		m = &x->meas[x->nmeas];
		m->path = path;
		m->metric = metric;
		m->point = point;
		m->count = 0;
		*map_slot(&x->meas_map, &q) = (uint32_t)(++x->nmeas);
	} else {
		m = &x->meas[*slot - 1];
	}
	if (x->nvals == x->cvals) {
		x->cvals = x->cvals ? 2 * x->cvals : 1024;
		x->vals = xrealloc(x->vals, x->cvals * sizeof(*x->vals));
		x->next = xrealloc(x->next, x->cvals * sizeof(*x->next));
	}
	x->vals[x->nvals] = v;
	x->next[x->nvals] = XP_NONE;
	if (m->count)
		x->next[m->last] = (uint32_t)x->nvals;
	else
		m->first = (uint32_t)x->nvals;
	m->last = (uint32_t)x->nvals++;
	m->count++;
	return 0;
}

int xp_tree(struct xp *x, struct kerr *err)
{
	uint32_t *stack, top = 0, i;
	bool moved = false;

	/* Extra-P text files such as RELeARN's write the tree by indentation:
	 * a path is under the nearest one before it with less indentation (a
	 * stack of the open ones: linear in the paths) */
	stack = xmalloc((x->npaths + 1) * sizeof(*stack));
	for (i = 0; i < x->npaths; i++) {
		struct xp_path *pa = &x->paths[i];

		if (pa->indent < 0)
			continue;
		while (top && x->paths[stack[top - 1]].indent >= pa->indent)
			top--;
		if (top && pa->parent == XP_NONE) {
			pa->parent = stack[top - 1];
			moved = true;
		}
		stack[top++] = i;
	}
	free(stack);
	if (!moved)
		return 0;
	/* the parents changed: depths, texts and the (parent, name) table anew */
	for (i = 0; i < x->npaths; i++) {
		struct xp_path *pa = &x->paths[i];
		uint32_t k;

		pa->depth = 1;
		pa->text = (uint32_t)strlen(pa->name);
		for (k = pa->parent; k != XP_NONE; k = x->paths[k].parent) {
			pa->depth++;
			pa->text += 2 + (uint32_t)strlen(x->paths[k].name);
			if (pa->depth > XP_DEPTH_MAX || pa->text > XP_PATH_TEXT_MAX)
				return kerr_field(err, KERR_TOO_LARGE, "body", "a call path is deeper than 256 "
						  "levels or longer than 65536 bytes written out");
		}
	}
	free(x->path_map.slot);
	x->path_map.slot = NULL;
	x->path_map.cap = 0;
	map_reserve(x, 1, x->npaths);
	return 0;
}

bool xp_number(const char *s, size_t len, double *out)
{
	char buf[64], *end;
	size_t a = 0, b = len;

	while (a < b && (s[a] == ' ' || s[a] == '\t'))
		a++;
	while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t'))
		b--;
	if (a == b || b - a >= sizeof(buf))
		return false;
	memcpy(buf, s + a, b - a);
	buf[b - a] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	if (*end || end == buf)
		return false;
	if (errno == ERANGE && isfinite(*out) && *out != 0)
		return false;
	return true;
}

bool xp_next_line(const char *body, size_t len, size_t *pos, const char **line, size_t *n)
{
	const char *nl;
	size_t at = *pos, end;

	if (at >= len)
		return false;
	nl = memchr(body + at, '\n', len - at);
	end = nl ? (size_t)(nl - body) : len;
	*pos = nl ? end + 1 : len;
	*line = body + at;
	*n = end - at;
	if (*n && (*line)[*n - 1] == '\r')
		(*n)--;
	return true;
}
