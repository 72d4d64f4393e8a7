/*
 * What the what-if methods read alike (api_methods.h): numbers of a body
 * over fields_read, and the modules of a power-capped machine, given or
 * from a stored power variation table.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_methods.h"
#include "core/xalloc.h"

/* ---- numbers of a body, over fields_read ---- */

int body_num(json_t *o, const char *key, bool positive, double *out, const char *field, long index,
	     struct kerr *err)
{
	const struct field f = {key, FIELD_NUMBER, FIELD_REQUIRED | (positive ? FIELD_ABOVE_LO : 0),
				positive ? 0 : -HUGE_VAL, HUGE_VAL, out, 0};

	if (!fields_read(NULL, o, &f, 1, err))
		return 0;
	if (field)
		snprintf(err->field, sizeof(err->field), "%s", field);
	err->index = index;
	return -1;
}

int method_num(json_t *o, const char *key, bool positive, double *out, struct resp *rs,
	       const char *field, long index)
{
	struct kerr err;

	kerr_clear(&err);
	if (!body_num(o, key, positive, out, field, index, &err))
		return 0;
	resp_error(rs, &err);
	return -1;
}

int method_nums(json_t *o, const char *key, size_t max, double **out, size_t *n, struct resp *rs)
{
	struct numbers nums = {NULL, 0};
	const struct field f = {key, FIELD_NUMBERS, FIELD_REQUIRED, -HUGE_VAL, HUGE_VAL, &nums, max};
	struct kerr err;

	kerr_clear(&err);
	*out = NULL;
	if (fields_read(NULL, o, &f, 1, &err)) {
		resp_error(rs, &err);
		return -1;
	}
	*out = nums.v;
	*n = nums.n;
	return 0;
}

struct pvt_mods {
	struct ka_module *m;
	size_t n;
	double mean_max, mean_min;
};

static int add_module(const struct pvt_row *row, void *ctx)
{
	struct pvt_mods *p = ctx;

	p->m = xrealloc(p->m, (p->n + 1) * sizeof(*p->m));
	p->m[p->n++] = ka_pvt_module(row->ratio_max, row->ratio_min, p->mean_max, p->mean_min);
	return 0;
}

/* A module's two powers, read by fields; the field named modules.KEY at index i. */
static int module_powers(json_t *m, const char *hi, const char *lo, double *p_max, double *p_min, size_t i,
			 struct kerr *err)
{
	const struct field f[] = {
		{hi, FIELD_NUMBER, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL, p_max, 0},
		{lo, FIELD_NUMBER, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL, p_min, 0},
	};

	if (fields_in(m, "modules.", (long)i, FIELDS(f), false, err))
		return -1;
	if (!(*p_max > *p_min)) {
		kerr_field(err, KERR_INVALID, "modules.p_max", "modules[%zu]: %s must exceed %s", i, hi, lo);
		err->index = (long)i;
		return -1;
	}
	return 0;
}

/* A stored table's modules, with the application's mean powers at f_max
 * and f_min ("pvt": SYSTEM, "mean_p_max", "mean_p_min"). */
static int modules_stored(struct karted *k, json_t *root, const char *system, struct ka_module **mod,
			  size_t *nm, struct kerr *err)
{
	struct pvt_mods p = {NULL, 0, 0, 0};
	const struct field f[] = {
		{"mean_p_max", FIELD_NUMBER, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL, &p.mean_max, 0},
		{"mean_p_min", FIELD_NUMBER, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL, &p.mean_min, 0},
	};
	struct kerr quiet;
	struct store *st;

	if (fields_read(NULL, root, FIELDS(f), err))
		return -1;
	if (!(p.mean_max > p.mean_min))
		return kerr_field(err, KERR_INVALID, "mean_p_min", "mean_p_min must be below mean_p_max");
	st = pool_get(k->readers);
	store_pvt_each(st, system, add_module, &p, &quiet);
	pool_put(k->readers, st);
	if (!p.n)
		return kerr_field(err, KERR_INVALID, "pvt", "there is no power variation table for system %.128s "
				  "(PUT /api/v1/pvt/SYSTEM)", system);
	*mod = p.m;
	*nm = p.n;
	return 0;
}

int modules_read(struct karted *k, json_t *root, struct ka_module **mod, size_t *nm, struct kerr *err)
{
	json_t *mods = json_object_get(root, "modules"), *m, *sys = json_object_get(root, "pvt");
	size_t i;

	if (json_is_string(sys))
		return modules_stored(k, root, json_string_value(sys), mod, nm, err);
	if (!json_is_array(mods) || (*nm = json_array_size(mods)) == 0 || *nm > MODULES_MAX)
		return kerr_field(err, KERR_INVALID, "modules", "modules must be an array of 1 to %d {p_max, "
				  "p_min} (W), or name a stored table with pvt", MODULES_MAX);
	*mod = xcalloc(*nm, sizeof(**mod));
	json_array_foreach(mods, i, m)
		if (module_powers(m, "p_max", "p_min", &(*mod)[i].p_max, &(*mod)[i].p_min, i, err))
			return -1;
	return 0;
}
