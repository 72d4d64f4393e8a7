/*
 * libFuzzer harness for karted's handlers that take outside bytes beyond a
 * run: every what-if analysis body (energy model, power cap, trace
 * correction with its CSV traces, power model and prediction,
 * configurations, the POSTed reports) and the query strings of the GET
 * analyses and reports, against a real SQLite database holding a few
 * series. The first byte picks the route, the rest is its body or query.
 * Whatever comes in, the handler must answer with a status and, for JSON,
 * a body that parses, and never crash, leak or hit undefined behaviour
 * (-fsanitize=fuzzer,address,undefined).
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/karted.h"
#include "req_mem.h"
#include "core/run.h"

struct target {
	const struct route *table;
	const char *method, *path, *param;
};

static const struct target targets[] = {
	{api_analysis_routes, "POST", "/api/v1/analysis/energy/model", NULL},
	{api_method_routes, "POST", "/api/v1/analysis/powercap", NULL},
	{api_method_routes, "POST", "/api/v1/analysis/trace-correction", NULL},
	{api_method_routes, "POST", "/api/v1/analysis/power-model", NULL},
	{api_method_routes, "POST", "/api/v1/analysis/power-model/predict", NULL},
	{api_method_routes, "POST", "/api/v1/analysis/configurations", NULL},
	{api_method_routes, "POST", "/api/v1/reports/{}", "powercap.svg"},
	{api_method_routes, "POST", "/api/v1/reports/{}", "trace.svg"},
	{api_analysis_routes, "GET", "/api/v1/analysis/isoefficiency", NULL},
	{api_analysis_routes, "GET", "/api/v1/analysis/energy", NULL},
	{api_report_routes, "GET", "/api/v1/reports/{}", "isoefficiency.svg"},
	{api_report_routes, "GET", "/api/v1/reports/{}", "efficiency.svg"},
	{api_report_routes, "GET", "/api/v1/reports/{}", "energy.svg"},
	{api_report_routes, "GET", "/api/v1/reports/{}", "energy-shares.svg"},
	{api_method_routes, "GET", "/api/v1/pvt/{}", "sys"},
	{api_analysis_routes, "GET", "/api/v1/analysis/points", NULL},
	{api_model_routes, "POST", "/api/v1/analysis/model", NULL},
	{api_model_routes, "GET", "/api/v1/analysis/model", NULL},
	{api_report_routes, "GET", "/api/v1/reports/{}", "model.svg"},
	{api_report_routes, "GET", "/api/v1/reports/{}", "isoefficiency-function.svg"},
	{api_history_routes, "GET", "/api/v1/analysis/history", NULL},
	{api_alert_routes, "GET", "/api/v1/alerts", NULL},
	{api_alert_routes, "GET", "/api/v1/series/thresholds", NULL},
	{api_history_routes, "GET", "/api/v1/series/labels", NULL},
	{api_report_routes, "GET", "/api/v1/reports/{}", "history.svg"},
	{api_report_routes, "GET", "/api/v1/reports/{}", "scaling-history.svg"},
};
#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

static struct karted k;
/* in the build tree, made anew at each start: libFuzzer leaves by _exit
 * when its time is up, so nothing would remove a folder in /tmp */
static const char db[] = "build/fuzz/api.db";

/* Orii's SP2 example and a small Kimura series with regions. */
static const char seed_runs[] =
	"{\"system\":\"SP2\",\"application\":\"md\",\"p\":10,\"n\":39200,\"tau\":20,\"chi\":8.96}\n"
	"{\"system\":\"SP2\",\"application\":\"md\",\"p\":16,\"n\":39200,\"tau\":16,\"chi\":8.8}\n"
	"{\"system\":\"SP2\",\"application\":\"md\",\"p\":24,\"n\":39200,\"tau\":14,\"chi\":9.32}\n"
	"{\"system\":\"SP2\",\"application\":\"md\",\"p\":10,\"n\":80000,\"tau\":40,\"chi\":15.2}\n"
	"{\"system\":\"SP2\",\"application\":\"md\",\"p\":16,\"n\":80000,\"tau\":32,\"chi\":16}\n"
	"{\"system\":\"SP2\",\"application\":\"md\",\"p\":24,\"n\":80000,\"tau\":25,\"chi\":15}\n"
	"{\"system\":\"SP2\",\"application\":\"md\",\"p\":16,\"n\":160000,\"tau\":9}\n"
	"{\"system\":\"K\",\"application\":\"mg\",\"p\":1,\"n\":1,\"tau\":10,\"frequency_mhz\":3000,"
	"\"regions\":[{\"name\":\"a\",\"time_s\":6,\"power_w\":100,\"counters\":{\"c\":1e9}},"
	"{\"name\":\"b\",\"time_s\":4,\"energy_j\":300}],\"labels\":{\"t\":\"2\"},\"energy_j\":900}\n"
	"{\"system\":\"K\",\"application\":\"mg\",\"p\":2,\"n\":1,\"tau\":6,\"frequency_mhz\":3000,"
	"\"regions\":[{\"name\":\"a\",\"time_s\":3.2,\"power_w\":100},"
	"{\"name\":\"b\",\"time_s\":2.8,\"energy_j\":200}],\"labels\":{\"t\":\"4\"},\"energy_j\":800}\n"
	"{\"system\":\"K\",\"application\":\"mg\",\"p\":1,\"n\":1,\"tau\":14,\"frequency_mhz\":2000,"
	"\"regions\":[{\"name\":\"a\",\"time_s\":8.5,\"power_w\":70},"
	"{\"name\":\"b\",\"time_s\":5.5,\"energy_j\":280,\"counters\":{\"c\":2e9}}]}\n";

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct run_batch b;
	struct kerr err;
	struct store *st;
	size_t i;
	int64_t id;
	bool existed;

	(void)argc;
	(void)argv;
	unlink(db);
	unlink("build/fuzz/api.db-wal");
	unlink("build/fuzz/api.db-shm");
	st = store_open(db, STORE_MIGRATE, &err);
	if (!st || run_parse_body(seed_runs, strlen(seed_runs), BODY_NDJSON, &b, &err) ||
	    store_begin(st, &err))
		abort();
	for (i = 0; i < b.count; i++)
		if (store_put_run(st, &b.runs[i], &id, &existed, &err))
			abort();
	if (store_commit(st, &err))
		abort();
	run_batch_free(&b);
	store_close(st);
	k.readers = pool_open(db, 1, 0, &err);
	if (!k.readers)
		abort();
	return 0;
}

static route_fn find(const struct target *t)
{
	const struct route *r;

	for (r = t->table; r->method; r++)
		if (!strcmp(r->method, t->method) && !strcmp(r->path, t->path))
			return r->fn;
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct target *t;
	struct req *rq;
	struct resp *rs;
	int rc;

	if (size < 1 || size > (2u << 20))
		return 0;
	t = &targets[data[0] % NTARGETS];
	if (!strcmp(t->method, "GET"))
		rq = mem_req(t->method, t->path, t->param, "", 0, (const char *)data + 1, size - 1);
	else
		rq = mem_req(t->method, t->path, t->param, (const char *)data + 1, size - 1, "", 0);
	if (!mem_req_args_utf8(rq)) {	/* http.c answers 400 before a handler runs */
		mem_req_free(rq);
		return 0;
	}
	rc = find(t)(&k, rq, req_resp(rq));
	rs = req_resp(rq);
	if (rc < 0 && rs->status == 0)
		rs->status = 500;
	if (rs->status < 200 || rs->status > 599 || rs->status == 500)
		abort();	/* a handler error is a bug: bad input gets a 4xx */
	if (rs->content_type && !strcmp(rs->content_type, "application/json")) {
		json_error_t je;
		json_t *v = json_loadb(rs->body, rs->len, 0, &je);

		if (!v || (rs->status >= 400 && !json_is_string(json_object_get(v, "error"))))
			abort();
		json_decref(v);
	} else if (rs->status == 200 && (!rs->body || rs->len < 10)) {
		abort();	/* a drawing */
	}
	mem_req_free(rq);
	return 0;
}
