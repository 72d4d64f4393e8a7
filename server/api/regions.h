/*
 * regions: which part of the code does not scale. Every call path the runs
 * of a stored series carry (a region's path, or its name for a child of
 * the root) modelled as GET /api/v1/analysis/model models a metric (the
 * same selection, resource=auto, quality and reasons), with its growth
 * class, its share of tau (or of the energy) measured at the largest p and
 * predicted at at_p, and whether that share grows: ranked by the predicted
 * share, unusable models last. The models are independent, so worker
 * threads take them in turn. GET /api/v1/analysis/regions answers it; the
 * regions report draws the top paths.
 */
#ifndef KARTE_REGIONS_H
#define KARTE_REGIONS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "models.h"

/* Limits (documented in docs/api.md). */
#define REGIONS_PATHS_MAX 100000	/* distinct call paths one analysis models */
#define REGIONS_CELLS_MAX 20000000	/* run regions one analysis reads */
#define REGIONS_THREADS_MAX 8		/* worker threads, at most the machine's cores */

/* One call path and what came of its model. */
struct rpath {
	char *key;		/* run_region_key's form */
	size_t depth;
	struct obsv *o;		/* its values, coordinates as the root's */
	size_t nv, cap;
	struct fitted f;
	bool fitted;		/* f holds a model (else too few values or a refusal) */
	json_t *model;		/* model_answer_json, or NULL */
	int qrank;		/* 0 good, 1 poor, 2 unusable, 3 not modelled */
	double lo_share;	/* measured share at the smallest x; NAN: not measured there */
	double m_value, m_share;	/* measured at the largest x */
	double p_value, p_share;	/* predicted at at; NAN: withheld */
	char growth[96];
	bool share_grows;
};

struct regions {
	struct model_sel sel;
	bool energy;		/* metric=energy: shares of the energy, values in J */
	const char *xname;	/* the modelled parameter ranked along: "p" or "n" */
	int xk;			/* its index in the model's coordinates */
	double at;		/* at_p (or at_n): where shares are predicted */
	double fix;		/* two parameters: the other one's value held (its largest) */
	double xlo, xhi;	/* the measured range of x (at fix) */
	struct fitted root;	/* the model of tau (or energy_j) */
	json_t *root_model;
	struct rpath *paths;
	size_t npaths, cpaths;
	size_t *order;		/* ranked */
	size_t candidates;	/* paths whose share grows */
	size_t threads;		/* worker threads used */
	json_t *index;		/* key -> path index while loading */
};

/* The call tree of the series sys:app:var the query names (metric=time|
 * energy, parameters, n, p, resource, frequency_mhz, at_p, at_n, label
 * filters ls or the query's): 0, or -1 with err (400 naming the field, 404
 * for a series without call paths, 413 past the limits). regions_free
 * after, also after a failure. */
int regions_load(struct karted *k, struct req *rq, const char *sys, const char *app, const char *var,
		 const struct label_set *ls, struct regions *rg, struct kerr *err);
void regions_free(struct regions *rg);

/* GET /api/v1/reports/regions.{svg,png,pdf}: the top= (1 to
 * REGIONS_TOP_MAX, default 5) paths of the ranking drawn. */
#define REGIONS_TOP_MAX 10
void regions_report(struct karted *k, struct req *rq, struct resp *rs, const struct report_opts *o,
		    enum chart_format fmt);

/* The lane of the analysis and its report: the slow one from the start.
 * A call tree is heavy whatever the number of runs (a run holds up to
 * 4096 paths, each a model), and a read moved from the quick lane past
 * its budget would start again there. */
enum http_lane regions_lane(void *app, struct req *rq);

/* A path's names from its key into names (at most RUN_PATH_MAX), each a
 * pointer into buf (a copy of the key, RUN_KEY_SIZE bytes); how many. */
size_t regions_names(const char *key, char *buf, const char **names);

/* The coordinates of x (and the value held) as the models take them. */
void regions_coords(const struct regions *rg, double x, double *c);

#endif
