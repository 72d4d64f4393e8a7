/*
 * import: the format guess, the mapping of an experiment model to runs,
 * CSV, and the one entry point (see import.h). Runs are written as NDJSON
 * and read back by run_parse_body, so an imported run passes every check a
 * posted one does, with the same messages.
 */
#include "import.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <csv.h>
#include <nettle/sha2.h>

#include "core/csvsafe.h"
#include "core/jsonw.h"
#include "import_xp.h"
#include "core/utf8.h"
#include "core/xalloc.h"

#define TREE_BODY_MAX (32u << 20)	/* formats read whole into a JSON tree */
#define CSV_COLS_MAX  256
#define LIST_MAX      100		/* names listed in an error */

static const char *const formats[] = {
	"extrap-text", "extrap-jsonl", "extrap-json", "talpas", "caliper-json", "cali",
	"geopm-report", "csv", "ndjson", "cube", "extrap-experiment", "thicket-json",
};

/* Formats read as bytes (archives), not as UTF-8 text. */
static bool binary_format(const char *fmt)
{
	return !strcmp(fmt, "cube") || !strcmp(fmt, "extrap-experiment");
}

/* The static name of format name, or NULL when karte reads no such format. */
static const char *format_static(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(name, formats[i]))
			return formats[i];
	return NULL;
}

void import_result_clear(struct import_result *res)
{
	run_batch_free(&res->batch);
	json_decref(res->regions);
	json_decref(res->labels);
	json_decref(res->warnings);
	json_decref(res->available);
	memset(res, 0, sizeof(*res));
}

/* ---- a growing text buffer ---------------------------------------------- */

struct buf {
	char *s;
	size_t len, cap;
};

static void buf_need(struct buf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	b->cap = b->cap ? b->cap : 4096;
	while (b->len + more + 1 > b->cap)
		b->cap *= 2;
	b->s = xrealloc(b->s, b->cap);
}

static void buf_add(struct buf *b, const char *s, size_t n)
{
	buf_need(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void buf_lit(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* v as JSON, exact: whole numbers by hand (printf's %g costs more than the
 * rest of a run), the others with 17 significant digits. */
static void buf_num(struct buf *b, double v)
{
	char tmp[32];
	int n;

	if (v == floor(v) && fabs(v) < 1e15) {
		long long i = (long long)v;
		unsigned long long u = i < 0 ? (unsigned long long)-i : (unsigned long long)i;
		char *end = tmp + sizeof(tmp), *q = end;

		do {
			*--q = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		if (i < 0)
			*--q = '-';
		buf_add(b, q, (size_t)(end - q));
		return;
	}
	n = snprintf(tmp, sizeof(tmp), "%.17g", v);
	buf_add(b, tmp, (size_t)n);
}

/* s[0, n) as a JSON string, quotes included. */
static void buf_str(struct buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	buf_need(b, n + 2);
	b->s[b->len++] = '"';
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t plain = i;

		/* the longest stretch that needs no escape, in one copy */
		while (plain < n && (unsigned char)s[plain] >= 0x20 && s[plain] != '"' && s[plain] != '\\')
			plain++;
		if (plain > i) {
			buf_add(b, s + i, plain - i);
			i = plain - 1;
			continue;
		}
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};

			buf_add(b, e, 2);
		} else if (c < 0x20) {
			char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};

			buf_add(b, e, 6);
		} else {
			buf_add(b, (const char *)&c, 1);
		}
	}
	buf_add(b, "\"", 1);
}

/* "name": */
static void buf_key(struct buf *b, bool *first, const char *key)
{
	if (!*first)
		buf_add(b, ",", 1);
	*first = false;
	buf_str(b, key, strlen(key));
	buf_add(b, ":", 1);
}

/* ---- what was asked and what the file has --------------------------------- */

/* names as "a, b, c" (at most LIST_MAX), into out. */
/* Up to LIST_MAX names, each whole and quoted, as many as fit in out
 * (LIST_ROOM of a kerr message at most); "and N more" for the rest: a
 * name is never cut short. */
#define LIST_ROOM 600
static void list_names(char *const *names, size_t n, char *out, size_t size)
{
	size_t i, at = 0, room = size < LIST_ROOM ? size : LIST_ROOM;

	out[0] = '\0';
	for (i = 0; i < n && i < LIST_MAX; i++) {
		size_t need = strlen(names[i]) + 4;	/* , '' */

		if (at + need + 24 >= room)	/* and the " and N more" */
			break;
		at += (size_t)snprintf(out + at, size - at, "%s'%s'", i ? ", " : "", names[i]);
	}
	if (i < n)
		snprintf(out + at, size - at, "%s%zu more", i ? " and " : "", n - i);
	if (!n)
		snprintf(out, size, "none");
}

static json_t *json_names(char *const *names, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n && i < 1000; i++) {
		json_t *v = json_string(names[i]);	/* NULL when not UTF-8 */

		json_array_append_new(a, v ? v : json_string("?"));
	}
	return a;
}

/* A path's own name (its leaf), blanks after the "->" before it left out. */
static const char *leaf(const struct xp *x, size_t i)
{
	const char *s = x->paths[i].name;

	while (*s == ' ')
		s++;
	return s;
}

/* Path i written out ("main->solve"), malloc'd. */
static char *path_text(const struct xp *x, size_t i)
{
	size_t n = x->paths[i].text + 1;

	return xp_path_text(x, (uint32_t)i, xmalloc(n), n);
}

/* Is path i the one name[0, len) writes out? From the leaf back, a segment
 * at a time: no path's text is made to compare it. */
static bool path_is(const struct xp *x, size_t i, const char *name, size_t len)
{
	uint32_t k;

	if (x->paths[i].text != len)
		return false;
	for (k = (uint32_t)i; k != XP_NONE; k = x->paths[k].parent) {
		size_t n = strlen(x->paths[k].name), start = x->paths[k].text - n;

		if (memcmp(name + start, x->paths[k].name, n) ||
		    (x->paths[k].parent != XP_NONE && memcmp(name + start - 2, "->", 2)))
			return false;
	}
	return true;
}

/* The texts of paths at[0, n), for a list of at most LIST_MAX (the rest
 * NULL): free with free_texts. */
static char **path_texts(const struct xp *x, const uint32_t *at, size_t n)
{
	char **t = xcalloc(n + 1, sizeof(*t));
	size_t i;

	for (i = 0; i < n && i < LIST_MAX; i++)
		t[i] = path_text(x, at[i]);
	return t;
}

static void free_texts(char **t, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < LIST_MAX; i++)
		free(t[i]);
	free(t);
}

#define AVAILABLE_TEXT_MAX (256u << 10)	/* bytes of path names an answer lists */

static void available(const struct xp *x, struct import_result *res)
{
	char **roots = xcalloc(x->npaths + 1, sizeof(*roots)), **all = xcalloc(x->npaths + 1, sizeof(*all));
	size_t i, nroots = 0, nall = 0, bytes = 0;

	/* json_names lists 1000 of each; their texts up to AVAILABLE_TEXT_MAX */
	for (i = 0; i < x->npaths && nall < 1000 && bytes < AVAILABLE_TEXT_MAX; i++) {
		bytes += x->paths[i].text;
		all[nall++] = path_text(x, i);
		if (x->paths[i].parent == XP_NONE)
			roots[nroots++] = all[nall - 1];
	}
	for (; i < x->npaths && nroots < 1000; i++)
		if (x->paths[i].parent == XP_NONE)
			roots[nroots++] = x->paths[i].name;	/* a root's text is its name */
	json_decref(res->available);
	res->available = json_pack("{s:o,s:o,s:o,s:o}", "parameters",
				   json_names((char *const *)x->params, x->nparams), "metrics",
				   json_names(x->metrics, x->nmetrics), "roots", json_names(roots, nroots),
				   "regions", json_names(all, nall));
	for (i = 0; i < nall; i++)
		free(all[i]);
	free(roots);
	free(all);
}

/* ---- the mapping ---------------------------------------------------------- */

struct mapping {
	size_t p, n;		/* parameter indices; n == SIZE_MAX: n_value */
	double n_value;		/* the constant n: o->n_value, or 1 assumed for a file of p alone */
	uint32_t metric, energy, region;	/* energy: XP_NONE when the file has none */
	uint32_t *children;	/* the call paths under region that become run regions */
	size_t nchildren;
	char **child_path;	/* each one's "path" as JSON text; NULL for the first level */
	uint32_t *overhead;	/* the regions summed into chi (or gamma) */
	size_t noverhead;
	bool gamma;		/* overhead are gamma's */
};

static size_t param_index(const struct xp *x, const char *name)
{
	size_t i;

	for (i = 0; i < x->nparams; i++)
		if (!strcmp(x->params[i], name))
			return i;
	return SIZE_MAX;
}

static int pick_params(const struct xp *x, const struct import_opts *o, struct mapping *m,
		       struct kerr *err)
{
	char list[2048];
	size_t i;

	/* the file's own names of what its reader made p and n */
	const char *want_p = o->p && x->p_from[0] && !strcmp(o->p, x->p_from) ? "p" : o->p;
	const char *want_n = o->n && x->n_from[0] && !strcmp(o->n, x->n_from) ? "n" : o->n;

	list_names((char *const *)x->params, x->nparams, list, sizeof(list));
	if (want_p) {
		if ((m->p = param_index(x, want_p)) == SIZE_MAX)
			return kerr_field(err, KERR_INVALID, "p", "p='%s' is not a parameter of the file; it has %s",
					  o->p, list);
	} else if ((m->p = param_index(x, "p")) == SIZE_MAX) {
		if (x->nparams != 1)
			return kerr_field(err, KERR_INVALID, "p", "say which parameter is p (p=NAME): the file "
					  "has no parameter 'p', and it has %s", list);
		m->p = 0;
	}
	if (o->n && o->has_n_value)
		return kerr_field(err, KERR_INVALID, "n_value", "give n (a parameter) or n_value (a constant), "
				  "not both");
	if (want_n) {
		if ((m->n = param_index(x, want_n)) == SIZE_MAX)
			return kerr_field(err, KERR_INVALID, "n", "n='%s' is not a parameter of the file; it has %s",
					  o->n, list);
	} else if (o->has_n_value) {
		m->n = SIZE_MAX;
		m->n_value = o->n_value;
	} else if ((m->n = param_index(x, "n")) == SIZE_MAX) {
		if (x->nparams != 1)
			return kerr_field(err, KERR_INVALID, "n_value", "the file has no parameter 'n': name the "
					  "parameter that is n (n=NAME) or give a constant n_value; "
					  "its parameters: %s", list);
		/* p alone (strong scaling at one size): n is not in the file */
		m->n_value = 1;
		xp_warn((struct xp *)x, "the file's one parameter '%s' is p and it has no n: every run "
			"gets n = 1 (n_value=N gives the problem size)", x->params[m->p]);
	}
	if (m->n == m->p)
		return kerr_field(err, KERR_INVALID, "n", "'%s' cannot be both p and n", x->params[m->p]);
	for (i = 0; i < x->nparams; i++)
		if (i != m->p && i != m->n)
			xp_warn((struct xp *)x, "the parameter '%s' is neither p nor n%s: left out "
				"(its points still make runs)", x->params[i],
				m->n == SIZE_MAX && !strcmp(x->params[i], "n") ? " (n_value gives n)" : "");
	return 0;
}

static int pick_metric(const struct xp *x, const struct import_opts *o, struct mapping *m,
		       struct kerr *err)
{
	char list[2048];
	size_t i;

	list_names(x->metrics, x->nmetrics, list, sizeof(list));
	const char *want = o->metric && x->metric_from[0] && !strcmp(o->metric, x->metric_from) ? "time" :
			   o->metric;

	m->metric = XP_NONE;
	if (want) {
		for (i = 0; i < x->nmetrics; i++)
			if (!strcmp(x->metrics[i], want))
				m->metric = (uint32_t)i;
		if (m->metric == XP_NONE)
			return kerr_field(err, KERR_INVALID, "metric", "metric='%s' is not in the file; it has %s",
					  o->metric, list);
	} else if (x->nmetrics == 1) {
		m->metric = 0;
	} else {
		for (i = 0; i < x->nmetrics && m->metric == XP_NONE; i++)
			if (!strcasecmp(x->metrics[i], "time") || !strcasecmp(x->metrics[i], "runtime"))
				m->metric = (uint32_t)i;
		if (m->metric == XP_NONE)
			return kerr_field(err, KERR_INVALID, "metric", "say which metric is tau (metric=NAME): the "
					  "file has %s, none called time or runtime", list);
	}
	m->energy = XP_NONE;
	for (i = 0; i < x->nmetrics && m->energy == XP_NONE; i++)
		if (i != m->metric && strcasestr(x->metrics[i], "energy"))
			m->energy = (uint32_t)i;
	return 0;
}

/* The call path called name (whole, or a leaf name only one path has);
 * XP_NONE with err naming field. */
static uint32_t find_path(const struct xp *x, const char *name, size_t len, const char *field,
			  struct kerr *err)
{
	uint32_t *at = xcalloc(x->npaths + 1, sizeof(*at)), found = XP_NONE;
	char list[LIST_ROOM], **names;
	size_t i, n = 0;

	for (i = 0; i < x->npaths && found == XP_NONE; i++)
		if (path_is(x, i, name, len))
			found = (uint32_t)i;
	for (i = 0; i < x->npaths && found == XP_NONE; i++)
		if (strlen(leaf(x, i)) == len && !memcmp(leaf(x, i), name, len))
			at[n++] = (uint32_t)i;
	if (found == XP_NONE && n == 1)
		found = at[0];
	if (n > 1) {
		names = path_texts(x, at, n);
		list_names(names, n, list, sizeof(list));
		free_texts(names, n);
		kerr_field(err, KERR_INVALID, field, "%s='%.*s' names several call paths: %s; give the whole "
			   "path", field, (int)len, name, list);
	} else if (found == XP_NONE) {
		for (i = n = 0; i < x->npaths; i++)
			at[n++] = (uint32_t)i;
		names = path_texts(x, at, n);
		list_names(names, n, list, sizeof(list));
		free_texts(names, n);
		kerr_field(err, KERR_INVALID, field, "%s: '%.*s' is not a region of the file; it has %s", field,
			   (int)len, name, list);
	}
	free(at);
	return found;
}

/* Does path's leaf match pat[0, len): the whole leaf, or with a trailing
 * '*' its beginning (MPI_* : every MPI call). */
static bool leaf_matches(const struct xp *x, size_t i, const char *pat, size_t len)
{
	const char *lf = leaf(x, i);

	if (len && pat[len - 1] == '*')
		return strlen(lf) >= len - 1 && !memcmp(lf, pat, len - 1);
	return strlen(lf) == len && !memcmp(lf, pat, len);
}

/* Is path i inside root's subtree (root itself left out)? */
static bool inside(const struct xp *x, uint32_t i, uint32_t root)
{
	for (i = x->paths[i].parent; i != XP_NONE; i = x->paths[i].parent)
		if (i == root)
			return true;
	return false;
}

/* The distinct leaf names under root, for an error that lists them. */
static size_t leaves_under(const struct xp *x, uint32_t root, char **names)
{
	size_t i, k, n = 0;

	for (i = 0; i < x->npaths; i++) {
		if (!inside(x, (uint32_t)i, root))
			continue;
		for (k = 0; k < n && strcmp(names[k], leaf(x, i)); k++)
			;
		if (k == n)
			names[n++] = (char *)leaf(x, i);
	}
	return n;
}

/* chi_regions / gamma_regions: comma-separated names, each a whole call
 * path, or a leaf name under any number of call paths inside the tau
 * region (a trailing '*' matches a prefix); a path nested under another
 * selected one is counted once. A name that took several paths says how
 * many in a warning. */
static int pick_overhead(const struct xp *x, const struct import_opts *o, struct mapping *m,
			 struct kerr *err)
{
	const char *s = o->chi_regions ? o->chi_regions : o->gamma_regions, *comma;
	const char *field = o->chi_regions ? "chi_regions" : "gamma_regions";
	bool *chosen;
	size_t i;
	int rc = 0;

	if (!s)
		return 0;
	m->gamma = !o->chi_regions;
	m->overhead = xcalloc(x->npaths + 1, sizeof(*m->overhead));
	chosen = xcalloc(x->npaths + 1, sizeof(*chosen));
	for (; *s && !rc; s = *comma ? comma + 1 : comma) {
		size_t len, took = 0;
		bool whole = false;

		comma = strchr(s, ',');
		if (!comma)
			comma = s + strlen(s);
		if (comma == s)
			continue;
		len = (size_t)(comma - s);
		for (i = 0; i < x->npaths && !whole; i++)	/* a whole path first */
			if (path_is(x, i, s, len) && inside(x, (uint32_t)i, m->region))
				chosen[i] = whole = true, took = 1;
		for (i = 0; i < x->npaths && !whole; i++)	/* else every path of that leaf */
			if (inside(x, (uint32_t)i, m->region) && leaf_matches(x, i, s, len))
				chosen[i] = true, took++;
		if (!took) {
			char **names = xcalloc(x->npaths + 1, sizeof(*names)), list[LIST_ROOM];

			list_names(names, leaves_under(x, m->region, names), list, sizeof(list));
			rc = kerr_field(err, KERR_INVALID, field, "%s: no call path under '%s' ends in '%.*s'; "
					"its regions are %s", field, leaf(x, m->region), (int)len, s,
					list);
			free(names);
		} else if (took > 1) {	/* one path is what was asked: nothing to say */
			xp_warn((struct xp *)x, "%s: '%.*s' took %zu call paths", field, (int)len, s, took);
		}
	}
	/* each chosen path once, and none inside another chosen one */
	for (i = 0; !rc && i < x->npaths; i++) {
		uint32_t up;
		bool nested = false;

		if (!chosen[i])
			continue;
		for (up = x->paths[i].parent; up != XP_NONE && !nested; up = x->paths[up].parent)
			nested = chosen[up];
		if (!nested)
			m->overhead[m->noverhead++] = (uint32_t)i;
	}
	free(chosen);
	return rc;
}

/* What POST /api/v1/runs takes of a region name: 1 to RUN_NAME_MAX
 * printable bytes (the body is valid UTF-8 already). */
static bool region_name_ok(const char *name)
{
	size_t len = strlen(name), k;
	bool ok = len >= 1 && len <= RUN_NAME_MAX;

	for (k = 0; k < len && ok; k++)
		ok = (unsigned char)name[k] >= 0x20 && name[k] != 0x7f;
	return ok;
}

/* Path i's names below the level base as a JSON array's text. */
static char *path_json(const struct xp *x, uint32_t i, uint32_t base)
{
	uint32_t chain[RUN_PATH_MAX];
	struct buf b = {0};
	size_t d = 0;

	for (; i != XP_NONE && x->paths[i].depth > base && d < RUN_PATH_MAX; i = x->paths[i].parent)
		chain[d++] = i;
	buf_lit(&b, "[");
	while (d--) {
		buf_str(&b, leaf(x, chain[d]), strlen(leaf(x, chain[d])));
		buf_lit(&b, d ? "," : "]");
	}
	return b.s;
}

enum { T_OUT, T_KEPT, T_LEFT };	/* a path's state in pick_tree */

/* Every call path under the tau region becomes a run region, down to
 * RUN_PATH_MAX levels, level by level (the shallow ones kept when a run
 * would hold more than RUN_REGIONS_MAX), each with a name a run's region
 * may have, unique among its siblings, under a parent kept. */
static void pick_tree(const struct xp *x, struct mapping *m)
{
	uint32_t base = x->paths[m->region].depth, d;
	unsigned char *state = xcalloc(x->npaths + 1, 1);
	size_t i, bad_name = 0, many = 0, deep = 0;
	json_t *seen = json_object();
	char key[RUN_NAME_MAX + 24];

	m->children = xcalloc(RUN_REGIONS_MAX + 1, sizeof(*m->children));
	m->child_path = xcalloc(RUN_REGIONS_MAX + 1, sizeof(*m->child_path));
	for (d = 1; d <= RUN_PATH_MAX + 1; d++) {
		for (i = 0; i < x->npaths; i++) {
			const struct xp_path *pa = &x->paths[i];
			unsigned char up = pa->parent == XP_NONE ? T_OUT : pa->parent == m->region ?
					   T_KEPT : state[pa->parent];

			if (pa->depth != base + d || up == T_OUT)
				continue;
			state[i] = T_LEFT;
			snprintf(key, sizeof(key), "%u:%.*s", pa->parent, RUN_NAME_MAX, leaf(x, i));
			if (up == T_LEFT || d > RUN_PATH_MAX)
				deep += up == T_KEPT;	/* a subtree deeper than a path may go */
			else if (!region_name_ok(leaf(x, i)) || json_object_get(seen, key))
				bad_name++;
			else if (m->nchildren == RUN_REGIONS_MAX)
				many++;
			else {
				state[i] = T_KEPT;
				json_object_set_new(seen, key, json_true());
				m->child_path[m->nchildren] = d > 1 ? path_json(x, (uint32_t)i, base) : NULL;
				m->children[m->nchildren++] = (uint32_t)i;
			}
		}
	}
	if (bad_name)
		xp_warn((struct xp *)x, "%zu call paths are left out of the runs (with what is under "
			"them): a name is empty, longer than %d bytes, has control characters, or a "
			"sibling has it", bad_name, RUN_NAME_MAX);
	if (many)
		xp_warn((struct xp *)x, "%zu call paths are left out (with what is under them): a run "
			"holds at most %d regions, the shallowest kept; choose a deeper region= to see "
			"its subtree", many, RUN_REGIONS_MAX);
	if (deep)
		xp_warn((struct xp *)x, "%zu call paths lie more than %d levels under '%s': their subtrees "
			"are left out (a region's path holds at most %d names)", deep, RUN_PATH_MAX,
			leaf(x, m->region), RUN_PATH_MAX);
	json_decref(seen);
	free(state);
}

static int pick_region(const struct xp *x, const struct import_opts *o, struct mapping *m,
		       struct kerr *err)
{
	char **names = xcalloc(x->npaths + 1, sizeof(*names)), list[2048];
	size_t i, n = 0;
	int rc = 0;

	m->region = XP_NONE;
	if (o->region) {
		m->region = find_path(x, o->region, strlen(o->region), "region", err);
		rc = m->region == XP_NONE ? -1 : 0;
	} else {
		for (i = 0; i < x->npaths; i++)
			if (x->paths[i].parent == XP_NONE)
				names[n++] = x->paths[i].name;
		if (n == 1) {
			for (i = 0; i < x->npaths; i++)
				if (x->paths[i].parent == XP_NONE)
					m->region = (uint32_t)i;
		} else {
			list_names(names, n, list, sizeof(list));
			rc = kerr_field(err, KERR_INVALID, "region", "say which region is tau (region=NAME): the "
					"file has %zu roots, %s", n, list);
		}
	}
	free(names);
	if (rc)
		return rc;
	pick_tree(x, m);
	return 0;
}

/* Repetition r of a measurement, or their mean when it has fewer; NAN for none. */
static double rep_value(const struct xp *x, const struct xp_meas *ms, uint32_t r)
{
	uint32_t i, v;
	double sum = 0;

	if (!ms || !ms->count)
		return NAN;
	if (r < ms->count) {
		for (i = 0, v = ms->first; i < r; i++)
			v = x->next[v];
		return x->vals[v];
	}
	for (v = ms->first; v != XP_NONE; v = x->next[v])
		sum += x->vals[v];
	return sum / ms->count;
}

struct emit {
	const struct import_opts *o;
	const char *key;	/* the import's hash, hex */
	struct buf nd;		/* csv, ndjson: the runs as NDJSON, read by run_parse_body */
	struct run_batch batch;	/* the others: the runs made directly */
	size_t cap;
	struct buf reg;		/* one run's regions */
	size_t runs, cells;
	size_t negative;	/* region values below 0, left out */
	bool *child_used;
};

static void emit_key(struct emit *e, bool *first)
{
	char k[96];

	snprintf(k, sizeof(k), "import:%s:%zu", e->key, e->runs);
	buf_key(&e->nd, first, "idempotency_key");
	buf_str(&e->nd, k, strlen(k));
}

/* The run of repetition r at point pt, made directly (the checks a POST
 * makes are the mapping's: p whole, n and tau > 0, names checked once). */
static int emit_run(struct emit *e, const struct xp *x, const struct mapping *m, uint32_t pt,
		    uint32_t r, double p, double n, double tau, const char *labels, struct kerr *err)
{
	const struct xp_meas *root_e = m->energy == XP_NONE ? NULL : xp_find(x, m->region, m->energy, pt);
	double energy = rep_value(x, root_e, r);
	struct run *run;
	size_t c;

	if (e->batch.count == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 256;
		e->batch.runs = xrealloc(e->batch.runs, e->cap * sizeof(*e->batch.runs));
	}
	run = &e->batch.runs[e->batch.count];
	memset(run, 0, sizeof(*run));
	run->system = xstrdup(e->o->system);
	run->application = xstrdup(e->o->application);
	run->variant = xstrdup(e->o->variant ? e->o->variant : "");
	run->labels = labels ? xstrdup(labels) : NULL;
	e->batch.count++;
	run->p = (int64_t)p;
	run->n = n;
	run->tau = tau;
	run->chi = run->gamma = NAN;
	if (isfinite(energy) && energy >= 0) {
		run->energy_j = energy;
		run->has |= RUN_HAS_ENERGY;
	}
	if (m->noverhead) {
		double sum = 0;

		for (c = 0; c < m->noverhead; c++) {
			double t = rep_value(x, xp_find(x, m->overhead[c], m->metric, pt), r);

			if (isfinite(t) && t > 0)
				sum += t;
		}
		if (sum > tau)
			return kerr_field(err, KERR_INVALID, m->gamma ? "gamma_regions" : "chi_regions", "at p = %g, "
					  "n = %g the regions add up to %g s, more than tau (%g s)", p, n, sum,
					  tau);
		run->chi = m->gamma ? tau - sum : sum;
		run->gamma = tau - run->chi;
		run->has |= RUN_HAS_CHI;
	}
	e->reg.len = 0;
	for (c = 0; c < m->nchildren; c++) {
		uint32_t ch = m->children[c];
		const char *name = leaf(x, ch);
		double t, en;

		t = rep_value(x, xp_find(x, ch, m->metric, pt), r);
		e->negative += t < 0;	/* 0 is a measurement (a region that took no time) */
		if (!(isfinite(t) && t >= 0))
			continue;
		en = m->energy == XP_NONE ? NAN : rep_value(x, xp_find(x, ch, m->energy, pt), r);
		buf_add(&e->reg, e->reg.len ? ",{\"name\":" : "[{\"name\":", 9);
		buf_str(&e->reg, name, strlen(name));
		if (m->child_path[c]) {
			buf_lit(&e->reg, ",\"path\":");
			buf_lit(&e->reg, m->child_path[c]);
		}
		buf_add(&e->reg, ",\"time_s\":", 10);
		buf_num(&e->reg, t);
		if (isfinite(en) && en >= 0) {
			buf_add(&e->reg, ",\"energy_j\":", 12);
			buf_num(&e->reg, en);
		}
		buf_add(&e->reg, "}", 1);
		e->child_used[c] = true;
		e->cells++;
	}
	if (e->reg.len) {
		buf_add(&e->reg, "]", 1);
		run->regions = xstrndup(e->reg.s, e->reg.len);
	}
	e->runs++;
	return 0;
}

/* A number as a label's text: the shortest %g that reads back the same. */
static void number_text(double v, char *out, size_t size)
{
	int prec;

	for (prec = 6; prec < 17; prec++) {
		snprintf(out, size, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			return;
	}
	snprintf(out, size, "%.17g", v);
}

/* The labels of point pt's runs as a JSON object's text (NULL: none): its
 * label set, and with params_as_labels each parameter that is neither p
 * nor n; their keys joined into keys. */
static char *point_labels(const struct xp *x, const struct mapping *m, size_t pt, json_t *keys)
{
	json_t *l = x->point_set[pt] != XP_NONE ? json_copy(json_array_get(x->sets, x->point_set[pt])) :
		    json_object(), *v;
	const char *k;
	char num[40], *text = NULL;
	size_t i;

	for (i = 0; x->params_as_labels && i < x->nparams; i++) {
		if (i == m->p || i == m->n || strlen(x->params[i]) > XP_LABEL_KEY_MAX)
			continue;
		number_text(x->coords[pt * x->nparams + i], num, sizeof(num));
		json_object_set_new(l, x->params[i], json_string(num));
	}
	json_object_foreach(l, k, v)
		if (!json_object_get(keys, k))
			json_object_set_new(keys, k, json_true());
	if (json_object_size(l))
		text = json_dumps(l, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(l);
	return text;
}

/* p and n of a point as a run takes them; -1 with err naming the
 * parameter otherwise. */
static int point_pn_check(const struct xp *x, const struct mapping *m, double p, double n, struct kerr *err)
{
	if (p != floor(p) || p < 1 || p > 1e9)
		return kerr_field(err, KERR_INVALID, "p", "the parameter '%s' is p, and a point has p = %g: p "
				  "must be a whole number of processors from 1 (say which "
				  "parameter is p with p=NAME)", x->params[m->p], p);
	if (!(n > 0))
		return kerr_field(err, KERR_INVALID, m->n == SIZE_MAX ? "n_value" : "n", "the parameter '%s' "
				  "is n, and a point has n = %g: n must be greater than 0",
				  m->n == SIZE_MAX ? "n_value" : x->params[m->n], n);
	return 0;
}

/* A run of each repetition at point pt whose time is greater than 0
 * (*bad_tau counts the others): how many, or -1 with err past a limit. */
static long point_runs(struct emit *e, struct xp *x, const struct mapping *m, uint32_t pt,
		       const struct xp_meas *ms, double p, double n, const char *labels, size_t *bad_tau,
		       struct kerr *err)
{
	uint32_t r, v;
	long made = 0;

	for (r = 0, v = ms->first; r < ms->count; r++, v = x->next[v]) {
		double tau = x->vals[v];

		if (!(isfinite(tau) && tau > 0)) {
			++*bad_tau;
			continue;
		}
		if (e->runs == IMPORT_RUNS_MAX)
			return kerr_field(err, KERR_TOO_LARGE, "body", "the file makes more than %d runs; split it",
					  IMPORT_RUNS_MAX);
		if (emit_run(e, x, m, pt, r, p, n, tau, labels, err))
			return -1;
		made++;
		if (e->cells > IMPORT_CELLS_MAX)
			return kerr_field(err, KERR_TOO_LARGE, "region", "runs x regions exceeds %d; choose a "
					  "region with fewer children (region=NAME) or split the file",
					  IMPORT_CELLS_MAX);
	}
	return made;
}

/* What was left out, as warnings. */
static void runs_warnings(struct xp *x, const struct mapping *m, const struct emit *e, size_t skipped_points,
			  size_t bad_tau)
{
	if (skipped_points)
		xp_warn(x, "%zu of %zu points have no value of '%s' for the region '%s': left out",
			skipped_points, x->npoints, x->metrics[m->metric], x->paths[m->region].name);
	if (bad_tau)
		xp_warn(x, "%zu repetitions of '%s' are not a time greater than 0 (NaN, inf, 0 or "
			"negative): left out, no run made of them", bad_tau, x->metrics[m->metric]);
	if (e->negative)
		xp_warn(x, "%zu region values are negative: left out of their runs (a region of 0 s "
			"is kept)", e->negative);
}

static int xp_runs(struct xp *x, const struct import_opts *o, struct emit *e,
		   struct import_result *res, struct kerr *err)
{
	struct mapping m = {0};
	size_t pt, skipped_points = 0, bad_tau = 0, c;
	json_t *keys = json_object(), *jv;
	const char *k;
	char *labels = NULL;
	long made;
	int rc = -1;

	if (pick_params(x, o, &m, err) || pick_metric(x, o, &m, err) || pick_region(x, o, &m, err) ||
	    pick_overhead(x, o, &m, err))
		goto out;
	e->child_used = xcalloc(m.nchildren + 1, sizeof(bool));
	for (pt = 0; pt < x->npoints; pt++) {
		const struct xp_meas *ms = xp_find(x, m.region, m.metric, (uint32_t)pt);
		const double *coord = x->coords + pt * x->nparams;
		double p = coord[m.p], n = m.n == SIZE_MAX ? m.n_value : coord[m.n];

		if (!ms) {
			skipped_points++;
			continue;
		}
		if (point_pn_check(x, &m, p, n, err))
			goto out;
		free(labels);
		labels = point_labels(x, &m, pt, keys);
		if ((made = point_runs(e, x, &m, (uint32_t)pt, ms, p, n, labels, &bad_tau, err)) < 0)
			goto out;
		res->points += made > 0;
	}
	runs_warnings(x, &m, e, skipped_points, bad_tau);
	if (!e->runs) {
		kerr_field(err, KERR_INVALID, "region", "no run: the region '%s' has no value of the metric "
			   "'%s' greater than 0 at any of the file's %zu points",
			   x->paths[m.region].name, x->metrics[m.metric], x->npoints);
		goto out;
	}
	res->regions = json_array();
	for (c = 0; c < m.nchildren; c++) {
		char *text;

		if (!e->child_used[c])
			continue;
		text = m.child_path[c] ? path_text(x, m.children[c]) : NULL;
		/* a nested one as its path under the region, "solve->MPI_Send" */
		json_array_append_new(res->regions, json_string(text ? text + x->paths[m.region].text + 2 :
								leaf(x, m.children[c])));
		free(text);
	}
	res->labels = json_array();
	json_object_foreach(keys, k, jv)
		json_array_append_new(res->labels, json_string(k));
	rc = 0;
out:
	free(labels);
	json_decref(keys);
	if (rc)
		available(x, res);
	for (c = 0; m.child_path && c < m.nchildren; c++)
		free(m.child_path[c]);
	free(m.child_path);
	free(m.children);
	free(m.overhead);
	free(e->child_used);
	e->child_used = NULL;
	return rc;
}

/* ---- CSV ----------------------------------------------------------------- */

enum ctype { C_SKIP, C_STRING, C_NUMBER, C_JSON, C_LABEL };

struct csv_col {
	char *header;
	const char *field;	/* run field, or the label's name */
	enum ctype type;
};

struct csv_read {
	const struct import_opts *o;
	struct emit *e;
	struct xp *warn;	/* for warnings only */
	struct csv_col cols[CSV_COLS_MAX];
	size_t ncols, col;
	char *cells[CSV_COLS_MAX];
	long row;		/* rows read, the header being 0 */
	bool header_done, has_system, has_application, has_variant, has_key;
	struct kerr *err;
	bool failed;
};

static const struct {
	const char *name;
	enum ctype type;
} run_fields[] = {
	{"system", C_STRING}, {"application", C_STRING}, {"variant", C_STRING},
	{"p", C_NUMBER}, {"n", C_NUMBER}, {"tau", C_NUMBER}, {"chi", C_NUMBER},
	{"gamma", C_NUMBER}, {"frequency_mhz", C_NUMBER}, {"power_cap_w", C_NUMBER},
	{"energy_j", C_NUMBER}, {"measured_at", C_STRING}, {"idempotency_key", C_STRING},
	{"labels", C_JSON}, {"regions", C_JSON}, {"id", C_SKIP}, {"created_at", C_SKIP},
	{"efficiency", C_SKIP},	/* what the export writes and the store gives */
};

static int csv_fail(struct csv_read *c, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int csv_fail(struct csv_read *c, const char *field, const char *fmt, ...)
{
	char what[220];
	va_list ap;

	if (c->failed)
		return -1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	c->failed = true;
	/* the file's line: the header is line 1 (a quoted cell with a line
	 * break in it makes its row one line here) */
	kerr_field(c->err, KERR_INVALID, field, "line %ld: %s", c->row + 1, what);
	c->err->index = c->row;
	return -1;
}

static void csv_header(struct csv_read *c)
{
	size_t i, j, k;

	for (i = 0; i < c->ncols; i++) {
		struct csv_col *col = &c->cols[i];
		const char *h = col->header, *name = h;

		col->type = C_SKIP;
		col->field = NULL;
		/* col.FIELD=HEADER: this column is FIELD */
		for (k = 0; k < c->o->ncols; k++)
			if (!strcmp(c->o->cols[k].header, h))
				name = c->o->cols[k].field;
		if (!strncmp(name, "label.", 6) && name[6]) {
			col->field = name + 6;
			col->type = C_LABEL;
			continue;
		}
		for (j = 0; j < sizeof(run_fields) / sizeof(run_fields[0]); j++)
			if (!strcmp(run_fields[j].name, name)) {
				col->field = run_fields[j].name;
				col->type = run_fields[j].type;
			}
		if (!col->field)
			xp_warn(c->warn, "the column '%s' is not a run field: left out (map it with "
				"col.FIELD=%s, or col.label.NAME=%s for a label)", h, h, h);
		c->has_system |= col->field && !strcmp(col->field, "system");
		c->has_application |= col->field && !strcmp(col->field, "application");
		c->has_variant |= col->field && !strcmp(col->field, "variant");
		c->has_key |= col->field && !strcmp(col->field, "idempotency_key");
	}
	for (k = 0; k < c->o->ncols; k++) {
		for (i = 0; i < c->ncols && strcmp(c->cols[i].header, c->o->cols[k].header); i++)
			;
		if (i == c->ncols) {
			char f[80];

			snprintf(f, sizeof(f), "col.%s", c->o->cols[k].field);
			csv_fail(c, f, "the file has no column '%s'", c->o->cols[k].header);
			return;
		}
	}
	if (!c->has_system && !c->o->system)
		csv_fail(c, "system", "the file has no column 'system': give system= (or col.system=HEADER)");
	else if (!c->has_application && !c->o->application)
		csv_fail(c, "application", "the file has no column 'application': give application= "
			 "(or col.application=HEADER)");
}

static void csv_row(struct csv_read *c)
{
	struct buf *b = &c->e->nd;
	bool first = true, labels = false, sys = false, app = false, var = false, key = false;
	bool has_n = false;
	size_t i;

	buf_add(b, "{", 1);
	for (i = 0; i < c->ncols && !c->failed; i++) {
		const struct csv_col *col = &c->cols[i];
		const char *v = c->cells[i] ? c->cells[i] : "";
		double d;

		if (col->type == C_SKIP || col->type == C_LABEL || !*v)
			continue;
		sys |= !strcmp(col->field, "system");
		has_n |= !strcmp(col->field, "n");
		app |= !strcmp(col->field, "application");
		var |= !strcmp(col->field, "variant");
		key |= !strcmp(col->field, "idempotency_key");
		buf_key(b, &first, col->field);
		if (col->type == C_STRING) {
			buf_str(b, v, strlen(v));
		} else if (col->type == C_NUMBER) {
			if (!xp_number(v, strlen(v), &d) || !isfinite(d)) {
				csv_fail(c, col->field, "%s is '%.40s', not a number", col->field, v);
				break;
			}
			buf_num(b, d);
		} else {
			json_error_t je;
			json_t *j = json_loads(v, JSON_REJECT_DUPLICATES, &je);
			char *t = j ? jsonw_string(j, NULL) : NULL;

			if (!t)
				csv_fail(c, col->field, "%s is not JSON: %s", col->field, je.text);
			else
				buf_lit(b, t);
			free(t);
			json_decref(j);
		}
	}
	for (i = 0; i < c->ncols && !c->failed; i++) {
		const char *v = c->cells[i] ? c->cells[i] : "";

		if (c->cols[i].type != C_LABEL || !*v)
			continue;
		if (!labels)
			buf_key(b, &first, "labels");
		buf_add(b, labels ? "," : "{", 1);
		labels = true;
		buf_str(b, c->cols[i].field, strlen(c->cols[i].field));
		buf_add(b, ":", 1);
		buf_str(b, v, strlen(v));
	}
	if (labels)
		buf_add(b, "}", 1);
	if (!sys && c->o->system) {
		buf_key(b, &first, "system");
		buf_str(b, c->o->system, strlen(c->o->system));
	}
	if (!app && c->o->application) {
		buf_key(b, &first, "application");
		buf_str(b, c->o->application, strlen(c->o->application));
	}
	if (!var && c->o->variant) {
		buf_key(b, &first, "variant");
		buf_str(b, c->o->variant, strlen(c->o->variant));
	}
	if (!has_n && c->o->has_n_value) {	/* n_value: the n of rows without one */
		buf_key(b, &first, "n");
		buf_num(b, c->o->n_value);
	}
	if (!key)
		emit_key(c->e, &first);
	buf_add(b, "}\n", 2);
	c->e->runs++;
}

static void csv_cell(void *s, size_t len, void *ctx)
{
	struct csv_read *c = ctx;

	if (c->failed)
		return;
	if (c->col == CSV_COLS_MAX) {
		kerr_field(c->err, KERR_TOO_LARGE, "body", "row %ld has more than %d columns", c->row, CSV_COLS_MAX);
		c->failed = true;
		return;
	}
	if (!c->header_done) {
		if (!len) {
			csv_fail(c, "body", "column %zu of the header has no name", c->col + 1);
			return;
		}
		c->cols[c->col].header = xstrndup(s, len);
	} else {
		const char *v = s ? s : "";

		/* the apostrophe karte's export puts before a would-be formula */
		if (len > 1 && csv_cell_unescape(v) != v) {
			v++;
			len--;
		}
		free(c->cells[c->col]);
		c->cells[c->col] = xstrndup(v, s ? len : 0);
	}
	c->col++;
}

static void csv_end(int term, void *ctx)
{
	struct csv_read *c = ctx;
	size_t i;

	(void)term;
	if (c->failed)
		return;
	if (!c->header_done) {
		c->ncols = c->col;
		c->header_done = true;
		csv_header(c);
	} else if (c->col == 1 && (!c->cells[0] || !*c->cells[0]) && c->ncols > 1) {
		/* a blank line */
	} else if (c->col != c->ncols) {
		csv_fail(c, "body", "the row has %zu cells where the header has %zu", c->col, c->ncols);
	} else if (c->e->runs == IMPORT_RUNS_MAX) {
		kerr_field(c->err, KERR_TOO_LARGE, "body", "the file makes more than %d runs; split it",
			   IMPORT_RUNS_MAX);
		c->failed = true;
	} else {
		csv_row(c);
	}
	for (i = 0; i < c->col; i++) {
		free(c->cells[i]);
		c->cells[i] = NULL;
	}
	c->col = 0;
	c->row++;
}

static int read_csv(const char *body, size_t len, const struct import_opts *o, struct emit *e,
		    struct xp *warn, struct import_result *res, struct kerr *err)
{
	struct csv_read c = {0};
	struct csv_parser p;
	size_t i;
	int rc = -1;

	c.o = o;
	c.e = e;
	c.warn = warn;
	c.err = err;
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL))
		return kerr_set(err, KERR_INTERNAL, "cannot start the CSV reader");
	if (csv_parse(&p, body, len, csv_cell, csv_end, &c) != len && !c.failed)
		kerr_field(err, KERR_INVALID, "body", "row %ld: not CSV: %s", c.row, csv_strerror(csv_error(&p)));
	else if (!c.failed && csv_fini(&p, csv_cell, csv_end, &c) && !c.failed)
		kerr_field(err, KERR_INVALID, "body", "row %ld: not CSV: %s", c.row, csv_strerror(csv_error(&p)));
	else if (!c.failed && !c.header_done)
		kerr_field(err, KERR_INVALID, "body", "the file is empty: a CSV needs a header row");
	else if (!c.failed && !e->runs)
		kerr_field(err, KERR_INVALID, "body", "the file has a header and no rows: no run");
	else
		rc = c.failed ? -1 : 0;
	csv_free(&p);
	for (i = 0; i < CSV_COLS_MAX; i++) {
		free(c.cols[i].header);
		free(c.cells[i]);
	}
	res->points = e->runs;
	res->regions = json_array();
	return rc;
}

/* ---- karte's own NDJSON export ---------------------------------------------- */

/* Runs as GET /api/v1/runs?format=ndjson writes them: id, created_at and
 * efficiency are left out (the store gives them), system, application and
 * variant default to the query's, a run without idempotency_key gets one. */
static int read_ndjson(const char *body, size_t len, const struct import_opts *o, struct emit *e,
		       struct import_result *res, struct kerr *err)
{
	size_t pos = 0, n, k;
	const char *line;
	json_error_t je;
	long ln = 0;

	while (xp_next_line(body, len, &pos, &line, &n)) {
		json_t *run;
		char *text;
		bool first = false;

		ln++;
		for (k = 0; k < n && isspace((unsigned char)line[k]); k++)
			;
		if (k == n)
			continue;
		run = json_loadb(line, n, JSON_REJECT_DUPLICATES, &je);
		if (!json_is_object(run)) {
			json_decref(run);
			kerr_field(err, KERR_INVALID, "body", "line %ld: not a JSON object%s%s", ln, run ? "" : ": ",
				   run ? "" : je.text);
			err->index = ln;
			return -1;
		}
		if (e->runs == IMPORT_RUNS_MAX) {
			json_decref(run);
			return kerr_field(err, KERR_TOO_LARGE, "body", "the file makes more than %d runs; split it",
					  IMPORT_RUNS_MAX);
		}
		json_object_del(run, "id");
		json_object_del(run, "created_at");
		json_object_del(run, "efficiency");
		if (!json_object_get(run, "system") && o->system)
			json_object_set_new(run, "system", json_string(o->system));
		if (!json_object_get(run, "application") && o->application)
			json_object_set_new(run, "application", json_string(o->application));
		if (!json_object_get(run, "variant") && o->variant)
			json_object_set_new(run, "variant", json_string(o->variant));
		text = jsonw_string(run, NULL);
		if (!text) {
			json_decref(run);
			return kerr_set(err, KERR_INTERNAL, "line %ld could not be written again", ln);
		}
		buf_add(&e->nd, text, strlen(text) - 1);	/* without its '}' */
		if (!json_object_get(run, "idempotency_key"))
			emit_key(e, &first);
		buf_add(&e->nd, "}\n", 2);
		free(text);
		json_decref(run);
		e->runs++;
	}
	if (!e->runs)
		return kerr_field(err, KERR_INVALID, "body", "the file has no run");
	res->points = e->runs;
	res->regions = json_array();
	return 0;
}

/* ---- guess ------------------------------------------------------------------ */

/* Whether the text up to the first newline holds s. */
static bool first_line_has(const char *body, size_t len, const char *s)
{
	const char *nl = memchr(body, '\n', len);
	size_t n = nl ? (size_t)(nl - body) : len, k = strlen(s), i;

	for (i = 0; i + k <= n; i++)
		if (!memcmp(body + i, s, k))
			return true;
	return false;
}

/* Whether s[0, n) starts with lit. */
static bool starts(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);

	return n >= k && !memcmp(s, lit, k);
}

static bool has(const char *body, size_t len, const char *s)
{
	return memmem(body, len, s, strlen(s)) != NULL;
}

const char *import_guess(const char *body, size_t len)
{
	size_t pos = 0, n, k;
	const char *line;

	/* archives: a zip saved by Extra-P holds experiment.json; else profiles */
	if (len > 4 && !memcmp(body, "PK\x03\x04", 4))
		return has(body, len < 4096 ? len : 4096, "experiment.json") ? "extrap-experiment" : "cube";
	if ((len > 2 && !memcmp(body, "\x1f\x8b", 2)) || (len > 3 && !memcmp(body, "BZh", 3)) ||
	    (len > 6 && !memcmp(body, "\xfd" "7zXZ", 5)) || (len > 262 && !memcmp(body + 257, "ustar", 5)))
		return "cube";
	if (len >= 3 && !memcmp(body, "\xef\xbb\xbf", 3)) {
		body += 3;
		len -= 3;
	}
	while (len && isspace((unsigned char)*body)) {
		body++;
		len--;
	}
	if (!len)
		return NULL;
	if (len > 6 && !memcmp(body, "__rec=", 6))
		return "cali";
	if (*body == '{') {
		if (first_line_has(body, len, "\"tau\"") && first_line_has(body, len, "\"system\""))
			return "ndjson";
		if (first_line_has(body, len, "\"params\""))
			return "extrap-jsonl";
		if (first_line_has(body, len, "\"parameters\"") && first_line_has(body, len, "\"callpath\""))
			return "talpas";
		if (has(body, len < 65536 ? len : 65536, "\"dataframe_indices\"") ||
		    (has(body, len < 65536 ? len : 65536, "\"dataframe\"") &&
		     has(body, len < 65536 ? len : 65536, "\"graph\"")))
			return "thicket-json";
		if (has(body, len < 65536 ? len : 65536, "\"nodes\"") ||
		    has(body, len < 65536 ? len : 65536, "\"columns\""))
			return "caliper-json";
		if (has(body, len < 65536 ? len : 65536, "\"measurements\""))
			return "extrap-json";
		return NULL;
	}
	if (*body == '[')
		return "caliper-json";
	if (has(body, len < 65536 ? len : 65536, "Application Totals:") ||
	    starts(body, len, "##### geopm") || starts(body, len, "GEOPM Version"))
		return "geopm-report";
	/* the first line that is not a comment */
	while (xp_next_line(body, len, &pos, &line, &n)) {
		for (k = 0; k < n && isspace((unsigned char)line[k]); k++)
			;
		if (k == n || line[k] == '#')
			continue;
		if (starts(line + k, n - k, "PARAMETER") || starts(line + k, n - k, "POINTS") ||
		    starts(line + k, n - k, "REGION") || starts(line + k, n - k, "METRIC"))
			return "extrap-text";
		return memchr(line, ',', n) ? "csv" : NULL;
	}
	return NULL;
}

/* ---- the entry point -------------------------------------------------------- */

static void part(struct sha256_ctx *h, const char *s)
{
	if (!s)
		s = "";
	sha256_update(h, strlen(s) + 1, (const uint8_t *)s);
}

/* The import's identity: the file and everything that maps it, hashed. */
static void import_hash(const char *body, size_t len, const char *format,
			const struct import_opts *o, char hex[33])
{
	struct sha256_ctx h;
	uint8_t d[SHA256_DIGEST_SIZE];
	char num[96];
	size_t i;

#define PART(s) part(&h, s)
	sha256_init(&h);
	PART(format);
	PART(o->system);
	PART(o->application);
	PART(o->variant);
	PART(o->p);
	PART(o->n);
	snprintf(num, sizeof(num), "%d:%.17g:%.17g", o->has_n_value, o->n_value, o->time_scale);
	PART(num);
	PART(o->metric);
	PART(o->region);
	PART(o->chi_regions);
	PART(o->gamma_regions);
	for (i = 0; i < o->ncols; i++) {
		PART(o->cols[i].field);
		PART(o->cols[i].header);
	}
#undef PART
	sha256_update(&h, len, (const uint8_t *)body);
	sha256_digest(&h, sizeof(d), d);
	for (i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* system, application and variant as a POST would take them (a run of
 * them is parsed), so that runs made directly need no check of their own. */
static int series_check(const struct import_opts *o, struct kerr *err)
{
	struct run_batch rb;
	struct buf b = {0};
	bool first = true;
	int rc;

	buf_add(&b, "{", 1);
	buf_key(&b, &first, "system");
	buf_str(&b, o->system ? o->system : "s", strlen(o->system ? o->system : "s"));
	buf_key(&b, &first, "application");
	buf_str(&b, o->application ? o->application : "a", strlen(o->application ? o->application : "a"));
	if (o->variant) {
		buf_key(&b, &first, "variant");
		buf_str(&b, o->variant, strlen(o->variant));
	}
	buf_lit(&b, ",\"p\":1,\"n\":1,\"tau\":1}");
	rc = run_parse_body(b.s, b.len, BODY_JSON, &rb, err);
	if (!rc)
		run_batch_free(&rb);
	free(b.s);
	return rc;
}

bool import_stopped(const struct import_opts *o, struct kerr *err)
{
	if (!o->cancel || !atomic_load(o->cancel))
		return false;
	kerr_set(err, KERR_STORE, "the import was stopped (its client went away, or karted is stopping); "
		 "nothing of it was stored");
	return true;
}

/* The first line of body that is not valid UTF-8 on its own. */
static size_t first_bad_line(const char *body, size_t len)
{
	size_t i = 0, line = 1;

	while (i < len) {
		const char *nl = memchr(body + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - body) : len;

		if (!utf8_valid((const unsigned char *)body + i, end - i))
			break;
		i = end + 1;
		line++;
	}
	return line;
}

/* The file's format (format= or guessed) into *fmt, a text file's
 * byte-order mark stepped over, and what every import needs checked:
 * names, UTF-8, a whole-read file's size, the series; 0 or -1 with err. */
static int import_check(const char **body, size_t *len, const struct import_opts *o, const char **fmt,
			struct kerr *err)
{
	if (o->format && !format_static(o->format))
		return kerr_field(err, KERR_INVALID, "format", "format='%.40s' is not one karte reads; it reads "
				  IMPORT_FORMATS, o->format);
	if (!*len)
		return kerr_field(err, KERR_INVALID, "body", "the file is empty");
	*fmt = o->format ? format_static(o->format) : import_guess(*body, *len);
	if (!*fmt)
		return kerr_field(err, KERR_INVALID, "format", "the file's format is not one karte recognises; "
				  "say which it is with format= (one of " IMPORT_FORMATS ")");
	if (!binary_format(*fmt) && *len >= 3 && !memcmp(*body, "\xef\xbb\xbf", 3)) {
		*body += 3;	/* a byte-order mark */
		*len -= 3;
	}
	if (strcmp(*fmt, "csv") && strcmp(*fmt, "ndjson") && (!o->system || !o->application))
		return kerr_field(err, KERR_INVALID, o->system ? "application" : "system", "give the runs a "
				  "system= and an application=");
	if (!binary_format(*fmt) && !utf8_valid((const unsigned char *)*body, *len))
		return kerr_field(err, KERR_INVALID, "body", "line %zu: the file is not valid UTF-8 (save it as "
				  "UTF-8)", first_bad_line(*body, *len));
	if ((!strcmp(*fmt, "extrap-json") || !strcmp(*fmt, "caliper-json") || !strcmp(*fmt, "thicket-json")) &&
	    *len > TREE_BODY_MAX)
		return kerr_field(err, KERR_TOO_LARGE, "body", "a %s file may be at most %u bytes (it is read "
				  "whole)", *fmt, TREE_BODY_MAX);
	return series_check(o, err);
}

/* The file read by its format's reader: CSV and NDJSON as runs straight
 * into e, the others into x's call tree and values. */
static int read_format(const char *fmt, struct xp *x, const char *body, size_t len,
		       const struct import_opts *o, struct emit *e, struct import_result *res,
		       struct kerr *err)
{
	if (!strcmp(fmt, "csv"))
		return read_csv(body, len, o, e, x, res, err);
	if (!strcmp(fmt, "ndjson"))
		return read_ndjson(body, len, o, e, res, err);
	if (!strcmp(fmt, "extrap-text"))
		return xp_read_extrap_text(x, body, len, err);
	if (!strcmp(fmt, "extrap-jsonl") || !strcmp(fmt, "talpas"))
		return xp_read_extrap_jsonl(x, body, len, !strcmp(fmt, "talpas"), err);
	if (!strcmp(fmt, "extrap-json"))
		return xp_read_extrap_json(x, body, len, err);
	if (!strcmp(fmt, "cali"))
		return xp_read_cali(x, body, len, o, err);
	if (!strcmp(fmt, "caliper-json"))
		return xp_read_caliper_json(x, body, len, o, err);
	if (!strcmp(fmt, "cube"))
		return xp_read_cube(x, body, len, o, err);
	if (!strcmp(fmt, "extrap-experiment"))
		return xp_read_extrap_experiment(x, body, len, err);
	if (!strcmp(fmt, "thicket-json"))
		return xp_read_thicket(x, body, len, o, err);
	return xp_read_geopm(x, body, len, o, err);
}

int import_read(const char *body, size_t len, const struct import_opts *o,
		struct import_result *res, struct kerr *err)
{
	struct emit e = {0};
	struct xp x;
	char key[33];
	const char *fmt = NULL;
	bool as_runs;
	int rc;

	memset(res, 0, sizeof(*res));
	kerr_clear(err);
	rc = import_check(&body, &len, o, &fmt, err);
	res->format = fmt;
	if (rc)
		return -1;
	as_runs = !strcmp(fmt, "csv") || !strcmp(fmt, "ndjson");
	import_hash(body, len, fmt, o, key);
	e.o = o;
	e.key = key;
	xp_init(&x);
	x.time_scale = o->time_scale;
	x.opts = o;
	rc = read_format(fmt, &x, body, len, o, &e, res, err);
	if (!rc && !as_runs)
		rc = xp_runs(&x, o, &e, res, err);
	if (!rc && as_runs) {
		if (run_parse_body(e.nd.s, e.nd.len, BODY_NDJSON, &res->batch, err))
			rc = -1;
	} else if (!rc) {
		snprintf(res->hash, sizeof(res->hash), "import:%s", key);
		res->batch = e.batch;	/* moved */
		e.batch.runs = NULL;
		e.batch.count = 0;
	}
	run_batch_free(&e.batch);
	free(e.reg.s);
	if (x.nwarnings > IMPORT_WARNINGS_MAX) {
		char more[64];

		snprintf(more, sizeof(more), "and %zu more warnings", x.nwarnings - IMPORT_WARNINGS_MAX);
		json_array_append_new(x.warnings, json_string(more));
	}
	res->warnings = json_incref(x.warnings);
	xp_free(&x);
	free(e.nd.s);
	return rc;
}
