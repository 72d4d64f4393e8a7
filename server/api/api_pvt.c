/*
 * PUT / GET /api/v1/pvt/{system}: a machine's power variation table, each
 * module's P^max and P^min as ratios to the system's means, stored for the
 * power-cap analysis (modules_read in api_methods.c reads it back).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_methods.h"
#include "core/xalloc.h"

/* ---- power variation tables: PUT / GET /api/v1/pvt/{system} ----------------- */

static void pvt_done(struct wjob *job)
{
	struct write_req *w = (struct write_req *)job;
	struct resp *rs = req_resp(w->rq);

	if (job->rc)
		resp_error(rs, &job->err);
	else
		resp_json(rs, 200, json_pack("{s:s,s:I}", "system", job->pvt_system, "modules",
					     (json_int_t)job->npvt));
	free(job->pvt_system);
	free(job->pvt);
	http_resume(w->rq);
	free(w);
}

static int by_module(const void *a, const void *b)
{
	const struct pvt_row *x = a, *y = b;

	return (x->module > y->module) - (x->module < y->module);
}

/* A module given twice: its index, or -1 (n log n, on a sorted copy). */
static long module_twice(const struct pvt_row *rows, size_t n)
{
	struct pvt_row *s = xmalloc(n * sizeof(*s));
	long twice = -1;
	size_t i;

	memcpy(s, rows, n * sizeof(*s));
	qsort(s, n, sizeof(*s), by_module);
	for (i = 1; i < n && twice < 0; i++)
		if (s[i].module == s[i - 1].module)
			twice = s[i].module;
	free(s);
	return twice;
}

int put_pvt(void *app, struct req *rq, struct resp *rs)
{
	json_t *root = req_json_object(rq, rs), *mods, *m;
	struct pvt_row *rows = NULL;
	struct write_req *w;
	const char *system = req_param(rq);
	size_t n, i;
	long twice;

	if (!root)
		return 0;
	mods = json_object_get(root, "modules");
	if (strlen(system) > RUN_NAME_MAX || !json_is_array(mods) || (n = json_array_size(mods)) == 0 ||
	    n > MODULES_MAX) {
		resp_field_errorf(rs, "modules", -1, "modules must be an array of 1 to %d "
				  "{module, ratio_max, ratio_min}", MODULES_MAX);
		goto fail;
	}
	rows = xcalloc(n, sizeof(*rows));
	json_array_foreach(mods, i, m) {
		json_t *id = json_object_get(m, "module");

		if (!json_is_integer(id) || json_integer_value(id) < 0) {
			resp_field_errorf(rs, "modules.module", (long)i, "modules[%zu].module must be an index, 0 or more", i);
			goto fail;
		}
		rows[i].module = (long)json_integer_value(id);
		if (method_num(m, "ratio_max", true, &rows[i].ratio_max, rs, "modules.ratio_max", (long)i) ||
		    method_num(m, "ratio_min", true, &rows[i].ratio_min, rs, "modules.ratio_min", (long)i))
			goto fail;
	}
	twice = module_twice(rows, n);
	if (twice >= 0) {	/* before the writer: the same 400 on either backend */
		resp_field_errorf(rs, "modules", -1, "module %ld appears twice", twice);
		goto fail;
	}
	json_decref(root);
	w = write_req_new(app, rq, WJOB_PVT, pvt_done);
	w->job.pvt_system = xstrdup(system);
	w->job.pvt = rows;
	w->job.npvt = n;
	req_defer(rq, write_req_submit, w);
	return HTTP_PENDING;
fail:
	free(rows);
	json_decref(root);
	return 0;
}

static int add_pvt(const struct pvt_row *row, void *ctx)
{
	json_array_append_new(ctx, json_pack("{s:I,s:f,s:f}", "module", (json_int_t)row->module,
					     "ratio_max", row->ratio_max, "ratio_min", row->ratio_min));
	return 0;
}

int get_pvt(void *app, struct req *rq, struct resp *rs)
{
	struct karted *k = app;
	json_t *mods = json_array();
	struct store *st = pool_get(k->readers);
	struct kerr err;
	long n;

	kerr_clear(&err);
	n = store_pvt_each(st, req_param(rq), add_pvt, mods, &err);
	pool_put(k->readers, st);
	if (n <= 0) {
		json_decref(mods);
		if (n < 0)
			resp_error(rs, &err);
		else
			resp_errorf(rs, 404, "there is no power variation table for system %.128s",
				    req_param(rq));
		return 0;
	}
	resp_json(rs, 200, json_pack("{s:s,s:o}", "system", req_param(rq), "modules", mods));
	return 0;
}

