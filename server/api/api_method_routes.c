/*
 * The other methods as what-if endpoints, their routes: power-capped
 * runtime (Inadomi et al., api_powercap.c), power-trace correction (Osaka
 * et al., api_trace.c), regression power model and configuration search
 * (ePRO-MP, api_powermodel.c, api_configs.c), power variation tables
 * (api_pvt.c); and the reports drawn from a posted body. Bodies are JSON;
 * every bad value is a 400 naming its field.
 */
#include <stdio.h>
#include <string.h>

#include "api_methods.h"

/* POST /api/v1/reports/{powercap|trace}.{svg|png|pdf}: the analysis' body, drawn. */
static int post_report(void *app, struct req *rq, struct resp *rs)
{
	char what[64], *dot;
	enum chart_format fmt;

	snprintf(what, sizeof(what), "%s", req_param(rq));
	dot = strrchr(what, '.');
	if (dot && !chart_format_parse(dot + 1, &fmt)) {
		*dot = '\0';
		if (!strcmp(what, "powercap"))
			return powercap_answer(app, rq, rs, &fmt);
		if (!strcmp(what, "trace"))
			return trace_answer(app, rq, rs, &fmt);
	}
	resp_errorf(rs, 404, "reports drawn from a posted body are powercap and trace, each as "
		    ".svg, .png or .pdf (got %.60s)", req_param(rq));
	return 0;
}


static int post_powercap(void *app, struct req *rq, struct resp *rs)
{
	return powercap_answer(app, rq, rs, NULL);
}

static int post_trace(void *app, struct req *rq, struct resp *rs)
{
	return trace_answer(app, rq, rs, NULL);
}

const struct route api_method_routes[] = {
	{"POST", "/api/v1/analysis/powercap", ROUTE_BODY | ROUTE_SLOW, post_powercap, NULL},
	{"POST", "/api/v1/analysis/trace-correction", ROUTE_BODY | ROUTE_SLOW, post_trace, NULL},
	{"POST", "/api/v1/analysis/power-model", ROUTE_BODY | ROUTE_SLOW, post_power_model, NULL},
	{"POST", "/api/v1/analysis/power-model/predict", ROUTE_BODY | ROUTE_SLOW, post_power_predict, NULL},
	{"POST", "/api/v1/analysis/configurations", ROUTE_BODY | ROUTE_SLOW, post_configurations, NULL},
	{"PUT", "/api/v1/pvt/{}", ROUTE_WRITE | ROUTE_BODY, put_pvt, NULL},
	{"GET", "/api/v1/pvt/{}", ROUTE_SLOW, get_pvt, NULL},
	{"POST", "/api/v1/reports/{}", ROUTE_BODY | ROUTE_SLOW, post_report, NULL},
	{NULL, NULL, 0, NULL, NULL},
};
