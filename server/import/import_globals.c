/* A file's globals (import_globals.h). */
#include "import_globals.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/xalloc.h"

void globals_add(struct globals *g, const char *name, const char *value)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 32;
		g->names = xrealloc(g->names, g->cap * sizeof(char *));
		g->values = xrealloc(g->values, g->cap * sizeof(char *));
	}
	g->names[g->n] = xstrdup(name);
	g->values[g->n++] = xstrdup(value);
}

void globals_free(struct globals *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		free(g->names[i]);
		free(g->values[i]);
	}
	free(g->names);
	free(g->values);
}

const char *global(const struct globals *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (!strcasecmp(g->names[i], name))
			return g->values[i];
	return NULL;
}

/* Is a global's name a problem size ("problem_size", "ProblemSizeRunParam")? */
bool problem_size_name(const char *name)
{
	char norm[64];
	size_t k, j = 0;

	for (k = 0; name[k] && j + 1 < sizeof(norm); k++)
		if (isalnum((unsigned char)name[k]))
			norm[j++] = (char)tolower((unsigned char)name[k]);
	norm[j] = '\0';
	return !strncmp(norm, "problemsize", 11);
}

/* The file's globals (Adiak's metadata) that are neither p nor n, as the
 * labels of its runs: x->cur_set for the point acc_finish adds. */
void globals_labels(struct xp *x, const struct globals *g, const struct import_opts *o)
{
	json_t *obj = json_object();
	size_t i;

	for (i = 0; i < g->n; i++) {
		const char *k = g->names[i];

		if (!strcasecmp(k, "mpi.world.size") || !strcasecmp(k, "jobsize") || problem_size_name(k) ||
		    (o->p && !strcasecmp(k, o->p)) || (o->n && !strcasecmp(k, o->n)))
			continue;
		json_object_set_new(obj, k, json_string(g->values[i]));
	}
	xp_label_set(x, obj, NULL, 0);
	json_decref(obj);
}

/* The parameters of the one point: p from o->p's global, mpi.world.size
 * or jobsize, else the processes seen; n from o->n's global, n_value or a
 * problem size global. */
int globals_point(struct xp *x, const struct globals *g, size_t ranks,
		     const struct import_opts *o, double *pn, bool *has_n, struct kerr *err)
{
	const char *s = NULL, *which = NULL;
	size_t i;

	if (o->p && strcmp(o->p, "p") && !(s = global(g, o->p)))
		return kerr_field(err, KERR_INVALID, "p", "p='%s' is not a global of the file", o->p);
	if (s)
		which = o->p;
	else if ((s = global(g, "mpi.world.size")) != NULL)
		which = "mpi.world.size";
	else if ((s = global(g, "jobsize")) != NULL)
		which = "jobsize";
	if (which)	/* p=NAME names it too */
		snprintf(x->p_from, sizeof(x->p_from), "%s", which);
	which = NULL;
	if (s) {
		if (!xp_number(s, strlen(s), &pn[0]))
			return kerr_field(err, KERR_INVALID, "p", "the number of processes '%.40s' is not a number", s);
	} else {
		pn[0] = ranks ? (double)ranks : 1;
		if (!ranks)
			xp_warn(x, "the file has no mpi.world.size or jobsize global and no mpi.rank: "
				"p = 1 (name a global with p=NAME)");
	}
	*has_n = false;
	if (o->n && strcmp(o->n, "n")) {
		if (!(s = global(g, o->n)))
			return kerr_field(err, KERR_INVALID, "n", "n='%s' is not a global of the file", o->n);
		which = o->n;
	} else if (!o->has_n_value) {
		for (i = 0; i < g->n && !which; i++)
			if (problem_size_name(g->names[i])) {
				which = g->names[i];
				s = g->values[i];
			}
	}
	if (which) {
		snprintf(x->n_from, sizeof(x->n_from), "%s", which);
		if (!xp_number(s, strlen(s), &pn[1]))
			return kerr_field(err, KERR_INVALID, "n", "the problem size '%s' = '%.40s' is not a number",
					  which, s);
		*has_n = true;
	}
	if (xp_param(x, "p", 1, err) || (*has_n && xp_param(x, "n", 1, err)))
		return -1;
	return 0;
}
