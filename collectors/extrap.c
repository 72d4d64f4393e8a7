#include "extrap.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARAMS 8
#define MAX_DEPTH 32

struct reg {			/* one region of the chosen metric */
	char path[512];
	json_t *data;		/* array per point of arrays of repetitions */
};

struct ex {
	char params[MAX_PARAMS][64];
	size_t nparams;
	json_t *points;		/* array of arrays of numbers */
	struct reg *regs;
	size_t nregs;
	/* parsing state */
	char region[512];
	char metric[64];
	struct reg *cur;	/* NULL when the current metric is not the chosen one */
	int indent[MAX_DEPTH];
	char names[MAX_DEPTH][256];
	size_t depth;
};

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static struct reg *region_of(struct ex *x, const char *path)
{
	size_t i;

	for (i = 0; i < x->nregs; i++)
		if (!strcmp(x->regs[i].path, path))
			return &x->regs[i];
	x->regs = realloc(x->regs, (x->nregs + 1) * sizeof(*x->regs));
	snprintf(x->regs[x->nregs].path, sizeof(x->regs[0].path), "%s", path);
	x->regs[x->nregs].data = json_array();
	return &x->regs[x->nregs++];
}

/* The region's call path from its indentation below REGION. */
static void enter_region(struct ex *x, const char *rest)
{
	int ind = 0;
	char path[512] = "";
	size_t i;

	while (rest[ind] == ' ' || rest[ind] == '\t')
		ind++;
	while (x->depth && x->indent[x->depth - 1] >= ind)
		x->depth--;
	if (x->depth < MAX_DEPTH) {
		x->indent[x->depth] = ind;
		snprintf(x->names[x->depth], sizeof(x->names[0]), "%s", trim((char *)rest + ind));
		x->depth++;
	}
	for (i = 0; i < x->depth; i++)
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "%s%s", i ? "->" : "",
			 x->names[i]);
	snprintf(x->region, sizeof(x->region), "%s", path);
}

static void fail(char *err, size_t size, const char *file, long line, const char *msg)
{
	snprintf(err, size, "%s:%ld: %s", file, line, msg);
}

static int parse(FILE *f, const char *file, struct ex *x, const struct extrap_opts *o, char *err,
		 size_t errsize)
{
	char line[65536];
	long ln = 0;

	while (fgets(line, sizeof(line), f)) {
		char *s = line;

		ln++;
		s[strcspn(s, "\r\n")] = '\0';
		if (!*trim(s) || *trim(s) == '#')
			continue;
		if (!strncmp(s, "PARAMETER", 9)) {
			if (x->nparams == MAX_PARAMS)
				return fail(err, errsize, file, ln, "too many parameters"), -1;
			snprintf(x->params[x->nparams++], 64, "%s", trim(s + 9));
		} else if (!strncmp(s, "POINTS", 6)) {
			char *open = strchr(s, '('), *close = strrchr(s, ')'), *tok, *save;
			json_t *pt;

			if (!open || !close || close < open)
				return fail(err, errsize, file, ln, "POINTS needs ( values )"), -1;
			pt = json_array();
			*close = '\0';
			for (tok = strtok_r(open + 1, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
				json_array_append_new(pt, json_real(atof(tok)));
			if (json_array_size(pt) != x->nparams) {
				json_decref(pt);
				return fail(err, errsize, file, ln,
					    "a point needs one value per PARAMETER"), -1;
			}
			json_array_append_new(x->points, pt);
		} else if (!strncmp(s, "REGION", 6)) {
			enter_region(x, s + 6);
			x->cur = strcmp(x->metric, o->metric) ? NULL : region_of(x, x->region);
		} else if (!strncmp(s, "METRIC", 6)) {
			snprintf(x->metric, sizeof(x->metric), "%s", trim(s + 6));
			x->cur = strcmp(x->metric, o->metric) ? NULL : region_of(x, x->region);
		} else if (!strncmp(s, "DATA", 4)) {
			json_t *reps = json_array();
			char *tok, *save, *end;

			for (tok = strtok_r(s + 4, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
				double v = strtod(tok, &end);

				if (*end || !isfinite(v)) {
					json_decref(reps);
					return fail(err, errsize, file, ln, "DATA values must be numbers"), -1;
				}
				json_array_append_new(reps, json_real(v));
			}
			if (!x->cur) {
				json_decref(reps);
				continue;	/* another metric */
			}
			if (json_array_size(x->cur->data) >= json_array_size(x->points)) {
				json_decref(reps);
				return fail(err, errsize, file, ln, "more DATA lines than POINTS"), -1;
			}
			json_array_append_new(x->cur->data, reps);
		} else {
			return fail(err, errsize, file, ln,
				    "expected PARAMETER, POINTS, REGION, METRIC or DATA"), -1;
		}
	}
	return 0;
}

static int param_index(const struct ex *x, const char *name)
{
	size_t i;

	for (i = 0; i < x->nparams; i++)
		if (!strcmp(x->params[i], name))
			return (int)i;
	return -1;
}

/* Does region r match one of the comma-separated names (full path or leaf)? */
static bool listed(const struct reg *r, const char *list)
{
	const char *leaf = strrchr(r->path, '>');
	char buf[1024], *tok, *save;

	leaf = leaf ? leaf + 1 : r->path;
	snprintf(buf, sizeof(buf), "%s", list ? list : "");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok = trim(tok);
		if (!strcmp(tok, r->path) || !strcmp(tok, leaf))
			return true;
	}
	return false;
}

static int check_list(const struct ex *x, const char *list, const char *file, char *err,
		      size_t errsize)
{
	char buf[1024], *tok, *save;
	size_t i;

	snprintf(buf, sizeof(buf), "%s", list ? list : "");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok = trim(tok);
		for (i = 0; i < x->nregs; i++)
			if (listed(&x->regs[i], tok))
				break;
		if (i == x->nregs) {
			snprintf(err, errsize, "%s: no region '%s' in the metric", file, tok);
			return -1;
		}
	}
	return 0;
}

static json_t *build(const struct ex *x, const char *file, const struct extrap_opts *o, char *err,
		     size_t errsize)
{
	int ip = param_index(x, o->p_param), in = param_index(x, o->n_param);
	const struct reg *tau = NULL;
	json_t *runs = json_array();
	size_t i, j, k;

	if (ip < 0 || in < 0) {
		snprintf(err, errsize, "%s: no PARAMETER %s (choose with --%s-param)", file,
			 ip < 0 ? o->p_param : o->n_param, ip < 0 ? "p" : "n");
		goto bad;
	}
	for (i = 0; i < x->nregs; i++)
		if (!o->tau_region ? !tau : listed(&x->regs[i], o->tau_region))
			tau = &x->regs[i];
	if (!tau) {
		snprintf(err, errsize, "%s: no region %s%s for tau in metric %s", file,
			 o->tau_region ? o->tau_region : "", o->tau_region ? "" : "at all", o->metric);
		goto bad;
	}
	if (check_list(x, o->chi_regions, file, err, errsize) ||
	    check_list(x, o->gamma_regions, file, err, errsize))
		goto bad;
	for (i = 0; i < json_array_size(x->points); i++) {
		json_t *pt = json_array_get(x->points, i), *treps = json_array_get(tau->data, i);
		double p = json_real_value(json_array_get(pt, (size_t)ip));
		double n = json_real_value(json_array_get(pt, (size_t)in));

		if (p < 1 || p != floor(p) || !(n > 0)) {
			snprintf(err, errsize, "%s: point %zu: p must be a whole number >= 1 and n > 0 "
				 "(got p=%g, n=%g)", file, i + 1, p, n);
			goto bad;
		}
		for (j = 0; j < json_array_size(treps); j++) {
			double t = json_real_value(json_array_get(treps, j)), part = 0;
			json_t *run = json_pack("{s:I,s:f,s:f}", "p", (json_int_t)p, "n", n, "tau", t);
			json_t *regs = json_array();

			for (k = 0; k < x->nregs; k++) {
				const struct reg *r = &x->regs[k];
				json_t *v = json_array_get(json_array_get(r->data, i), j);

				if (r == tau || !v)
					continue;
				json_array_append_new(regs, json_pack("{s:s,s:f}", "name", r->path,
								      "time_s", json_real_value(v)));
				if (listed(r, o->chi_regions ? o->chi_regions : o->gamma_regions))
					part += json_real_value(v);
			}
			if (part > t)
				part = t;	/* nested regions counted twice */
			if (o->chi_regions || o->gamma_regions)
				json_object_set_new(run, o->chi_regions ? "chi" : "gamma",
						    json_real(part));
			json_object_set_new(run, "regions", regs);
			{
				char rep[24];

				snprintf(rep, sizeof(rep), "%zu", j + 1);
				json_object_set_new(run, "labels", json_pack("{s:s,s:s}", "source",
									     "extra-p", "repetition", rep));
			}
			json_array_append_new(runs, run);
		}
	}
	if (!o->chi_regions && !o->gamma_regions)
		snprintf(err, errsize, "note: no --chi-regions or --gamma-regions: the runs carry tau "
			 "alone; name the overhead regions for the isoefficiency analysis");
	else
		err[0] = '\0';
	return runs;
bad:
	json_decref(runs);
	return NULL;
}

json_t *extrap_read(const char *file, const struct extrap_opts *o, char *err, size_t errsize)
{
	struct ex x;
	json_t *runs = NULL;
	size_t i;
	FILE *f = fopen(file, "r");

	err[0] = '\0';
	if (!f) {
		snprintf(err, errsize, "cannot open %s", file);
		return NULL;
	}
	memset(&x, 0, sizeof(x));
	x.points = json_array();
	if (parse(f, file, &x, o, err, errsize) == 0)
		runs = build(&x, file, o, err, errsize);
	fclose(f);
	for (i = 0; i < x.nregs; i++)
		json_decref(x.regs[i].data);
	free(x.regs);
	json_decref(x.points);
	return runs;
}
