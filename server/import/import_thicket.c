/*
 * Thicket's serialized ensemble (format=thicket-json, what Thicket.to_json()
 * writes): "graph" (the call tree: node id -> {"data": {"name"},
 * "children", "parents"}), "dataframe" (one row per node and profile, the
 * performance metrics as columns), "metadata" (one row per profile: the
 * run's settings, such as mpi.world.size and problem_size).
 *
 * Each profile is one repetition at its point (p, n): p from the metadata
 * column p= names, else mpi.world.size, else jobsize; n from the column n=
 * names, else problem_size, else n_value. Every numeric column of the
 * data frame is a metric; the default time is the first of Caliper's
 * inclusive durations present (max#inclusive#sum#time.duration, ...),
 * as for Caliper's own files, named "time". The profile's other metadata
 * (compiler, MPI, build: scalar values up to 128 bytes) become its runs'
 * labels, so the profiles of an ensemble at one (p, n) stay apart.
 */
#include "import_xp.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

#define THICKET_DEPTH_MAX XP_DEPTH_MAX

static int fail(struct kerr *err, const char *what)
{
	return kerr_field(err, KERR_INVALID, "body", "not a Thicket ensemble (Thicket.to_json()): %s", what);
}

/* A metadata value as a number (Thicket writes them as strings too). */
static bool number(json_t *v, double *out)
{
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return isfinite(*out);
	}
	return json_is_string(v) && xp_number(json_string_value(v), json_string_length(v), out) &&
	       isfinite(*out);
}

/* The profile key of a row as text (Thicket's keys are 64-bit integers or strings). */
static void profile_key(json_t *v, char *out, size_t size)
{
	if (json_is_integer(v))
		snprintf(out, size, "%lld", (long long)json_integer_value(v));
	else if (json_is_string(v))
		snprintf(out, size, "%s", json_string_value(v));
	else if (json_is_number(v))
		snprintf(out, size, "%.17g", json_number_value(v));
	else
		out[0] = '\0';
}

/* The call path of graph node key ("main->lulesh.cycle"), into x; XP_NONE
 * with err. Iterative: up the first parents to a root or a node known, then
 * down again naming each, so a deep or looping graph costs no stack. */
static uint32_t node_path(struct xp *x, json_t *graph, const char *key, json_t *paths, struct kerr *err)
{
	char (*chain)[32] = xmalloc(sizeof(*chain) * (THICKET_DEPTH_MAX + 1));
	json_t *node, *parents, *name, *known = NULL;
	uint32_t up = XP_NONE, pa = XP_NONE;
	size_t n = 0;

	snprintf(chain[n++], sizeof(chain[0]), "%s", key);
	while (!(known = json_object_get(paths, chain[n - 1]))) {
		node = json_object_get(graph, chain[n - 1]);
		parents = json_is_object(node) ? json_object_get(node, "parents") : NULL;
		if (!json_is_array(parents) || !json_array_size(parents))
			break;	/* a root */
		if (n == THICKET_DEPTH_MAX) {
			kerr_field(err, KERR_TOO_LARGE, "body", "the graph is deeper than %d levels (or its parents "
				   "loop)", THICKET_DEPTH_MAX);
			goto out;
		}
		profile_key(json_array_get(parents, 0), chain[n], sizeof(chain[0]));
		n++;
	}
	if (known) {
		up = (uint32_t)json_integer_value(known);
		n--;	/* the last one is named already */
	}
	while (n-- > 0) {
		node = json_object_get(graph, chain[n]);
		name = json_is_object(node) ? json_object_get(json_object_get(node, "data"), "name") : NULL;
		if (!json_is_string(name)) {
			kerr_field(err, KERR_INVALID, "body", "not a Thicket ensemble: graph node '%.31s' has no "
				   "data.name", chain[n]);
			goto out;
		}
		/* under its parent's path: nothing of the parent's name copied */
		if ((up = xp_child(x, up, json_string_value(name), json_string_length(name), err)) == XP_NONE)
			goto out;
		json_object_set_new(paths, chain[n], json_integer(up));
	}
	pa = up;
out:
	free(chain);
	return pa;
}

static bool is_meta_column(const char *k)
{
	return !strcmp(k, "node") || !strcmp(k, "profile") || !strcmp(k, "name") || !strcmp(k, "nid") ||
	       !strcmp(k, "spot.channel");
}

/* The time column: the first of Caliper's inclusive durations the frame has. */
static const char *time_column(json_t *columns)
{
	static const char *const prefer[] = {
		"max#inclusive#sum#time.duration", "inclusive#sum#time.duration",
		"sum#inclusive#sum#time.duration", "avg#inclusive#sum#time.duration",
		"inclusive#time.duration", "time (inc)", "time.duration",
	};
	size_t i;

	for (i = 0; i < sizeof(prefer) / sizeof(prefer[0]); i++)
		if (json_object_get(columns, prefer[i]))
			return prefer[i];
	return NULL;
}

/* The keys of object o as "'a', 'b'" into list (as many as fit). */
static void key_list(json_t *o, char *list, size_t size)
{
	const char *k;
	json_t *v;
	size_t n = 0;

	list[0] = '\0';
	json_object_foreach(o, k, v)
		if (n + 80 < size)
			n += (size_t)snprintf(list + n, size - n, "%s'%s'", n ? ", " : "", k);
}

/* The metadata columns of p and n: p= and n= where given, else
 * mpi.world.size or jobsize, and problem_size; 0, or -1 with err. */
static int pn_columns(json_t *meta, const struct import_opts *o, const char **pcol, const char **ncol,
		      struct kerr *err)
{
	bool p_named = o->p && strcmp(o->p, "p"), n_named = o->n && strcmp(o->n, "n");
	char list[1024];
	json_t *row;
	size_t i;

	*pcol = *ncol = NULL;
	json_array_foreach(meta, i, row) {
		if (!json_is_object(row))
			continue;
		if (!*pcol) {
			if (p_named)
				*pcol = json_object_get(row, o->p) ? o->p : NULL;
			else
				*pcol = json_object_get(row, "mpi.world.size") ? "mpi.world.size" :
					json_object_get(row, "jobsize") ? "jobsize" : NULL;
		}
		if (!*ncol) {
			if (n_named)
				*ncol = json_object_get(row, o->n) ? o->n : NULL;
			else if (!o->has_n_value && json_object_get(row, "problem_size"))
				*ncol = "problem_size";
		}
	}
	if (!*pcol) {
		key_list(json_array_get(meta, 0), list, sizeof(list));
		return kerr_field(err, KERR_INVALID, "p", p_named ?
				  "p='%s' is not a metadata column of the ensemble; it has %s" :
				  "%sthe ensemble's metadata has no mpi.world.size or jobsize: say which column "
				  "is p (p=COLUMN); it has %s", p_named ? o->p : "", list);
	}
	if (n_named && !*ncol)
		return kerr_field(err, KERR_INVALID, "n", "n='%s' is not a metadata column of the ensemble", o->n);
	return 0;
}

/* Each profile's point (p, n) into points (profile key -> point), its other
 * metadata its runs' labels: how many profiles, or -1 with err. */
static long profile_points(struct xp *x, json_t *meta, const struct import_opts *o, const char *pcol,
			   const char *ncol, json_t *points, struct kerr *err)
{
	bool p_named = o->p && strcmp(o->p, "p");
	const char *skip[] = {"profile", pcol, ncol ? ncol : "profile", "mpi.world.size", "jobsize"};
	size_t i, no_p = 0;
	long nprofiles = 0;
	char key[32];
	json_t *row;

	json_array_foreach(meta, i, row) {
		double pn[2];
		uint32_t pt;

		profile_key(json_object_get(row, "profile"), key, sizeof(key));
		if (!*key)
			continue;
		/* by default p is each profile's mpi.world.size, else its jobsize */
		if (!(number(json_object_get(row, pcol), &pn[0]) ||
		      (!p_named && (number(json_object_get(row, "mpi.world.size"), &pn[0]) ||
				    number(json_object_get(row, "jobsize"), &pn[0])))) ||
		    (ncol && !number(json_object_get(row, ncol), &pn[1]))) {
			no_p++;
			continue;
		}
		xp_label_set(x, row, skip, 5);
		if ((pt = xp_point(x, pn, err)) == XP_NONE)
			return -1;
		json_object_set_new(points, key, json_integer(pt));
		nprofiles++;
	}
	if (no_p)
		xp_warn(x, "%zu profiles have no number in %s%s%s: left out", no_p, pcol,
			ncol ? " or " : "", ncol ? ncol : "");
	return nprofiles;
}

/* The metrics, the numeric columns of the frame, into columns, and the
 * time column among them (metric= or Caliper's inclusive duration): NULL
 * with err when there is none. */
static const char *metric_columns(json_t *frame, const struct import_opts *o, json_t *columns,
				  struct kerr *err)
{
	bool named = o->metric && strcmp(o->metric, "time");
	size_t i, nmetric_cols = 0;
	const char *k, *tcol;
	char list[1500];
	json_t *row, *v;

	json_array_foreach(frame, i, row) {
		json_object_foreach(row, k, v)
			if (!is_meta_column(k) && json_is_number(v) && !json_object_get(columns, k)) {
				if (++nmetric_cols > IMPORT_METRICS_MAX) {
					kerr_field(err, KERR_TOO_LARGE, "body", "the data frame has more than %d metric "
						   "columns", IMPORT_METRICS_MAX);
					return NULL;
				}
				json_object_set_new(columns, k, json_true());
			}
		if (i >= 1000)
			break;	/* the columns are the same in every row */
	}
	tcol = named ? o->metric : time_column(columns);
	if (tcol && json_object_get(columns, tcol))
		return tcol;
	key_list(columns, list, sizeof(list));
	kerr_field(err, KERR_INVALID, "metric", named ?
		   "metric='%s' is not a column of the data frame; it has %s" :
		   "%sthe data frame has no inclusive time.duration column (give metric=NAME); "
		   "its columns: %s", named ? o->metric : "", list);
	return NULL;
}

/* The values: each row one repetition of its node's path at its
 * profile's point; 0, or -1 with err. */
static int frame_values(struct xp *x, json_t *graph, json_t *frame, json_t *points, const char *tcol,
			struct kerr *err)
{
	json_t *paths = json_object(), *row, *pt, *v;
	char key[32], node[32];
	const char *k;
	uint32_t path, m;
	size_t i;
	int rc = -1;

	json_array_foreach(frame, i, row) {
		profile_key(json_object_get(row, "profile"), key, sizeof(key));
		pt = json_object_get(points, key);
		profile_key(json_object_get(row, "node"), node, sizeof(node));
		if (!pt || !*node)
			continue;
		if ((path = node_path(x, graph, node, paths, err)) == XP_NONE)
			goto out;
		json_object_foreach(row, k, v) {
			const char *mname = !strcmp(k, tcol) ? "time" : k;

			if (is_meta_column(k) || !json_is_number(v))
				continue;
			if ((m = xp_metric(x, mname, strlen(mname), err)) == XP_NONE ||
			    xp_value(x, path, m, (uint32_t)json_integer_value(pt), json_number_value(v), err))
				goto out;
		}
	}
	rc = 0;
out:
	json_decref(paths);
	return rc;
}

int xp_read_thicket(struct xp *x, const char *body, size_t len, const struct import_opts *o,
		    struct kerr *err)
{
	json_error_t je;
	/* a key given twice is refused, as the runs API refuses it */
	json_t *doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je), *graph, *frame, *meta;
	json_t *points = json_object(), *columns = json_object();
	const char *pcol, *ncol, *tcol;
	long nprofiles;
	int rc = -1;

	if (!doc) {
		rc = kerr_field(err, KERR_INVALID, "body", "not JSON: line %d: %s", je.line, je.text);
		goto out;
	}
	graph = json_object_get(doc, "graph");
	frame = json_object_get(doc, "dataframe");
	meta = json_object_get(doc, "metadata");
	if (json_is_array(graph) && json_array_size(graph) == 1)
		graph = json_array_get(graph, 0);
	if (!json_is_object(graph) || !json_is_array(frame) || !json_is_array(meta)) {
		fail(err, "it needs 'graph', 'dataframe' and 'metadata'");
		goto out;
	}
	if (pn_columns(meta, o, &pcol, &ncol, err) || xp_param(x, "p", 1, err) ||
	    (ncol && xp_param(x, "n", 1, err)))
		goto out;
	snprintf(x->p_from, sizeof(x->p_from), "%s", pcol);
	if (ncol)
		snprintf(x->n_from, sizeof(x->n_from), "%s", ncol);
	if ((nprofiles = profile_points(x, meta, o, pcol, ncol, points, err)) < 0 ||
	    !(tcol = metric_columns(frame, o, columns, err)))
		goto out;
	snprintf(x->metric_from, sizeof(x->metric_from), "%s", tcol);
	if (frame_values(x, graph, frame, points, tcol, err))
		goto out;
	if (!nprofiles) {
		kerr_field(err, KERR_INVALID, "p", "no profile has a number of processes in '%s'", pcol);
		goto out;
	}
	rc = xp_tree(x, err);
out:
	json_decref(points);
	json_decref(columns);
	json_decref(doc);
	return rc;
}
