/*
 * POST /api/v1/analysis/powercap (Inadomi et al.): the runtime of a
 * power-capped run under a uniform and a variation-aware cap, for each
 * budget. The body read by fields, the study by analysis/powercap.c
 * (ka_pc_*), the answer written from its structs, or drawn as the powercap
 * report (POST /api/v1/reports/powercap.{svg,png,pdf}).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_methods.h"
#include "analysis/powercap.h"
#include "core/xalloc.h"

#define BUDGETS_MAX 1000	/* power budgets of one request */
#define CAP_CELLS_MAX 25000	/* modules x budgets: the per-module rows answered (about 200 bytes each,
				 * twice: under the 16 MiB answer) */
#define RSAMPLES_MAX 10000	/* measured r(f) samples */

/* What a request asks and what the study found. */
struct study {
	double f_max, f_min, t0, f_high, f_low;
	struct numbers f, r, budgets;
	struct ka_module *mod;
	size_t nm;
	struct ka_pc_samples s;
	struct ka_pc_models m;
	struct ka_alloc *au, *av;	/* budgets x modules */
	struct ka_pc_cap *uniform, *aware;	/* per budget */
};

static void study_free(struct study *st)
{
	free(st->f.v);
	free(st->r.v);
	free(st->budgets.v);
	free(st->mod);
	free(st->au);
	free(st->av);
	free(st->uniform);
	free(st->aware);
}

/* The body into st, and the study run; -1 with err (400 naming the field,
 * 413 for too many rows). */
static int study_run(struct karted *k, json_t *root, struct study *st, struct kerr *err)
{
	json_t *samples = json_object_get(root, "r");
	const struct field top[] = {
		{"f_max", FIELD_NUMBER, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL, &st->f_max, 0},
		{"f_min", FIELD_NUMBER, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL, &st->f_min, 0},
		{"t0", FIELD_NUMBER, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL, &st->t0, 0},
		{"f_high_mhz", FIELD_NUMBER, FIELD_ABOVE_LO, 0, HUGE_VAL, &st->f_high, 0},
		{"f_low_mhz", FIELD_NUMBER, FIELD_ABOVE_LO, 0, HUGE_VAL, &st->f_low, 0},
		{"budgets", FIELD_NUMBERS, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL, &st->budgets, BUDGETS_MAX},
	};
	/* a time (normalised or not) and a frequency are positive: the cycle
	 * ratio and the inverse models divide by them */
	const struct field rf[] = {
		{"f", FIELD_NUMBERS, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL, &st->f, RSAMPLES_MAX},
		{"r", FIELD_NUMBERS, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL, &st->r, RSAMPLES_MAX},
	};
	double *pred;
	size_t i;
	int rc;

	st->f_high = st->f_low = NAN;
	if (fields_read(NULL, root, FIELDS(top), err))
		return -1;
	if (!(st->f_max > st->f_min))
		return kerr_field(err, KERR_INVALID, "f_min", "f_min must be below f_max");
	if (json_is_object(samples) && fields_read(NULL, samples, FIELDS(rf), err)) {
		snprintf(err->field, sizeof(err->field), "r");	/* r.f[i] or r.r[i]: the item named */
		return -1;
	}
	if (!json_is_object(samples) || st->f.n != st->r.n || st->f.n < 2)
		return kerr_field(err, KERR_INVALID, "r", "r needs {\"f\": [...], \"r\": [...]} of the same "
				  "length, two or more (MHz, and time over the time at f_max)");
	if (modules_read(k, root, &st->mod, &st->nm, err))
		return -1;
	if (st->budgets.n * st->nm > CAP_CELLS_MAX)
		return kerr_field(err, KERR_TOO_LARGE, "budgets", "budgets x modules is %zu x %zu = %zu rows, "
				  "more than the limit of %d; ask for fewer budgets", st->budgets.n, st->nm,
				  st->budgets.n * st->nm, CAP_CELLS_MAX);
	rc = ka_pc_pick(st->f.v, st->f.n, st->f_high, st->f_low, &st->s);
	if (rc < 0)
		return kerr_field(err, KERR_INVALID, "r", "r needs samples at two different frequencies");
	if (rc > 0)
		return kerr_field(err, KERR_INVALID, rc == 1 ? "f_high_mhz" : "f_low_mhz", "%s (%g MHz) is not "
				  "a frequency of the r samples strictly between f_min and f_max",
				  rc == 1 ? "f_high_mhz" : "f_low_mhz", rc == 1 ? st->f_high : st->f_low);
	pred = xmalloc(st->f.n * sizeof(double));
	ka_pc_models_fit(st->f.v, st->r.v, st->f.n, &st->s, pred, &st->m);
	free(pred);
	st->au = xcalloc(st->budgets.n * st->nm, sizeof(*st->au));
	st->av = xcalloc(st->budgets.n * st->nm, sizeof(*st->av));
	st->uniform = xcalloc(st->budgets.n, sizeof(*st->uniform));
	st->aware = xcalloc(st->budgets.n, sizeof(*st->aware));
	for (i = 0; i < st->budgets.n; i++)
		ka_pc_budget(st->mod, st->nm, st->budgets.v[i], st->f_max, st->f_min, &st->m, st->au + i * st->nm,
			     st->av + i * st->nm, &st->uniform[i], &st->aware[i]);
	return 0;
}

static json_t *inverse_json(const struct ka_inverse *m)
{
	return json_pack("{s:f,s:f}", "c", m->c, "d", m->d);
}

static json_t *three_json(const struct ka_three_point *t)
{
	return json_pack("{s:o,s:o,s:o}", "high", inverse_json(&t->high), "low", inverse_json(&t->low), "f3_mhz",
			 json_finite(t->f3));
}

static json_t *quality_json(const struct ka_pc_models *m, int k, bool have)
{
	if (!have || (isnan(m->pearson[k]) && isnan(m->r2[k])))
		return json_null();
	return json_pack("{s:o,s:o}", "pearson_r", json_finite(m->pearson[k]), "r2", json_finite(m->r2[k]));
}

/* One cap of one budget: each module's share and r, the slowest module's r and time. */
static json_t *cap_json(const struct study *st, const struct ka_alloc *a, const struct ka_pc_cap *c)
{
	json_t *mods = json_array(), *o;
	size_t j;

	for (j = 0; j < st->nm; j++) {
		json_t *m = json_pack("{s:f,s:f,s:f,s:f,s:f,s:b,s:f}", "a", a[j].a, "a_raw", a[j].a_raw, "f_mhz",
				      a[j].f, "p_w", a[j].p, "draw_w", a[j].draw, "clamped", a[j].clamped,
				      "r_two_point", ka_inverse_eval(&st->m.two, a[j].f));

		json_object_set_new(m, "r_three_point", st->m.have_three ?
				    json_real(ka_three_point_eval(&st->m.three, a[j].f)) : json_null());
		json_array_append_new(mods, m);
	}
	o = json_pack("{s:o,s:b,s:f,s:f,s:f}", "modules", mods, "infeasible", c->infeasible, "r_two_point",
		      c->r_two, "t_two_point_s", st->t0 * c->r_two, "total_draw_w", c->draw);
	json_object_set_new(o, "r_three_point", json_finite(c->r_three));
	json_object_set_new(o, "t_three_point_s", json_finite(st->t0 * c->r_three));
	return o;
}

static json_t *study_json(const struct study *st)
{
	const struct ka_pc_models *m = &st->m;
	json_t *budgets = json_array(), *models;
	size_t i;

	for (i = 0; i < st->budgets.n; i++)
		json_array_append_new(budgets, json_pack("{s:f,s:o,s:o}", "budget_w", st->budgets.v[i], "uniform",
							 cap_json(st, st->au + i * st->nm, &st->uniform[i]),
							 "variation_aware",
							 cap_json(st, st->av + i * st->nm, &st->aware[i])));
	models = json_pack("{s:o,s:o,s:o}", "two_point", inverse_json(&m->two), "three_point",
			   m->have_three ? three_json(&m->three) : json_null(), "best_f3",
			   m->have_best ? three_json(&m->best) : json_null());
	return json_pack("{s:f,s:{s:o,s:o,s:o},s:o,s:o}", "cycle_ratio", m->cycle_ratio, "fit_quality",
			 "two_point", quality_json(m, KA_PC_TWO, true), "three_point",
			 quality_json(m, KA_PC_THREE, m->have_three), "best_f3",
			 quality_json(m, KA_PC_BEST, m->have_best), "models", models, "budgets", budgets);
}

/* The powercap report: the samples and models, each budget's times, each
 * module's r under the uniform cap. */
static void study_draw(const struct study *st, const struct report_opts *ro, struct resp *rs,
		       enum chart_format fmt)
{
	size_t nb = st->budgets.n, i, j;
	double *t = xcalloc(4 * nb + nb * st->nm + 1, sizeof(double)), *rmod = t + 4 * nb;

	for (i = 0; i < nb; i++) {
		t[i] = st->t0 * st->uniform[i].r_two;
		t[nb + i] = st->t0 * st->uniform[i].r_three;
		t[2 * nb + i] = st->t0 * st->aware[i].r_two;
		t[3 * nb + i] = st->t0 * st->aware[i].r_three;
		for (j = 0; j < st->nm; j++)
			rmod[i * st->nm + j] = ka_inverse_eval(&st->m.two, st->au[i * st->nm + j].f);
	}
	{
		const struct ka_pc_models *m = &st->m;
		struct report_powercap in = {
			.f = st->f.v, .r = st->r.v, .n = st->f.n, .two = m->two,
			.three = m->have_three ? &m->three : NULL, .best = m->have_best ? &m->best : NULL,
			.r2_two = m->r2[KA_PC_TWO], .r2_three = m->r2[KA_PC_THREE], .r2_best = m->r2[KA_PC_BEST],
			.cycle_ratio = m->cycle_ratio, .budget = st->budgets.v, .t_uniform2 = t,
			.t_uniform3 = m->have_three ? t + nb : NULL, .t_aware2 = t + 2 * nb,
			.t_aware3 = m->have_three ? t + 3 * nb : NULL, .nbudgets = nb, .r_module = rmod,
			.nmodules = st->nm};

		report_respond(rs, report_build_powercap(&in, ro), fmt);
	}
	free(t);
}

int powercap_answer(void *app, struct req *rq, struct resp *rs, const enum chart_format *chart)
{
	json_t *root = req_json_object(rq, rs);
	struct study st = {0};
	struct report_opts ro;
	struct kerr err;

	if (!root)
		return 0;
	kerr_clear(&err);
	if ((chart && report_opts_of(rq, &ro, &err)) || study_run(app, root, &st, &err))
		resp_error(rs, &err);
	else if (chart)
		study_draw(&st, &ro, rs, *chart);
	else
		resp_json(rs, 200, study_json(&st));
	study_free(&st);
	json_decref(root);
	return 0;
}
