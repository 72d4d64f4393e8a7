/*
 * model_body: the body of POST /api/v1/analysis/model read straight into
 * arrays with yajl, without a jansson tree (10^4 values parse in about a
 * tenth of jansson's time):
 *
 *   {"parameters": ["p"], "points": [{"coordinates": [4], "values": [1.2, 1.22]}, ...],
 *    "predict": [[1024], ...], "resource": false | true | "auto"}
 *
 * Every refusal names its field (parameters, points[3].values, predict[0],
 * an unknown key) as the other bodies' readers do.
 */
#ifndef KARTE_MODEL_BODY_H
#define KARTE_MODEL_BODY_H

#include <stddef.h>

#include "analysis/pmnf.h"
#include "core/kerr.h"
#include "core/run.h"

#define MODEL_VALUES_MAX 1000000	/* values of one POST */
#define MODEL_PREDICT_MAX 1000	/* coordinates to predict at */
#define MODEL_MAGNITUDE 1e30	/* largest |value| and coordinate */

/* One measured value at its coordinates (unused ones 0). */
struct obsv {
	double x[KA_PMNF_PARAMS];
	double v;
};

/* What a model is of: the values as given, p times them (the resource,
 * divided by p again in the answer), or the resource when the values
 * fall at every step of p as Extra-P 4.2's strong-scaling check reads it. */
enum model_resource { MODEL_AS_GIVEN, MODEL_RESOURCE, MODEL_RESOURCE_AUTO };

struct model_body {
	int nparams;
	enum model_resource resource;	/* "resource": false (the default), true or "auto" */
	char names[KA_PMNF_PARAMS][RUN_NAME_MAX + 1];
	struct obsv *o;		/* nv values, in the order given */
	size_t nv;
	double *pred;		/* npred coordinates of nparams each */
	size_t npred;
};

/* body[0, len) into mb (freed with model_body_free, also after a
 * refusal): 0, or -1 with err (400 naming the field; 413 naming points
 * past MODEL_VALUES_MAX values). */
int model_body_read(const char *body, size_t len, struct model_body *mb, struct kerr *err);
void model_body_free(struct model_body *mb);

#endif
