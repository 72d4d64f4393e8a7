/*
 * Caliper's files (.cali records, cali-query/Thicket JSON): one run each
 * (GEOPM's reports are import_geopm.c's). Per process (mpi.rank) each region's inclusive
 * time is found (exclusive times summed over the subtree), then the
 * largest over the processes is the region's time: the parallel time is
 * the slowest process's.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "import_globals.h"
#include "import_xp.h"
#include "core/xalloc.h"

#define CALI_NODES_MAX 10000000	/* node ids of a .cali file */
#define CALI_FIELDS_MAX 4096	/* values of one record */
#define NAME_MAX_LEN 4096

/* ---- per process, per region: the times before the largest is taken ------- */

struct acc {
	struct xp per;		/* its points are ranks, its paths x's; metric 0 */
	bool inclusive;		/* the values are inclusive times already */
	bool ranks;		/* an mpi.rank was seen */
	double scale;		/* seconds per unit */
};

static void acc_init(struct acc *a)
{
	memset(a, 0, sizeof(*a));
	xp_init(&a->per);
	a->per.nparams = 1;
	a->per.params[0] = xstrdup("rank");
	a->scale = 1;
}

static int acc_add(struct acc *a, uint32_t path, double rank, bool has_rank, double v,
		   struct kerr *err)
{
	uint32_t pt = xp_point(&a->per, &rank, err);

	a->ranks |= has_rank;
	if (pt == XP_NONE)
		return -1;
	return xp_value(&a->per, path, 0, pt, v, err);
}

/* Fold per-process values into x at the one point: inclusive sums over the
 * subtree when the values are exclusive, then the largest over processes. */
static int acc_finish(struct acc *a, struct xp *x, const struct globals *g,
		      const struct import_opts *o, const char *metric, struct kerr *err)
{
	double pn[2], *incl = NULL, *best = NULL;
	size_t r, i, np = x->npaths;
	uint32_t pt, m;
	bool has_n;
	int rc = -1;

	if (globals_point(x, g, a->ranks ? a->per.npoints : 0, o, pn, &has_n, err))
		return -1;
	if ((pt = xp_point(x, pn, err)) == XP_NONE || (m = xp_metric(x, metric, strlen(metric), err)) == XP_NONE)
		return -1;
	incl = xcalloc(np + 1, sizeof(double));
	best = xcalloc(np + 1, sizeof(double));
	for (i = 0; i < np; i++)
		best[i] = NAN;
	for (r = 0; r < a->per.npoints; r++) {
		for (i = 0; i < np; i++) {
			const struct xp_meas *ms = xp_find(&a->per, (uint32_t)i, 0, (uint32_t)r);
			uint32_t v;

			incl[i] = 0;
			if (ms)
				for (v = ms->first; v != XP_NONE; v = a->per.next[v])
					incl[i] += a->per.vals[v];
		}
		/* parents come before their children: add each child to its parent, last first */
		if (!a->inclusive)
			for (i = np; i-- > 0;)
				if (x->paths[i].parent != XP_NONE)
					incl[x->paths[i].parent] += incl[i];
		for (i = 0; i < np; i++)
			if (isnan(best[i]) || incl[i] > best[i])
				best[i] = incl[i];
	}
	for (i = 0; i < np; i++)
		if (!isnan(best[i]) && xp_value(x, (uint32_t)i, m, pt, best[i] * a->scale, err))
			goto out;
	rc = 0;
out:
	free(incl);
	free(best);
	return rc;
}

/* The time metric among names: o->metric, else the first of these. */
static int pick_time(struct xp *x, const char *const *names, size_t n, const struct import_opts *o,
		     bool *inclusive, double *scale, struct kerr *err)
{
	static const char *const prefer[] = {
		"max#inclusive#sum#time.duration", "inclusive#sum#time.duration",
		"sum#inclusive#sum#time.duration", "avg#inclusive#sum#time.duration",
		"inclusive#time.duration", "time.inclusive.duration", "sum#time.duration",
		"sum#sum#time.duration", "time.duration", "max#sum#time.duration",
		"inclusive#sum#time.duration.ns", "sum#time.duration.ns", "time.duration.ns",
	};
	size_t i, j;
	int at = -1;

	for (i = 0; i < sizeof(prefer) / sizeof(prefer[0]) && at < 0 && !o->metric; i++)
		for (j = 0; j < n && at < 0; j++)
			if (!strcmp(names[j], prefer[i]))
				at = (int)j;
	for (j = 0; j < n && at < 0 && o->metric; j++)
		if (!strcmp(names[j], o->metric))
			at = (int)j;
	if (at < 0) {
		char list[1500];
		size_t k = 0;

		list[0] = '\0';
		for (j = 0; j < n && k + 80 < sizeof(list); j++)
			k += (size_t)snprintf(list + k, sizeof(list) - k, "%s'%s'", j ? ", " : "", names[j]);
		if (o->metric)
			return kerr_field(err, KERR_INVALID, "metric", "metric='%s' is not a value of the file; it "
					  "has %s", o->metric, list);
		return kerr_field(err, KERR_INVALID, "metric", "the file has no time.duration value (give "
				  "metric=NAME); its values: %s", list);
	}
	snprintf(x->metric_from, sizeof(x->metric_from), "%s", names[at]);	/* metric=NAME names it too */
	*inclusive = strstr(names[at], "inclusive") != NULL;
	if (strstr(names[at], ".ns"))
		*scale = 1e-9;
	return at;
}

/* ---- .cali ------------------------------------------------------------------ */

struct cnode {
	int64_t attr;		/* -1: no such node */
	int64_t parent;		/* -1: none */
	char *data;
	uint32_t path;		/* x's path at this node (XP_NONE: no region) once resolved */
	bool resolved;
};

struct cali {
	struct xp *x;
	const struct import_opts *o;
	struct cnode *nodes;
	size_t nnodes;
	struct acc acc;
	struct globals g;
	int64_t rank_attr, time_attr;
	int64_t flat_attr;	/* with no nested attribute: the flat one that names regions, or -1 */
	int pass;		/* 0: attributes and time; 1: values */
	char **attr_names;	/* time candidates seen in ctx records */
	size_t nattr;
	long line;
};

/* A record's fields: key and its '='-separated values, '\' escaping. */
struct field {
	char *key;
	char *val[CALI_FIELDS_MAX];
	size_t nval;
};

#define REC_FIELDS 8

/* Split line into at most REC_FIELDS fields; the text is copied into buf
 * (unescaped). -1 when a record holds too much. */
static int split(const char *line, size_t n, char *buf, struct field *f, size_t *nf)
{
	size_t i, o = 0;
	struct field *cur;

	*nf = 0;
	cur = &f[0];
	cur->key = buf;
	cur->nval = 0;
	for (i = 0; i < n; i++) {
		char c = line[i];

		if (c == '\\' && i + 1 < n) {
			buf[o++] = line[++i];
		} else if (c == '=') {
			buf[o++] = '\0';
			if (cur->nval == CALI_FIELDS_MAX)
				return -1;
			cur->val[cur->nval++] = buf + o;
		} else if (c == ',') {
			buf[o++] = '\0';
			if (++*nf == REC_FIELDS)
				return -1;
			cur = &f[*nf];
			cur->key = buf + o;
			cur->nval = 0;
		} else {
			buf[o++] = c;
		}
	}
	buf[o] = '\0';
	(*nf)++;
	return 0;
}

static struct field *field_of(struct field *f, size_t nf, const char *key)
{
	size_t i;

	for (i = 0; i < nf; i++)
		if (!strcmp(f[i].key, key))
			return &f[i];
	return NULL;
}

static int64_t to_id(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	return *s && !*end && v >= 0 && v < CALI_NODES_MAX ? v : -2;
}

static struct cnode *cnode(struct cali *c, int64_t id)
{
	return id >= 0 && (size_t)id < c->nnodes && c->nodes[id].attr >= 0 ? &c->nodes[id] : NULL;
}

/* Caliper's built-in attributes */
enum { CALI_NAME = 8, CALI_TYPE = 9, CALI_PROP = 10, CALI_NESTED = 256 };

/* The name of attribute id (a node whose attr is cali.attribute.name), or NULL. */
static const char *attr_name(struct cali *c, int64_t id)
{
	struct cnode *nd = cnode(c, id);

	return nd && nd->attr == CALI_NAME ? nd->data : NULL;
}

static long attr_props(struct cali *c, int64_t id)
{
	struct cnode *nd = cnode(c, id);
	int guard = 0;

	while (nd && guard++ < 64) {
		if (nd->attr == CALI_PROP)
			return strtol(nd->data, NULL, 10);
		nd = cnode(c, nd->parent);
	}
	return 0;
}

#define CHAIN_MAX 4096	/* levels of a context tree */

/* The region path of node id (nested attributes only), XP_NONE for none.
 * Iterative: a hostile file's chain may be long or loop. */
static uint32_t node_path(struct cali *c, int64_t id, struct kerr *err)
{
	int64_t chain[CHAIN_MAX];
	struct cnode *nd;
	uint32_t up;
	size_t n = 0;

	for (nd = cnode(c, id); nd && !nd->resolved; nd = cnode(c, nd->parent)) {
		if (n == CHAIN_MAX) {
			kerr_field(err, KERR_INVALID, "body", "line %ld: a context node is more than %d levels "
				   "deep, or its parents loop", c->line, CHAIN_MAX);
			return XP_NONE;
		}
		chain[n++] = nd - c->nodes;
	}
	up = nd ? nd->path : XP_NONE;
	while (n--) {
		nd = &c->nodes[chain[n]];
		if ((attr_props(c, nd->attr) & CALI_NESTED) || (c->flat_attr >= 0 && nd->attr == c->flat_attr)) {
			uint32_t pa = xp_child(c->x, up, nd->data, strlen(nd->data), err);

			if (pa == XP_NONE)
				return XP_NONE;
			up = pa;
		}
		nd->path = up;
		nd->resolved = true;
	}
	return up;
}

static int cali_node(struct cali *c, struct field *f, size_t nf, struct kerr *err)
{
	struct field *id = field_of(f, nf, "id"), *attr = field_of(f, nf, "attr");
	struct field *data = field_of(f, nf, "data"), *parent = field_of(f, nf, "parent");
	int64_t i = id && id->nval == 1 ? to_id(id->val[0]) : -2;
	struct cnode *nd;

	if (i < 0 || !attr || attr->nval != 1 || !data || data->nval < 1)
		return kerr_field(err, KERR_INVALID, "body", "line %ld: a node record needs id, attr and data",
				  c->line);
	if ((size_t)i >= c->nnodes) {
		size_t old = c->nnodes, k;

		c->nnodes = (size_t)i + 1 > 2 * old ? (size_t)i + 1 : 2 * old;
		c->nodes = xrealloc(c->nodes, c->nnodes * sizeof(*c->nodes));
		for (k = old; k < c->nnodes; k++)
			c->nodes[k] = (struct cnode){-1, -1, NULL, XP_NONE, false};
	}
	nd = &c->nodes[i];
	free(nd->data);
	nd->attr = to_id(attr->val[0]);
	nd->parent = parent && parent->nval == 1 ? to_id(parent->val[0]) : -1;
	/* a '=' in the data was a separator for the splitter: it belongs to the value */
	nd->data = xstrdup(data->val[0]);
	if (data->nval > 1)
		return kerr_field(err, KERR_INVALID, "body", "line %ld: a node's data has an unescaped '='", c->line);
	nd->path = XP_NONE;
	nd->resolved = false;
	return 0;
}

/* Collect the attribute name -> value pairs of the nodes up from id. */
static void chain_values(struct cali *c, int64_t id, struct globals *into)
{
	struct cnode *nd = cnode(c, id);
	int guard = 0;

	while (nd && guard++ < 10000) {
		const char *name = attr_name(c, nd->attr);

		if (name && nd->attr != CALI_NAME)
			globals_add(into, name, nd->data);
		nd = cnode(c, nd->parent);
	}
}

/* The mpi.rank among the nodes up from id: true with *rank set. */
static bool chain_rank(struct cali *c, int64_t id, double *rank)
{
	struct cnode *nd = cnode(c, id);
	int guard = 0;

	for (; nd && guard++ < CHAIN_MAX; nd = cnode(c, nd->parent)) {
		const char *name = attr_name(c, nd->attr);

		if (name && !strcmp(name, "mpi.rank"))
			return xp_number(nd->data, strlen(nd->data), rank);
	}
	return false;
}

static int cali_ctx(struct cali *c, struct field *f, size_t nf, bool globals, struct kerr *err)
{
	struct field *ref = field_of(f, nf, "ref"), *attr = field_of(f, nf, "attr");
	struct field *data = field_of(f, nf, "data");
	uint32_t path = XP_NONE;
	double rank = 0, v = NAN;
	bool has_time = false, has_rank = false;
	size_t i;

	if ((attr ? attr->nval : 0) != (data ? data->nval : 0))
		return kerr_field(err, KERR_INVALID, "body", "line %ld: a record has %zu attributes and %zu values",
				  c->line, attr ? attr->nval : 0, data ? data->nval : 0);
	if (globals) {
		for (i = 0; ref && i < ref->nval; i++)
			chain_values(c, to_id(ref->val[i]), &c->g);
		for (i = 0; attr && i < attr->nval; i++) {
			const char *name = attr_name(c, to_id(attr->val[i]));

			if (name)
				globals_add(&c->g, name, data->val[i]);
		}
		return 0;
	}
	for (i = 0; ref && i < ref->nval && c->pass == 1; i++) {	/* regions: once the attributes are known */
		int64_t id = to_id(ref->val[i]);
		uint32_t pa = node_path(c, id, err);

		if (err->code)
			return -1;
		if (pa != XP_NONE)
			path = pa;
		has_rank |= chain_rank(c, id, &rank);	/* mpi.rank may be a node of the context */
	}
	for (i = 0; attr && i < attr->nval; i++) {
		int64_t a = to_id(attr->val[i]);
		const char *name = attr_name(c, a);
		size_t k;

		if (!name)
			continue;
		if (!strcmp(name, "mpi.rank"))
			has_rank |= xp_number(data->val[i], strlen(data->val[i]), &rank);
		for (k = 0; k < c->nattr && strcmp(c->attr_names[k], name); k++)
			;
		if (k == c->nattr && c->nattr < 1000) {
			c->attr_names = xrealloc(c->attr_names, (c->nattr + 1) * sizeof(char *));
			c->attr_names[c->nattr++] = xstrdup(name);
		}
		if (c->time_attr >= 0 && a == c->time_attr)
			has_time = xp_number(data->val[i], strlen(data->val[i]), &v);
	}
	if (c->time_attr < 0 || path == XP_NONE || !has_time)
		return 0;
	return acc_add(&c->acc, path, rank, has_rank, v, err);
}

/* A file whose attributes are none of them nested (Caliper's region
 * attributes are; a file of flat annotations is not): the first of the
 * usual region attributes it defines names its regions, each a root. */
static void flat_regions(struct cali *c)
{
	static const char *const names[] = {"region", "function", "annotation", "kernel", "loop",
					    "phase", "mpi.function"};
	size_t i, k;

	for (i = 0; i < c->nnodes; i++)
		if (c->nodes[i].attr == CALI_NAME && (attr_props(c, (int64_t)i) & CALI_NESTED))
			return;
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		for (i = 0; i < c->nnodes; i++)
			if (c->nodes[i].attr == CALI_NAME && c->nodes[i].data && !strcmp(c->nodes[i].data, names[k])) {
				c->flat_attr = (int64_t)i;
				xp_warn(c->x, "the file has no nested region attribute: its regions are the "
					"values of the flat attribute '%s', each a region of its own",
					names[k]);
				return;
			}
}

/* Two passes: the first finds the attributes and the time metric, the second the values. */
/* One record of a .cali file (pass 0: the nodes and contexts, pass 1:
 * the contexts and globals again, with the time attribute known); 0, or
 * -1 with err. */
static int cali_record(struct cali *c, struct field *f, size_t nf, struct kerr *err)
{
	struct field *rec = field_of(f, nf, "__rec");
	bool ctx, globals;

	if (!rec || rec->nval != 1)
		return kerr_field(err, KERR_INVALID, "body", "line %ld: not a Caliper record (no __rec=)", c->line);
	if (!strcmp(rec->val[0], "node"))
		return c->pass == 0 ? cali_node(c, f, nf, err) : 0;
	ctx = !strcmp(rec->val[0], "ctx");
	globals = !strcmp(rec->val[0], "globals");
	if ((ctx || globals) && (c->pass == 1 || ctx))
		return cali_ctx(c, f, nf, c->pass == 1 && globals, err);
	return 0;
}

/* After the first pass: the time attribute (metric= or Caliper's
 * inclusive duration), its unit when the file says, the flat regions. */
static int cali_time(struct cali *c, struct kerr *err)
{
	const struct import_opts *o = c->o;
	int at = pick_time(c->x, (const char *const *)c->attr_names, c->nattr, o, &c->acc.inclusive,
			   &c->acc.scale, err);
	size_t i;

	if (at < 0)
		return -1;
	for (i = 0; i < c->nnodes; i++)
		if (c->nodes[i].attr == CALI_NAME && !strcmp(c->nodes[i].data, c->attr_names[at]))
			c->time_attr = (int64_t)i;
	/* attribute.unit of the time, when the file says */
	for (i = 0; i < c->nnodes; i++) {
		const char *un = attr_name(c, c->nodes[i].attr);

		if (un && !strcmp(un, "attribute.unit") && (!strcmp(c->nodes[i].data, "usec") ||
							   !strcmp(c->nodes[i].data, "us")))
			c->acc.scale = 1e-6;
	}
	if (o->time_scale > 0)
		c->acc.scale = o->time_scale;
	flat_regions(c);
	return 0;
}

int xp_read_cali(struct xp *x, const char *body, size_t len, const struct import_opts *o,
		 struct kerr *err)
{
	struct cali c = {0};
	struct field *f = xcalloc(REC_FIELDS, sizeof(*f));
	char *buf = NULL;
	size_t cbuf = 0, pass, i, pos, n, nf;
	const char *line;
	int rc = -1;

	c.x = x;
	c.o = o;
	c.time_attr = -1;
	c.flat_attr = -1;
	acc_init(&c.acc);
	for (pass = 0; pass < 2; pass++) {
		c.line = 0;
		c.pass = (int)pass;
		for (pos = 0; xp_next_line(body, len, &pos, &line, &n);) {
			c.line++;
			if (!n)
				continue;
			if (n + 1 > cbuf) {
				cbuf = 2 * n + 1;
				buf = xrealloc(buf, cbuf);
			}
			if (split(line, n, buf, f, &nf)) {
				kerr_field(err, KERR_TOO_LARGE, "body", "line %ld: a record with more than %d fields or "
					   "values", c.line, CALI_FIELDS_MAX);
				goto out;
			}
			if (cali_record(&c, f, nf, err))
				goto out;
		}
		if (pass == 0 && cali_time(&c, err))
			goto out;
	}
	if (!x->npaths) {
		kerr_field(err, KERR_INVALID, "region", "the file has no region: no nested attribute, and no "
			   "flat one called region, function, annotation, kernel, loop or phase in its "
			   "records");
		goto out;
	}
	globals_labels(x, &c.g, o);
	rc = acc_finish(&c.acc, x, &c.g, o, "time", err);
out:
	for (i = 0; i < c.nnodes; i++)
		free(c.nodes[i].data);
	for (i = 0; i < c.nattr; i++)
		free(c.attr_names[i]);
	free(c.attr_names);
	free(c.nodes);
	free(buf);
	free(f);
	globals_free(&c.g);
	xp_free(&c.acc.per);
	return rc;
}

/* ---- cali-query / Thicket JSON -------------------------------------------------- */

/* json-split: {"columns", "column_metadata", "nodes", "data"} */
/* The region column of a split-format file: "path", else a column whose
 * nodes have parents (a function); SIZE_MAX when there is none. */
static size_t split_path_column(const char **names, size_t ncols, json_t *meta)
{
	size_t i;

	for (i = 0; i < ncols; i++)
		if (!strcmp(names[i], "path"))
			return i;
	for (i = 0; i < ncols; i++)
		if (!json_is_true(json_object_get(json_array_get(meta, i), "is_value")) &&
		    strstr(names[i], "function"))
			return i;
	return SIZE_MAX;
}

/* The time's column among the value columns (the rank's left out), as
 * pick_time chooses it; -1 with err. */
static int split_time_column(struct xp *x, const char **names, size_t ncols, json_t *meta, size_t rank_col,
			     const struct import_opts *o, struct acc *a, struct kerr *err)
{
	const char **vals = xcalloc(ncols + 1, sizeof(*vals));
	size_t *col = xcalloc(ncols + 1, sizeof(*col)), k = 0, i;
	int at;

	for (i = 0; i < ncols; i++)
		if (json_is_true(json_object_get(json_array_get(meta, i), "is_value")) && i != rank_col) {
			col[k] = i;
			vals[k++] = names[i];
		}
	at = pick_time(x, vals, k, o, &a->inclusive, &a->scale, err);
	if (at >= 0)
		at = (int)col[at];	/* the value's column */
	free(vals);
	free(col);
	return at;
}

/* The call path of each node of the region column into path_of (XP_NONE
 * for the nodes of other columns); 0, or -1 with err. */
static int split_paths(struct xp *x, json_t *nodes, const char *path_name, uint32_t *path_of, struct kerr *err)
{
	json_t *v;
	size_t i;

	json_array_foreach(nodes, i, v) {
		json_t *label = json_object_get(v, "label"), *parent = json_object_get(v, "parent");
		json_int_t up = json_is_integer(parent) ? json_integer_value(parent) : -1;
		const char *lab = json_is_string(label) ? json_string_value(label) : "";
		const char *column = json_string_value(json_object_get(v, "column"));

		path_of[i] = XP_NONE;
		if (strcmp(column ? column : "", path_name))
			continue;
		if (up >= (json_int_t)i)
			return kerr_field(err, KERR_INVALID, "body", "node %zu's parent comes after it", i);
		/* a node under its parent's path: nothing of the parent's name copied */
		path_of[i] = xp_child(x, up >= 0 ? path_of[up] : XP_NONE, lab, strlen(lab), err);
		if (path_of[i] == XP_NONE)
			return -1;
	}
	return 0;
}

static int json_split(struct xp *x, json_t *doc, const struct import_opts *o, struct acc *a,
		      struct kerr *err)
{
	json_t *cols = json_object_get(doc, "columns"), *meta = json_object_get(doc, "column_metadata");
	json_t *nodes = json_object_get(doc, "nodes"), *data = json_object_get(doc, "data"), *v, *row;
	const char **names = NULL;
	size_t i, ncols, nnodes, path_col, rank_col = SIZE_MAX;
	uint32_t *path_of = NULL;
	int at, rc = -1;

	if (!json_is_array(cols) || !json_is_array(nodes) || !json_is_array(data))
		return kerr_field(err, KERR_INVALID, "body", "not Caliper's JSON: it needs 'columns', 'nodes' "
				  "and 'data' arrays");
	ncols = json_array_size(cols);
	nnodes = json_array_size(nodes);
	names = xcalloc(ncols + 1, sizeof(*names));
	json_array_foreach(cols, i, v) {
		names[i] = json_is_string(v) ? json_string_value(v) : "";
		if (!strcmp(names[i], "mpi.rank"))
			rank_col = i;
	}
	if ((path_col = split_path_column(names, ncols, meta)) == SIZE_MAX) {
		rc = kerr_field(err, KERR_INVALID, "region", "the file has no region column ('path' or a "
				"function)");
		goto out;
	}
	if ((at = split_time_column(x, names, ncols, meta, rank_col, o, a, err)) < 0)
		goto out;
	path_of = xcalloc(nnodes + 1, sizeof(*path_of));
	if (split_paths(x, nodes, names[path_col], path_of, err))
		goto out;
	json_array_foreach(data, i, row) {
		json_t *p = json_array_get(row, path_col), *t = json_array_get(row, (size_t)at);
		json_t *r = rank_col != SIZE_MAX ? json_array_get(row, rank_col) : NULL;
		json_int_t ni = json_integer_value(p);

		if (!json_is_integer(p))
			continue;	/* rows of no region: process totals */
		if (ni < 0 || (size_t)ni >= nnodes || path_of[ni] == XP_NONE) {
			rc = kerr_field(err, KERR_INVALID, "body", "data row %zu refers to node %lld, which is not a "
					"region", i, (long long)ni);
			goto out;
		}
		if (json_is_number(t) &&
		    acc_add(a, path_of[ni], json_is_number(r) ? json_number_value(r) : 0, json_is_number(r),
			    json_number_value(t), err))
			goto out;
	}
	rc = 0;
out:
	free(names);
	free(path_of);
	return rc;
}

/* cali-query -j: an array of records; the region is "path" (or function,
 * region, annotation, loop), nested levels joined by '/'. */
static int json_records(struct xp *x, json_t *doc, const struct import_opts *o, struct acc *a,
			struct kerr *err)
{
	static const char *const region_keys[] = {"path", "region", "function", "annotation", "loop"};
	const char **vals = NULL;
	size_t i, k, nv = 0;
	json_t *rec, *v;
	const char *key;
	int at;

	json_array_foreach(doc, i, rec) {
		if (!json_is_object(rec)) {
			free(vals);
			return kerr_field(err, KERR_INVALID, "body", "record %zu is not an object", i);
		}
		json_object_foreach(rec, key, v) {
			if (!json_is_number(v) || !strcmp(key, "mpi.rank"))
				continue;
			for (k = 0; k < nv && strcmp(vals[k], key); k++)
				;
			if (k == nv && nv < 1000) {
				vals = xrealloc(vals, (nv + 1) * sizeof(*vals));
				vals[nv++] = key;
			}
		}
	}
	at = pick_time(x, vals, nv, o, &a->inclusive, &a->scale, err);
	key = at >= 0 ? vals[at] : NULL;
	free(vals);
	if (at < 0)
		return -1;
	json_array_foreach(doc, i, rec) {
		json_t *t = json_object_get(rec, key), *r = json_object_get(rec, "mpi.rank");
		const char *path = NULL, *s, *slash;
		uint32_t up = XP_NONE, pa = XP_NONE;

		for (k = 0; k < sizeof(region_keys) / sizeof(region_keys[0]) && !path; k++)
			if (json_is_string(json_object_get(rec, region_keys[k])))
				path = json_string_value(json_object_get(rec, region_keys[k]));
		if (!path || !json_is_number(t))
			continue;
		for (s = path; *s; s = slash + (*slash != '\0')) {
			slash = strchr(s, '/');
			if (!slash)
				slash = s + strlen(s);
			if ((pa = xp_child(x, up, s, (size_t)(slash - s), err)) == XP_NONE)
				return -1;
			up = pa;
			if (!*slash)
				break;
		}
		if (pa != XP_NONE && acc_add(a, pa, json_is_number(r) ? json_number_value(r) : 0,
					     json_is_number(r), json_number_value(t), err))
			return -1;
	}
	return 0;
}

int xp_read_caliper_json(struct xp *x, const char *body, size_t len,
			 const struct import_opts *o, struct kerr *err)
{
	json_error_t je;
	json_t *doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
	struct globals g = {0};
	struct acc a;
	int rc;

	if (!doc)
		return kerr_field(err, KERR_INVALID, "body", "not JSON: line %d: %s", je.line, je.text);
	acc_init(&a);
	if (json_is_array(doc))
		rc = json_records(x, doc, o, &a, err);
	else if (json_is_object(doc))
		rc = json_split(x, doc, o, &a, err);
	else
		rc = kerr_field(err, KERR_INVALID, "body", "not Caliper's JSON: neither records nor json-split");
	if (o->time_scale > 0)
		a.scale = o->time_scale;
	if (!rc && !x->npaths)
		rc = kerr_field(err, KERR_INVALID, "region", "the file has no region");
	if (!rc && !o->time_scale) {
		/* json-split carries no unit; old Caliper wrote microseconds */
		size_t i;
		double top = 0;

		for (i = 0; i < a.per.nvals; i++)
			if (a.per.vals[i] > top)
				top = a.per.vals[i];
		if (top * a.scale > 1e5)
			xp_warn(x, "the times are taken as seconds and reach %g s; if the file has "
				"microseconds (Caliper before 2.0), import with time_unit=us", top * a.scale);
	}
	if (!rc) {
		/* json-split keeps the globals in "globals", or (cali-query) at the
		 * top level beside data, columns and nodes */
		static const char *const split_keys[] = {"data", "columns", "column_metadata", "nodes"};
		json_t *gl = json_is_object(doc) ? json_object_get(doc, "globals") : NULL;
		const char *k;
		json_t *v;
		size_t i;

		if (!json_is_object(gl))
			gl = json_is_object(doc) ? doc : NULL;
		json_object_foreach(gl, k, v) {
			char num[40];

			for (i = 0; gl == doc && i < 4 && strcmp(k, split_keys[i]); i++)
				;
			if (gl == doc && i < 4)
				continue;
			if (json_is_string(v))
				globals_add(&g, k, json_string_value(v));
			else if (json_is_number(v) && snprintf(num, sizeof(num), "%.17g", json_number_value(v)))
				globals_add(&g, k, num);
		}
		globals_labels(x, &g, o);
		rc = acc_finish(&a, x, &g, o, "time", err);
	}
	globals_free(&g);
	xp_free(&a.per);
	json_decref(doc);
	return rc;
}
