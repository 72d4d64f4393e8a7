/*
 * import_globals: a file's globals (Caliper's, Adiak's metadata, a GEOPM
 * report's header) as names and values, what p and n come from, and the
 * labels the others make.
 */
#ifndef KARTE_IMPORT_GLOBALS_H
#define KARTE_IMPORT_GLOBALS_H

#include <stdbool.h>
#include <stddef.h>

#include "import_xp.h"

struct globals {
	char **names, **values;
	size_t n, cap;
};

void globals_add(struct globals *g, const char *name, const char *value);
void globals_free(struct globals *g);

/* Global value by name (any case), or NULL. */
const char *global(const struct globals *g, const char *name);

/* Is a global's name a problem size ("problem_size", "ProblemSizeRunParam")? */
bool problem_size_name(const char *name);

/* The globals that are neither p nor n as the labels of the file's runs
 * (x->cur_set for the point added next). */
void globals_labels(struct xp *x, const struct globals *g, const struct import_opts *o);

/* The parameters of the file's one point into pn: p from o->p's global,
 * mpi.world.size or jobsize, else ranks (the processes seen); n from
 * o->n's global, n_value or a problem size global (*has_n). Declares the
 * parameters p (and n) in x. -1 with err naming p or n. */
int globals_point(struct xp *x, const struct globals *g, size_t ranks, const struct import_opts *o,
		  double *pn, bool *has_n, struct kerr *err);

#endif
