/*
 * api_methods: the what-if methods' shared pieces: reading numbers from a
 * JSON body (over fields_read, so a bad one is a 400 naming the field and
 * item), the modules of a power-capped machine (given, or a stored power
 * variation table), a drawn report's size, and each method's handler.
 */
#ifndef KARTE_API_METHODS_H
#define KARTE_API_METHODS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "karted.h"
#include "query.h"
#include "analysis/powercap.h"
#include "render/report.h"

#define MODULES_MAX 100000	/* modules of a power-capped machine, or of a PVT */

/* A finite number (above 0 when positive) at key of o, into *out; else -1
 * with err naming field (key when NULL) and index (-1: none). */
int body_num(json_t *o, const char *key, bool positive, double *out, const char *field, long index,
	     struct kerr *err);

/* body_num, its error a 400 into rs. */
int method_num(json_t *o, const char *key, bool positive, double *out, struct resp *rs,
	       const char *field, long index);

/* An array of 1 to max finite numbers at key of o: into a new *out of *n;
 * else a 400 into rs naming key (and the item), and -1. */
int method_nums(json_t *o, const char *key, size_t max, double **out, size_t *n, struct resp *rs);

/* The modules of the body ("modules": [{p_max, p_min}]) or of a stored
 * table ("pvt": SYSTEM with mean_p_max and mean_p_min): *mod (malloc'd)
 * of *nm. -1 with err naming the field. */
int modules_read(struct karted *k, json_t *root, struct ka_module **mod, size_t *nm, struct kerr *err);

/* The methods, answered as JSON, or drawn in *chart. */
int powercap_answer(void *app, struct req *rq, struct resp *rs, const enum chart_format *chart);
int trace_answer(void *app, struct req *rq, struct resp *rs, const enum chart_format *chart);

int post_power_model(void *app, struct req *rq, struct resp *rs);
int post_power_predict(void *app, struct req *rq, struct resp *rs);
int post_configurations(void *app, struct req *rq, struct resp *rs);
int put_pvt(void *app, struct req *rq, struct resp *rs);
int get_pvt(void *app, struct req *rq, struct resp *rs);

#endif
