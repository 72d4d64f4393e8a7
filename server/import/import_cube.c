/*
 * Score-P's Cube 4 profiles (format=cube): an upload is a tar or zip (gzip
 * and the like undone) of experiment directories, each holding one or more
 * `.cubex`; Extra-P's reading of the directory names gives the parameters
 * (`mm.x10y1z1.r1`: x = 10, y = 1, z = 1). A `.cubex` is itself a tar:
 * anchor.xml (maybe gzip'd) holds the metrics, the call tree (cnodes) and
 * the system tree; `ID.index` lists the cnodes metric ID has values for
 * (positions in an enumeration of the tree: depth first for exclusive
 * metrics, children-together for inclusive ones), `ID.data` the values, a
 * row of one value per location for each listed cnode, raw or in zlib
 * segments (ZCUBEX.DATA). Read on libarchive, libxml2 and zlib; every
 * size is bounded before it is allocated.
 *
 * Readings (docs/api.md): a profile's value of a time metric (uom sec) at
 * a call path is the largest over its locations (processes and threads) of
 * the inclusive value: the slowest process, the parallel time, as the
 * Caliper importer reads it; of any other metric (energy, counters, visits)
 * the sum (the minimum or maximum for MINDOUBLE and MAXDOUBLE metrics); a
 * call path without a stored value is 0; every parameter of the directory
 * names is kept, constant ones too; without a parameter called p, p is the
 * number of processes of the profile's system tree.
 */
#include "import_xp.h"

#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zlib.h>

#include "core/xalloc.h"

#define CUBE_FILES_MAX 10000		/* profiles of one upload */
#define CUBE_ENTRY_MAX (64u << 20)	/* bytes of one .cubex, or of a file inside it */
#define CUBE_UNPACKED_MAX (1024u << 20)	/* bytes unpacked from one upload, in all */
#define CUBE_LOCATIONS_MAX 1000000	/* locations of a system tree */
#define CUBE_VALUES_MAX (32u << 20)	/* values of one metric (cnodes x locations) */
#define CUBE_WORK_MAX (256u << 20)	/* values, metrics, locations and nodes read from one upload */
#define CUBE_DEPTH_MAX XP_DEPTH_MAX	/* levels of a call tree */
#define CUBE_TEXT_MAX 4096		/* bytes of a name or text in anchor.xml */
#define DIR_NAME_MAX 512

/* ---- the upload: archives read from memory ---------------------------------------- */

struct unpack {
	size_t total;		/* bytes unpacked so far, all archives */
	struct kerr *err;
	size_t work;		/* Cube's parts read so far: values, metrics, locations, call-tree nodes */
	const struct import_opts *o;	/* its cancel flag, looked at every block unpacked */
};

/* Charge n more parts of the upload's Cube work (values read, metrics,
 * locations and call-tree nodes, each profile's): -1 with a 413 past
 * CUBE_WORK_MAX, whatever the bytes that hold them (20 KB of ZCUBEX can
 * declare 3.2 * 10^10 values). */
static int charge(struct unpack *u, size_t n, const char *what)
{
	if (n > CUBE_WORK_MAX - u->work)
		return kerr_field(u->err, KERR_TOO_LARGE, "body", "%s: the upload asks karte to read more than "
				  "%u values, metrics, locations and call-tree nodes in all; import it in parts",
				  what, CUBE_WORK_MAX);
	u->work += n;
	return 0;
}

/* n more bytes decompressed: -1 with a 413 past CUBE_UNPACKED_MAX, or
 * with a 503 when the import was stopped. */
static int unpacked(struct unpack *u, size_t n)
{
	if (u->o && import_stopped(u->o, u->err))
		return -1;
	if (n > CUBE_UNPACKED_MAX - u->total)
		return kerr_field(u->err, KERR_TOO_LARGE, "body", "the upload unpacks to more than %u bytes; import "
				  "it in parts", CUBE_UNPACKED_MAX);
	u->total += n;
	return 0;
}

static struct archive *open_archive(const char *body, size_t len, bool outer)
{
	struct archive *a = archive_read_new();

	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if (outer) {
		archive_read_support_format_zip(a);
		archive_read_support_format_cpio(a);
	}
	if (archive_read_open_memory(a, body, len) != ARCHIVE_OK) {
		archive_read_free(a);
		return NULL;
	}
	return a;
}

/* Read and count the data of an entry karte does not keep: skipping it
 * would unpack it just the same (a compressed stream has no shortcut), so
 * its bytes count against the upload's budget as they come; -1 said. */
static int drain(struct archive *a, struct unpack *u, const char *what)
{
	char buf[16384];
	la_ssize_t got;

	while ((got = archive_read_data(a, buf, sizeof(buf))) > 0)
		if (unpacked(u, (size_t)got))
			return -1;
	if (got < 0)
		return kerr_field(u->err, KERR_INVALID, "body", "%s cannot be unpacked: %s", what,
				  archive_error_string(a) ? archive_error_string(a) : "a broken archive");
	return 0;
}

/* An entry's declared size against what is left of the budget, before a
 * byte of it is unpacked: -1 said. */
static int declared(struct archive_entry *e, struct unpack *u, const char *what)
{
	if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0 &&
	    (uint64_t)archive_entry_size(e) > CUBE_UNPACKED_MAX - u->total)
		return kerr_field(u->err, KERR_TOO_LARGE, "body", "%.400s says it is %lld bytes: the upload would "
				  "unpack to more than %u bytes; import it in parts", what,
				  (long long)archive_entry_size(e), CUBE_UNPACKED_MAX);
	return 0;
}

/* The entry's data, whole, into a malloc'd buffer; NULL with err past the bounds. */
static char *entry_data(struct archive *a, struct archive_entry *e, struct unpack *u,
			const char *what, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;
	la_ssize_t got;

	if (archive_entry_size_is_set(e) && archive_entry_size(e) > (la_int64_t)CUBE_ENTRY_MAX) {
		kerr_field(u->err, KERR_TOO_LARGE, "body", "%s is %lld bytes; a file inside the upload may be at "
			   "most %u", what, (long long)archive_entry_size(e), CUBE_ENTRY_MAX);
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= CUBE_ENTRY_MAX) {
				kerr_field(u->err, KERR_TOO_LARGE, "body", "%s unpacks to more than %u bytes", what,
					   CUBE_ENTRY_MAX);
				free(buf);
				return NULL;
			}
			cap = cap ? 2 * cap : 65536;
			buf = xrealloc(buf, cap + 1);
		}
		got = archive_read_data(a, buf + n, cap - n);
		if (got < 0) {
			kerr_field(u->err, KERR_INVALID, "body", "%s cannot be unpacked: %s", what,
				   archive_error_string(a) ? archive_error_string(a) : "a broken archive");
			free(buf);
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (unpacked(u, (size_t)got)) {
			free(buf);
			return NULL;
		}
	}
	if (!buf)
		buf = xmalloc(1);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* ---- directory names, as Extra-P reads them ----------------------------------------- */

struct dir_params {
	char names[IMPORT_PARAMS_MAX][64];
	double values[IMPORT_PARAMS_MAX];
	size_t n;
};

/* The experiment directory of an archive path (the folder holding the
 * .cubex), into dir; "" for a .cubex at the top. */
static void experiment_dir(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/'), *start;
	size_t n;

	if (!slash) {
		dir[0] = '\0';
		return;
	}
	for (start = slash; start > path && start[-1] != '/'; start--)
		;
	n = (size_t)(slash - start);
	if (n >= size)
		n = size - 1;
	memcpy(dir, start, n);
	dir[n] = '\0';
}

static bool numeric_char(char c)
{
	return isdigit((unsigned char)c) || c == '.' || c == ',';
}

/* Parameters from a directory name: what lies between its first '.' and
 * ".r" (the repetition) splits into names and numbers, "x10y1z1" into x =
 * 10, y = 1, z = 1; a number may use a decimal comma and end in a
 * separator ("x20,5.y20,5" is 20.5 and 20.5). -1 with err when a part is
 * not a number or there are too many. */
static int parse_dir(const char *dir, struct dir_params *dp, struct kerr *err)
{
	const char *dot = strchr(dir, '.'), *start = dot ? dot + 1 : dir, *end = strstr(dir, ".r");
	const char *s = start, *stop = end && end >= start ? end : dir + strlen(dir);

	dp->n = 0;
	while (s < stop) {
		const char *name = s;
		char num[64];
		size_t k, nn;
		char *e;

		while (s < stop && !numeric_char(*s))
			s++;
		nn = (size_t)(s - name);
		if (s == stop) {
			if (nn)	/* a name without a value */
				return kerr_field(err, KERR_INVALID, "body", "the experiment directory '%.200s' names "
						  "'%.*s' without a value after it (Extra-P reads names like "
						  "mm.x10y1z1.r1)", dir, (int)(nn < 64 ? nn : 64), name);
			break;
		}
		if (dp->n == IMPORT_PARAMS_MAX)
			return kerr_field(err, KERR_TOO_LARGE, "body", "the experiment directory '%.200s' names more "
					  "than %d parameters", dir, IMPORT_PARAMS_MAX);
		for (k = 0; s < stop && numeric_char(*s) && k < sizeof(num) - 1; s++, k++)
			num[k] = *s == ',' ? '.' : *s;
		num[k] = '\0';
		while (k && num[k - 1] == '.')	/* a separator after the number */
			num[--k] = '\0';
		if (nn >= sizeof(dp->names[0]))
			nn = sizeof(dp->names[0]) - 1;
		memcpy(dp->names[dp->n], name, nn);
		dp->names[dp->n][nn] = '\0';
		dp->values[dp->n] = strtod(num, &e);
		if (!k || *e || !isfinite(dp->values[dp->n]))
			return kerr_field(err, KERR_INVALID, "body", "the experiment directory '%.200s': '%s' is not "
					  "a number (the value of '%s')", dir, num, dp->names[dp->n]);
		dp->n++;
	}
	return 0;
}

static bool same_names(const struct dir_params *a, const struct dir_params *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->names[i], b->names[i]))
			return false;
	return true;
}

static void names_text(const struct dir_params *dp, char *out, size_t size)
{
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; i < dp->n && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", i ? ", " : "", dp->names[i]);
	if (!dp->n)
		snprintf(out, size, "none");
}

/* ---- one profile ------------------------------------------------------------------- */

struct cnode {
	uint32_t region;	/* index into regions */
	uint32_t parent;	/* UINT32_MAX for a root */
	uint32_t first_child, next_sibling;	/* UINT32_MAX: none */
	uint32_t path;		/* the xp call path */
};

struct cmetric {
	char *name;
	int id;
	bool inclusive;		/* values stored inclusive (type INCLUSIVE) */
	bool time;		/* a time (uom sec): the largest over the locations */
	char dtype[32];
};

struct profile {
	struct cnode *cnodes;
	size_t ncnodes;
	uint32_t *cnode_by_id;	/* cnode id -> index, for ids below nids */
	size_t nids;
	char **regions;		/* region names by region index */
	uint32_t *region_by_id;	/* region id -> index, for ids below nregion_ids */
	size_t nregion_ids;
	size_t nregions;
	struct cmetric *metrics;
	size_t nmetrics;
	size_t locations, processes;
	uint32_t *deep, *wide;	/* tree positions -> cnode index */
};

static void profile_free(struct profile *pf)
{
	size_t i;

	for (i = 0; i < pf->nregions; i++)
		free(pf->regions[i]);
	for (i = 0; i < pf->nmetrics; i++)
		free(pf->metrics[i].name);
	free(pf->regions);
	free(pf->region_by_id);
	free(pf->metrics);
	free(pf->cnodes);
	free(pf->cnode_by_id);
	free(pf->deep);
	free(pf->wide);
	memset(pf, 0, sizeof(*pf));
}

static bool named(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

/* The text of n's child element called name, or "" (a static empty string). */
/* The text of n's child element name: its text and CDATA children only
 * (a document has no DTD, so no entity is there to expand), their length
 * bounded by CUBE_TEXT_MAX before a byte is copied; a longer one is "",
 * counted in cube_overlong for read_anchor to refuse. */
static _Thread_local size_t cube_overlong;

static const char *child_text(const xmlNode *n, const char *name, xmlChar **keep)
{
	const xmlNode *c, *t;
	size_t len = 0;

	*keep = NULL;
	for (c = n->children; c; c = c->next) {
		if (!named(c, name))
			continue;
		for (t = c->children; t; t = t->next)
			if ((t->type == XML_TEXT_NODE || t->type == XML_CDATA_SECTION_NODE) && t->content)
				len += strlen((const char *)t->content);
		if (len > CUBE_TEXT_MAX) {
			cube_overlong++;
			return "";
		}
		*keep = xmlMalloc(len + 1);
		len = 0;
		for (t = c->children; t; t = t->next)
			if ((t->type == XML_TEXT_NODE || t->type == XML_CDATA_SECTION_NODE) && t->content) {
				size_t k = strlen((const char *)t->content);

				memcpy(*keep + len, t->content, k);
				len += k;
			}
		(*keep)[len] = '\0';
		return (const char *)*keep;
	}
	return "";
}

static bool int_attr(const xmlNode *n, const char *name, long *out)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	char *e;
	bool ok;

	if (!v)
		return false;
	*out = strtol((const char *)v, &e, 10);
	ok = e != (char *)v && !*e && *out >= 0 && *out < INT32_MAX;
	xmlFree(v);
	return ok;
}

/* A metric's unit of measurement that is a time (Score-P writes "sec"). */
static bool is_time_unit(const char *uom)
{
	static const char *const units[] = {"sec", "s", "secs", "seconds", "msec", "ms", "usec", "us",
					    "nsec", "ns"};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(uom, units[i]))
			return true;
	return false;
}

static int add_metrics(struct profile *pf, const xmlNode *parent, struct kerr *err)
{
	const xmlNode *m;

	for (m = parent->children; m; m = m->next) {
		struct cmetric *cm;
		xmlChar *type, *uniq, *dtype, *uom;
		const char *u, *d;
		long id;

		if (!named(m, "metric"))
			continue;
		if (pf->nmetrics == IMPORT_METRICS_MAX)
			return kerr_field(err, KERR_TOO_LARGE, "body", "anchor.xml defines more than %d metrics",
					  IMPORT_METRICS_MAX);
		if (!int_attr(m, "id", &id))
			return kerr_field(err, KERR_INVALID, "body", "anchor.xml: a metric without a numeric id");
		pf->metrics = xrealloc(pf->metrics, (pf->nmetrics + 1) * sizeof(*pf->metrics));
		cm = &pf->metrics[pf->nmetrics++];
		memset(cm, 0, sizeof(*cm));
		cm->id = (int)id;
		type = xmlGetProp(m, (const xmlChar *)"type");
		cm->inclusive = type && !strcmp((const char *)type, "INCLUSIVE");
		xmlFree(type);
		u = child_text(m, "uniq_name", &uniq);
		cm->name = xstrdup(*u ? u : "metric");
		xmlFree(uniq);
		d = child_text(m, "dtype", &dtype);
		snprintf(cm->dtype, sizeof(cm->dtype), "%s", d);
		xmlFree(dtype);
		d = child_text(m, "uom", &uom);
		cm->time = is_time_unit(d);
		xmlFree(uom);
		if (add_metrics(pf, m, err))	/* derived metrics nest */
			return -1;
	}
	return 0;
}

static int add_cnodes(struct profile *pf, const xmlNode *parent, uint32_t up, int depth,
		      struct kerr *err)
{
	const xmlNode *c;
	uint32_t last = UINT32_MAX;

	if (depth > CUBE_DEPTH_MAX)
		return kerr_field(err, KERR_TOO_LARGE, "body", "anchor.xml: the call tree is deeper than %d levels",
				  CUBE_DEPTH_MAX);
	for (c = parent->children; c; c = c->next) {
		struct cnode *cn;
		long id, callee;
		size_t r, k;

		if (!named(c, "cnode"))
			continue;
		if (pf->ncnodes == IMPORT_PATHS_MAX)
			return kerr_field(err, KERR_TOO_LARGE, "body", "anchor.xml: more than %d call paths",
					  IMPORT_PATHS_MAX);
		if (!int_attr(c, "id", &id) || !int_attr(c, "calleeId", &callee))
			return kerr_field(err, KERR_INVALID, "body", "anchor.xml: a cnode without a numeric id "
					  "and calleeId");
		r = (size_t)callee < pf->nregion_ids ? pf->region_by_id[callee] : UINT32_MAX;
		if (r == UINT32_MAX)	/* by id: a lookup, not a scan of the regions per node */
			return kerr_field(err, KERR_INVALID, "body", "anchor.xml: cnode %ld calls region %ld, which "
					  "is not defined", id, callee);
		if ((size_t)id >= pf->nids) {
			size_t nids = (size_t)id + 1 > 2 * pf->nids ? (size_t)id + 1 : 2 * pf->nids;

			if (nids > 4 * (size_t)IMPORT_PATHS_MAX)
				return kerr_field(err, KERR_INVALID, "body", "anchor.xml: cnode id %ld is out of "
						  "range", id);
			pf->cnode_by_id = xrealloc(pf->cnode_by_id, nids * sizeof(uint32_t));
			for (k = pf->nids; k < nids; k++)
				pf->cnode_by_id[k] = UINT32_MAX;
			pf->nids = nids;
		}
		if (pf->cnode_by_id[id] != UINT32_MAX)
			return kerr_field(err, KERR_INVALID, "body", "anchor.xml: cnode id %ld twice", id);
		pf->cnodes = xrealloc(pf->cnodes, (pf->ncnodes + 1) * sizeof(*pf->cnodes));
		cn = &pf->cnodes[pf->ncnodes];
		*cn = (struct cnode){(uint32_t)r, up, UINT32_MAX, UINT32_MAX, XP_NONE};
		pf->cnode_by_id[id] = (uint32_t)pf->ncnodes;
		if (last != UINT32_MAX)
			pf->cnodes[last].next_sibling = (uint32_t)pf->ncnodes;
		else if (up != UINT32_MAX)
			pf->cnodes[up].first_child = (uint32_t)pf->ncnodes;
		last = (uint32_t)pf->ncnodes++;
		if (add_cnodes(pf, c, last, depth + 1, err))
			return -1;
	}
	return 0;
}

static void count_system(struct profile *pf, const xmlNode *n)
{
	const xmlNode *c;

	for (c = n->children; c; c = c->next) {
		if (named(c, "location")) {
			pf->locations++;
		} else if (named(c, "locationgroup")) {
			xmlChar *keep;
			const char *type = child_text(c, "type", &keep);

			if (!*type || !strcmp(type, "process"))
				pf->processes++;
			xmlFree(keep);
			count_system(pf, c);
		} else if (c->type == XML_ELEMENT_NODE) {
			count_system(pf, c);
		}
	}
}

/* The tree's two enumerations, as Cube writes index positions: deep (each
 * node, then its subtrees: exclusive metrics) and wide (each node's
 * children one after another when the node is reached: inclusive ones). */
static void enumerate(struct profile *pf)
{
	uint32_t *stack = xmalloc((pf->ncnodes + 1) * sizeof(uint32_t)), c;
	size_t top = 0, nd = 0, nw = 0, i, j;

	pf->deep = xmalloc((pf->ncnodes + 1) * sizeof(uint32_t));
	pf->wide = xmalloc((pf->ncnodes + 1) * sizeof(uint32_t));
	/* deep: preorder, roots in order */
	for (i = pf->ncnodes; i-- > 0;)
		if (pf->cnodes[i].parent == UINT32_MAX)
			stack[top++] = (uint32_t)i;
	while (top) {
		uint32_t v = stack[--top];
		size_t first = top;

		pf->deep[nd++] = v;
		for (c = pf->cnodes[v].first_child; c != UINT32_MAX; c = pf->cnodes[c].next_sibling)
			stack[top++] = c;
		/* children pushed in order: reverse them so the first is popped first */
		for (i = 0; i < (top - first) / 2; i++) {
			uint32_t t = stack[first + i];

			stack[first + i] = stack[top - 1 - i];
			stack[top - 1 - i] = t;
		}
	}
	/* wide: a root, then at each node popped its children listed together */
	for (i = 0; i < pf->ncnodes; i++) {
		uint32_t root = (uint32_t)i;

		if (pf->cnodes[i].parent != UINT32_MAX)
			continue;
		pf->wide[nw++] = root;
		top = 0;
		stack[top++] = root;
		while (top) {
			uint32_t v = stack[--top];
			size_t first = top;

			for (c = pf->cnodes[v].first_child; c != UINT32_MAX; c = pf->cnodes[c].next_sibling) {
				pf->wide[nw++] = c;
				stack[top++] = c;
			}
			for (j = 0; j < (top - first) / 2; j++) {
				uint32_t t = stack[first + j];

				stack[first + j] = stack[top - 1 - j];
				stack[top - 1 - j] = t;
			}
		}
	}
	free(stack);
}

/* gzip'd anchor.xml (Score-P writes it so) unpacked, bounded; NULL with err. */
static char *gunzip(const char *in, size_t len, size_t *out_len, struct unpack *u)
{
	z_stream z;
	size_t cap = len * 4 + 4096, n = 0;
	char *out;
	int rc;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		kerr_field(u->err, KERR_INVALID, "body", "anchor.xml: cannot unpack");
		return NULL;
	}
	if (cap > CUBE_ENTRY_MAX)
		cap = CUBE_ENTRY_MAX;
	out = xmalloc(cap + 1);
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	do {
		if (n == cap) {
			if (cap >= CUBE_ENTRY_MAX) {
				kerr_field(u->err, KERR_TOO_LARGE, "body", "anchor.xml unpacks to more than %u bytes",
					   CUBE_ENTRY_MAX);
				goto fail;
			}
			cap = 2 * cap > CUBE_ENTRY_MAX ? CUBE_ENTRY_MAX : 2 * cap;
			out = xrealloc(out, cap + 1);
		}
		z.next_out = (Bytef *)out + n;
		z.avail_out = (uInt)(cap - n);
		rc = inflate(&z, Z_NO_FLUSH);
		n = cap - z.avail_out;
		if (rc != Z_OK && rc != Z_STREAM_END) {
			kerr_field(u->err, KERR_INVALID, "body", "anchor.xml: a broken gzip stream");
			goto fail;
		}
	} while (rc != Z_STREAM_END);
	inflateEnd(&z);
	if (unpacked(u, n)) {
		free(out);
		return NULL;
	}
	out[n] = '\0';
	*out_len = n;
	return out;
fail:
	inflateEnd(&z);
	free(out);
	return NULL;
}

/* A <region> of <program>: its name by its id; 0, or -1 with err. */
static int add_region(struct profile *pf, const xmlNode *c, struct kerr *err)
{
	xmlChar *keep;
	const char *name;
	long id;

	if (pf->nregions == IMPORT_PATHS_MAX)
		return kerr_field(err, KERR_TOO_LARGE, "body", "anchor.xml: more than %d regions", IMPORT_PATHS_MAX);
	if (!int_attr(c, "id", &id))
		return kerr_field(err, KERR_INVALID, "body", "anchor.xml: a region without a numeric id");
	if ((size_t)id >= pf->nregion_ids) {
		size_t k, nids = (size_t)id + 1 > 2 * pf->nregion_ids ? (size_t)id + 1 : 2 * pf->nregion_ids;

		if (nids > 4 * (size_t)IMPORT_PATHS_MAX)
			return kerr_field(err, KERR_INVALID, "body", "anchor.xml: region id %ld is out of range", id);
		pf->region_by_id = xrealloc(pf->region_by_id, nids * sizeof(uint32_t));
		for (k = pf->nregion_ids; k < nids; k++)
			pf->region_by_id[k] = UINT32_MAX;
		pf->nregion_ids = nids;
	}
	if (pf->region_by_id[id] != UINT32_MAX)
		return kerr_field(err, KERR_INVALID, "body", "anchor.xml: region id %ld twice", id);
	name = child_text(c, "name", &keep);
	pf->regions = xrealloc(pf->regions, (pf->nregions + 1) * sizeof(char *));
	pf->regions[pf->nregions] = xstrdup(*name ? name : "region");
	pf->region_by_id[id] = (uint32_t)pf->nregions++;
	xmlFree(keep);
	return 0;
}

/* The sections of <cube>: metrics, the program's regions and call tree,
 * the system's locations; then what a profile needs checked. */
static int read_sections(struct profile *pf, const xmlNode *root, struct kerr *err)
{
	const xmlNode *sec, *c;

	for (sec = root->children; sec; sec = sec->next) {
		if (named(sec, "metrics") && add_metrics(pf, sec, err))
			return -1;
		if (named(sec, "program")) {
			for (c = sec->children; c; c = c->next)
				if (named(c, "region") && add_region(pf, c, err))
					return -1;
			if (add_cnodes(pf, sec, UINT32_MAX, 0, err))
				return -1;
		}
		if (named(sec, "system"))
			count_system(pf, sec);
	}
	if (!pf->ncnodes)
		return kerr_field(err, KERR_INVALID, "body", "anchor.xml has no call tree (no <cnode>)");
	if (!pf->locations || pf->locations > CUBE_LOCATIONS_MAX)
		return kerr_field(err, KERR_INVALID, "body", "anchor.xml has %zu locations in its system tree (1 to "
				  "%d are read)", pf->locations, CUBE_LOCATIONS_MAX);
	if (cube_overlong)
		return kerr_field(err, KERR_TOO_LARGE, "body", "anchor.xml: %zu names or texts are longer than %d "
				  "bytes", cube_overlong, CUBE_TEXT_MAX);
	return 0;
}

static int read_anchor(struct profile *pf, const char *xml, size_t len, struct unpack *u)
{
	xmlDoc *doc;
	const xmlNode *root;
	int rc = -1;

	if (len > INT32_MAX)
		return kerr_field(u->err, KERR_TOO_LARGE, "body", "anchor.xml is too large");
	/* no network, no external entities, no DTD: a file is only its text */
	doc = xmlReadMemory(xml, (int)len, "anchor.xml", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
			    XML_PARSE_NOWARNING);
	if (!doc)
		return kerr_field(u->err, KERR_INVALID, "body", "anchor.xml is not well-formed XML");
	/* a DTD is where entities are declared: one of 50 KB referenced 50,000
	 * times in a name is 2.5 GB when expanded; Cube writes none */
	if (doc->intSubset || doc->extSubset) {
		xmlFreeDoc(doc);
		return kerr_field(u->err, KERR_INVALID, "body", "anchor.xml declares a DTD (<!DOCTYPE ...>): "
				  "karte reads Cube's anchor.xml without one (no entities, no DTD)");
	}
	cube_overlong = 0;
	root = xmlDocGetRootElement(doc);
	if (!root || !named(root, "cube"))
		kerr_field(u->err, KERR_INVALID, "body", "anchor.xml has no <cube> element: not a Cube 4 profile");
	else if (read_sections(pf, root, u->err) == 0) {
		enumerate(pf);
		rc = 0;
	}
	xmlFreeDoc(doc);
	return rc;
}

/* ---- index and data ---------------------------------------------------------------- */

static uint32_t get32(const unsigned char *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const unsigned char *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

/* Bytes of one value of a Cube data type, and how it reads; 0: not read. */
enum vkind { V_F64, V_I64, V_U64, V_I32, V_U32, V_I16, V_U16, V_I8, V_U8 };

static size_t dtype_size(const char *t, enum vkind *k)
{
	static const struct {
		const char *name;
		enum vkind k;
		size_t size;
	} types[] = {
		{"DOUBLE", V_F64, 8}, {"MINDOUBLE", V_F64, 8}, {"MAXDOUBLE", V_F64, 8},
		{"FLOAT", V_F64, 8}, {"INT64", V_I64, 8}, {"INTEGER", V_I64, 8},
		{"SIGNED INTEGER", V_I64, 8}, {"UINT64", V_U64, 8}, {"UNSIGNED INTEGER", V_U64, 8},
		{"INT32", V_I32, 4}, {"INT", V_I32, 4}, {"SIGNED INT", V_I32, 4},
		{"UINT32", V_U32, 4}, {"UNSIGNED INT", V_U32, 4}, {"INT16", V_I16, 2},
		{"SHORT INT", V_I16, 2}, {"SIGNED SHORT INT", V_I16, 2}, {"UINT16", V_U16, 2},
		{"UNSIGNED SHORT INT", V_U16, 2}, {"INT8", V_I8, 1}, {"UINT8", V_U8, 1},
		{"CHAR", V_U8, 1},
	};
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(t, types[i].name)) {
			*k = types[i].k;
			return types[i].size;
		}
	return 0;
}

static double value_at(const unsigned char *p, enum vkind k, bool swap)
{
	double d;
	uint64_t u;

	switch (k) {
	case V_F64:
		u = get64(p, swap);
		memcpy(&d, &u, 8);
		return d;
	case V_I64:
		return (double)(int64_t)get64(p, swap);
	case V_U64:
		return (double)get64(p, swap);
	case V_I32:
		return (double)(int32_t)get32(p, swap);
	case V_U32:
		return (double)get32(p, swap);
	case V_I16:
		return (double)(int16_t)(swap ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]));
	case V_U16:
		return (double)(swap ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]));
	case V_I8:
		return (double)(int8_t)p[0];
	default:
		return (double)p[0];
	}
}

/* ZCUBEX.DATA: a count, then (uncompressed position, compressed position,
 * compressed size) per segment, then the zlib segments; unpacked into
 * out[0, want). -1 with err. */
static int unzip_data(const unsigned char *d, size_t len, bool swap, unsigned char *out, size_t want,
		      const char *what, struct unpack *u)
{
	size_t pos = 11, k, seg_at;
	uint64_t count;

	if (len < pos + 8)
		return kerr_field(u->err, KERR_INVALID, "body", "%s: cut short", what);
	count = get64(d + pos, swap);
	pos += 8;
	if (count > (len - pos) / 24)
		return kerr_field(u->err, KERR_INVALID, "body", "%s: %llu segments do not fit the file", what,
				  (unsigned long long)count);
	seg_at = pos + (size_t)count * 24;
	for (k = 0; k < count; k++) {
		uint64_t at = get64(d + pos + 24 * k, swap), csize = get64(d + pos + 24 * k + 16, swap);
		uLongf got;

		if (!csize)
			continue;
		if (csize > len - seg_at || at >= want)
			return kerr_field(u->err, KERR_INVALID, "body", "%s: a segment lies outside the file", what);
		got = (uLongf)(want - at);
		if (uncompress(out + at, &got, d + seg_at, (uLong)csize) != Z_OK)
			return kerr_field(u->err, KERR_INVALID, "body", "%s: a segment does not unpack", what);
		seg_at += (size_t)csize;
	}
	return 0;
}

/* An exclusive time made inclusive location by location, then the largest
 * over the locations at each cnode into v: rows[n][L] the stored rows of
 * the cnodes pos[] lists (in the deep order). */
static int slowest_inclusive(const struct profile *pf, const uint32_t *pos, uint32_t n,
			     const unsigned char *rows, size_t size, enum vkind kind, bool swap, double *v,
			     const char *what, struct unpack *u)
{
	size_t L = pf->locations, k, l;
	double *all;
	uint32_t i;

	if (pf->ncnodes * L > CUBE_VALUES_MAX)
		return kerr_field(u->err, KERR_TOO_LARGE, "body", "%s: %zu call paths x %zu locations is more "
				  "than %u values", what, pf->ncnodes, L, CUBE_VALUES_MAX);
	all = xcalloc(pf->ncnodes * L + 1, sizeof(double));
	for (i = 0; i < n; i++)
		for (l = 0; l < L; l++)
			all[(size_t)pf->deep[pos[i]] * L + l] = value_at(rows + ((size_t)i * L + l) * size, kind, swap);
	for (k = pf->ncnodes; k-- > 0;) {	/* children before parents */
		uint32_t c = pf->deep[k], up = pf->cnodes[c].parent;

		if (up != UINT32_MAX)
			for (l = 0; l < L; l++)
				all[(size_t)up * L + l] += all[(size_t)c * L + l];
	}
	for (k = 0; k < pf->ncnodes; k++) {
		double most = L ? -INFINITY : 0;

		for (l = 0; l < L; l++)
			most = fmax(most, all[k * L + l]);
		v[k] = most;
	}
	free(all);
	return 0;
}

/* Metric m's value at every cnode, inclusive, into v[ncnodes]: a time's
 * the largest over the locations (the slowest process or thread: the
 * parallel time), any other metric's the sum (min or max for MINDOUBLE and
 * MAXDOUBLE). 1 when the metric's type is not one karte reads (left out),
 * -1 with err. */
/* A metric's sparse index (what: its name for messages): the tree
 * position of each of its *n call paths, the byte order in *swap; NULL
 * with err. */
static uint32_t *read_index(const struct profile *pf, const char *index, size_t ilen, const char *what,
			    struct unpack *u, bool *swap, uint32_t *n)
{
	const unsigned char *ix = (const unsigned char *)index;
	uint32_t one, type, i, *pos;

	if (ilen < 22 || memcmp(ix, "CUBEX.INDEX", 11)) {
		kerr_field(u->err, KERR_INVALID, "body", "%s is not a Cube index (no CUBEX.INDEX)", what);
		return NULL;
	}
	one = get32(ix + 11, false);
	*swap = one != 1;
	if (*swap && __builtin_bswap32(one) != 1) {
		kerr_field(u->err, KERR_INVALID, "body", "%s: its byte order mark is not 1", what);
		return NULL;
	}
	type = ix[17];
	*n = get32(ix + 18, *swap);
	if (type != 1) {
		kerr_field(u->err, KERR_INVALID, "body", "%s: index format %u is not read (karte reads "
			   "Cube's sparse index, format 1)", what, type);
		return NULL;
	}
	if (*n > pf->ncnodes || ilen != 22 + (size_t)*n * 4) {
		kerr_field(u->err, KERR_INVALID, "body", "%s: %u call paths do not fit the file or the "
			   "call tree", what, *n);
		return NULL;
	}
	if ((size_t)*n * pf->locations > CUBE_VALUES_MAX) {
		kerr_field(u->err, KERR_TOO_LARGE, "body", "%s: %u call paths x %zu locations is more than "
			   "%u values", what, *n, pf->locations, CUBE_VALUES_MAX);
		return NULL;
	}
	pos = xmalloc(((size_t)*n + 1) * sizeof(uint32_t));
	for (i = 0; i < *n; i++) {
		pos[i] = get32(ix + 22 + 4 * (size_t)i, *swap);
		if (pos[i] >= pf->ncnodes) {
			kerr_field(u->err, KERR_INVALID, "body", "%s: tree position %u is past the call "
				   "tree's %zu nodes", what, pos[i], pf->ncnodes);
			free(pos);
			return NULL;
		}
	}
	return pos;
}

/* The rows of a metric's .data, n call paths x L locations of size bytes: raw
 * (CUBEX.DATA) in place, or zlib segments (ZCUBEX.DATA) unpacked into
 * *vals for the caller to free; every value charged first. NULL with err. */
static const unsigned char *data_rows(const char *data, size_t dlen, bool swap, uint32_t n, size_t L,
				      size_t size, const char *what, struct unpack *u, unsigned char **vals)
{
	const unsigned char *dd = (const unsigned char *)data;
	size_t count = (size_t)n * L;
	bool zipped = dlen >= 11 && !memcmp(dd, "ZCUBEX.DATA", 11);

	*vals = NULL;
	if (charge(u, count, what) || (zipped && unpacked(u, count * size)))
		return NULL;
	if (zipped) {
		*vals = xcalloc(count * size + 1, 1);
		return unzip_data(dd, dlen, swap, *vals, count * size, what, u) ? NULL : *vals;
	}
	if (dlen < 10 || memcmp(dd, "CUBEX.DATA", 10)) {
		kerr_field(u->err, KERR_INVALID, "body", "%s is not Cube data (no CUBEX.DATA)", what);
		return NULL;
	}
	if (dlen - 10 < count * size) {
		kerr_field(u->err, KERR_INVALID, "body", "%s: cut short (%zu bytes for %u call paths "
			   "x %zu locations)", what, dlen, n, L);
		return NULL;
	}
	return dd + 10;
}

static int metric_values(const struct profile *pf, const struct cmetric *m, const char *index,
			 size_t ilen, const char *data, size_t dlen, double *v, const char *where,
			 struct unpack *u)
{
	bool swap, is_min = !strcmp(m->dtype, "MINDOUBLE"), is_max = !strcmp(m->dtype, "MAXDOUBLE");
	bool max_type = is_max;
	uint32_t n, i;
	enum vkind kind;
	size_t size = dtype_size(m->dtype, &kind), L = pf->locations, k;
	unsigned char *vals = NULL;
	const unsigned char *rows;
	uint32_t *pos;
	char what[160];
	int rc = 0;

	snprintf(what, sizeof(what), "%s: %d.index", where, m->id);
	if (!size)
		return 1;
	if (!(pos = read_index(pf, index, ilen, what, u, &swap, &n)))
		return -1;
	snprintf(what, sizeof(what), "%s: %d.data", where, m->id);
	if (!(rows = data_rows(data, dlen, swap, n, L, size, what, u, &vals))) {
		rc = -1;
		goto out;
	}
	for (k = 0; k < pf->ncnodes; k++)
		v[k] = 0;
	if (m->time && !m->inclusive && !is_min && !is_max) {
		rc = slowest_inclusive(pf, pos, n, rows, size, kind, swap, v, what, u);
		goto out;
	}
	is_max = is_max || m->time;	/* an inclusive time: the slowest location */
	for (i = 0; i < n; i++) {
		const uint32_t *order = m->inclusive ? pf->wide : pf->deep;
		double acc = is_min ? INFINITY : is_max ? -INFINITY : 0;

		for (k = 0; k < L; k++) {
			double x = value_at(rows + ((size_t)i * L + k) * size, kind, swap);

			acc = is_min ? fmin(acc, x) : is_max ? fmax(acc, x) : acc + x;
		}
		v[order[pos[i]]] = acc;
	}
	/* exclusive values (summed) made inclusive: each node plus its subtree,
	 * children before parents (the deep order backwards) */
	if (!m->inclusive && !is_min && !max_type)
		for (k = pf->ncnodes; k-- > 0;) {
			uint32_t c = pf->deep[k];

			if (pf->cnodes[c].parent != UINT32_MAX)
				v[pf->cnodes[c].parent] += v[c];
		}
out:
	free(vals);
	free(pos);
	return rc;
}

/* ---- the upload --------------------------------------------------------------------- */

struct cube_file {
	long id;		/* the metric's */
	char *index, *data;
	size_t ilen, dlen;
};

/* One .cubex (a tar in memory) into x at point pt. */
/* What a .cubex holds that karte reads: anchor.xml and the metrics'
 * .index and .data files. */
struct members {
	char *anchor;
	size_t alen, nfiles;
	struct cube_file *files;
};

/* The files of metric id, added when new; NULL with err past the limit. */
static struct cube_file *member_file(struct members *m, long id, const char *where, struct unpack *u)
{
	size_t i;

	for (i = 0; i < m->nfiles && m->files[i].id != id; i++)
		;
	if (i == m->nfiles) {
		if (m->nfiles == IMPORT_METRICS_MAX) {
			kerr_field(u->err, KERR_TOO_LARGE, "body", "%s: more than %d metrics' files", where,
				   IMPORT_METRICS_MAX);
			return NULL;
		}
		m->files = xrealloc(m->files, (m->nfiles + 1) * sizeof(*m->files));
		memset(&m->files[m->nfiles], 0, sizeof(*m->files));
		m->files[m->nfiles++].id = id;
	}
	return &m->files[i];
}

/* The tar's members into m (every other member drained and counted), the
 * anchor unzipped where it is gzip; 0, or -1 with err. */
static int read_members(struct archive *a, const char *where, struct unpack *u, struct members *m)
{
	struct archive_entry *e;
	struct cube_file *f;
	int r;

	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e), *base = strrchr(name, '/');
		char what[600], *end;
		bool is_index;
		long id;

		base = base ? base + 1 : name;
		snprintf(what, sizeof(what), "%s: %s", where, base);
		if (!strcmp(base, "anchor.xml")) {
			free(m->anchor);
			if (!(m->anchor = entry_data(a, e, u, what, &m->alen)))
				return -1;
			continue;
		}
		id = strtol(base, &end, 10);
		is_index = !strcmp(end, ".index");
		if (end == base || id < 0 || id > INT32_MAX || (!is_index && strcmp(end, ".data"))) {
			if (drain(a, u, what))	/* not a metric's file: counted all the same */
				return -1;
			continue;
		}
		if (!(f = member_file(m, id, where, u)))
			return -1;
		free(is_index ? f->index : f->data);
		if (is_index ? !(f->index = entry_data(a, e, u, what, &f->ilen)) :
			       !(f->data = entry_data(a, e, u, what, &f->dlen)))
			return -1;
	}
	if (r != ARCHIVE_EOF)
		return kerr_field(u->err, KERR_INVALID, "body", "%s cannot be unpacked: %s", where,
				  archive_error_string(a) ? archive_error_string(a) : "a broken tar");
	if (!m->anchor)
		return kerr_field(u->err, KERR_INVALID, "body", "%s has no anchor.xml: not a Cube 4 profile", where);
	if (m->alen >= 2 && (unsigned char)m->anchor[0] == 0x1f && (unsigned char)m->anchor[1] == 0x8b) {
		char *plain = gunzip(m->anchor, m->alen, &m->alen, u);

		free(m->anchor);
		if (!(m->anchor = plain))
			return -1;
	}
	return 0;
}

/* Every measured metric's values of the profile at point pt into x. */
static int store_profile(struct xp *x, struct profile *pf, const struct members *mb, uint32_t pt,
			 const char *where, struct unpack *u)
{
	double *v = xmalloc((pf->ncnodes + 1) * sizeof(double));
	uint32_t metric;
	size_t i, k;
	int r, rc = -1;

	for (i = 0; i < pf->nmetrics; i++) {
		const struct cmetric *m = &pf->metrics[i];
		const struct cube_file *f = NULL;

		for (k = 0; k < mb->nfiles; k++)
			if (mb->files[k].id == m->id)
				f = &mb->files[k];
		if (!f || !f->index || !f->data)
			continue;	/* defined, not measured */
		r = metric_values(pf, m, f->index, f->ilen, f->data, f->dlen, v, where, u);
		if (r < 0)
			goto out;
		if (r > 0) {
			xp_warn(x, "%s: the metric '%s' is of type %s, which karte does not read: left out",
				where, m->name, m->dtype);
			continue;
		}
		if ((metric = xp_metric(x, m->name, strlen(m->name), u->err)) == XP_NONE)
			goto out;
		for (k = 0; k < pf->ncnodes; k++)
			if (xp_value(x, pf->cnodes[k].path, metric, pt, v[k], u->err))
				goto out;
	}
	rc = 0;
out:
	free(v);
	return rc;
}

static int read_profile(struct xp *x, const char *cubex, size_t len, const char *where, double *coords,
			size_t nparams, bool add_p, struct unpack *u)
{
	struct archive *a = open_archive(cubex, len, false);
	struct members mb = {0};
	struct profile pf = {0};
	uint32_t pt;
	size_t i, k;
	int rc = -1;

	if (!a)
		return kerr_field(u->err, KERR_INVALID, "body", "%s is not a tar (a .cubex holds anchor.xml and "
				  "the metrics' .index and .data)", where);
	if (read_members(a, where, u, &mb) || read_anchor(&pf, mb.anchor, mb.alen, u) ||
	    charge(u, pf.ncnodes + pf.nregions + pf.nmetrics + pf.locations, where))
		goto out;
	/* the call paths, each its region's name under its parent's path (the
	 * deep order visits a parent before its children) */
	for (k = 0; k < pf.ncnodes; k++) {
		uint32_t c = pf.deep[k], up = pf.cnodes[c].parent;
		const char *leaf = pf.regions[pf.cnodes[c].region];

		if ((pf.cnodes[c].path = xp_child(x, up == UINT32_MAX ? XP_NONE : pf.cnodes[up].path, leaf,
						  strlen(leaf), u->err)) == XP_NONE)
			goto out;
	}
	if (add_p)
		coords[nparams - 1] = (double)(pf.processes ? pf.processes : 1);
	if ((pt = xp_point(x, coords, u->err)) == XP_NONE || store_profile(x, &pf, &mb, pt, where, u))
		goto out;
	rc = 0;
out:
	for (i = 0; i < mb.nfiles; i++) {
		free(mb.files[i].index);
		free(mb.files[i].data);
	}
	free(mb.files);
	free(mb.anchor);
	profile_free(&pf);
	archive_read_free(a);
	return rc;
}

/* A .cubex's archive path: a file whose name ends in .cubex and does not
 * start with a dot (as Extra-P globs them). */
static bool is_cubex(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	return base[0] != '.' && n > 6 && !strcmp(base + n - 6, ".cubex");
}

/* The parameters the first experiment directory names: every point has them. */
static int cube_params(struct xp *x, const struct dir_params *first, bool *add_p, size_t *nparams,
		       struct kerr *err)
{
	size_t i;

	x->params_as_labels = true;	/* the names' parameters that are neither p nor n */
	*add_p = true;
	for (i = 0; i < first->n; i++) {
		if (!strcmp(first->names[i], "p"))
			*add_p = false;
		if (xp_param(x, first->names[i], strlen(first->names[i]), err))
			return -1;
	}
	*nparams = first->n + *add_p;
	return *add_p ? xp_param(x, "p", 1, err) : 0;
}

int xp_read_cube(struct xp *x, const char *body, size_t len, const struct import_opts *o,
		 struct kerr *err)
{
	struct unpack u = {0, err, 0, o};
	struct archive *a;
	struct archive_entry *e;
	struct dir_params first = {0}, dp;
	char dir[DIR_NAME_MAX], first_dir[DIR_NAME_MAX] = "", have[256], want[256];
	char where[DIR_NAME_MAX + 64];
	double coords[IMPORT_PARAMS_MAX];
	size_t nfiles = 0, i, nparams = 0, dlen;
	bool add_p = true;
	char *data;
	int r;

	/* one pass: each member read once, its bytes counted whether kept or not */
	if (!(a = open_archive(body, len, true)))
		return kerr_field(err, KERR_INVALID, "body", "the upload is not a tar or zip of experiment "
				  "directories (tar -czf set.tgz mm.x*; or karte-collect import DIR)");
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *path = archive_entry_pathname(e);

		snprintf(where, sizeof(where), "%.400s", path ? path : "a member");
		if (declared(e, &u, where))
			goto fail;
		if (path && !strcmp(path, "anchor.xml") && !nfiles) {
			archive_read_free(a);	/* a .cubex itself, uploaded without directories */
			return xp_read_cube_profile(x, body, len, o, err);
		}
		if (!path || archive_entry_filetype(e) != AE_IFREG || !is_cubex(path)) {
			if (drain(a, &u, where))
				goto fail;
			continue;
		}
		if (++nfiles > CUBE_FILES_MAX) {
			kerr_field(err, KERR_TOO_LARGE, "body", "the upload holds more than %d .cubex files; import "
				   "it in parts", CUBE_FILES_MAX);
			goto fail;
		}
		experiment_dir(path, dir, sizeof(dir));
		if (parse_dir(dir, &dp, err))
			goto fail;
		if (nfiles == 1) {
			first = dp;
			snprintf(first_dir, sizeof(first_dir), "%s", dir);
			if (cube_params(x, &first, &add_p, &nparams, err))
				goto fail;
		} else if (!same_names(&first, &dp)) {
			names_text(&dp, have, sizeof(have));
			names_text(&first, want, sizeof(want));
			kerr_field(err, KERR_INVALID, "body", "the experiment directory '%.200s' names the "
				   "parameters %s, and '%.200s' names %s: every directory must name the same "
				   "parameters in the same order (as Extra-P reads them, mm.x10y1z1.r1)", dir,
				   have, first_dir, want);
			goto fail;
		}
		for (i = 0; i < dp.n; i++)
			coords[i] = dp.values[i];
		if (!(data = entry_data(a, e, &u, where, &dlen)))
			goto fail;
		r = read_profile(x, data, dlen, where, coords, nparams, add_p, &u);
		free(data);
		if (r)
			goto fail;
	}
	if (r != ARCHIVE_EOF) {
		kerr_field(err, KERR_INVALID, "body", "the upload cannot be unpacked: %s",
			   archive_error_string(a) ? archive_error_string(a) : "a broken archive");
		goto fail;
	}
	archive_read_free(a);
	if (!nfiles)
		return kerr_field(err, KERR_INVALID, "body", "the upload holds no .cubex file (Score-P writes "
				  "profile.cubex in each experiment directory)");
	return xp_tree(x, err);
fail:
	archive_read_free(a);
	return -1;
}

int xp_read_cube_profile(struct xp *x, const char *body, size_t len, const struct import_opts *o,
			 struct kerr *err)
{
	struct unpack u = {0, err, 0, o};
	double coords[1];

	(void)o;
	if (xp_param(x, "p", 1, err))
		return -1;
	xp_warn(x, "one profile without an experiment directory: its parameters are not known (send "
		"a tar of directories named like mm.x10y1z1.r1), p is its number of processes");
	if (read_profile(x, body, len, "the profile", coords, 1, true, &u))
		return -1;
	return xp_tree(x, err);
}
