/*
 * GET /api/v1/openapi.json: the OpenAPI 3.1 description of every route,
 * docs/openapi.json built into karted (the Makefile writes it out as
 * openapi_json[]), with info.version set to this karted's. Read once, on
 * the first request; tests/docs_check.py holds it to the route tables and
 * to docs/api.md, and the suites check every answer they get against it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "karted.h"
#include "core/version.h"

extern const unsigned char openapi_json[];
extern const size_t openapi_json_len;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char *text;		/* the answer, compact; NULL if the description did not load */
static size_t text_len;

static void load(void)
{
	json_error_t jerr;
	json_t *doc = json_loadb((const char *)openapi_json, openapi_json_len, 0, &jerr);
	json_t *info = json_object_get(doc, "info");

	if (!json_is_object(info) || json_object_set_new(info, "version", json_string(KARTE_VERSION)) < 0) {
		json_decref(doc);
		return;
	}
	text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	text_len = text ? strlen(text) : 0;
	json_decref(doc);
}

static int get_openapi(void *app, struct req *rq, struct resp *rs)
{
	(void)app;
	(void)rq;
	pthread_once(&once, load);
	if (!text)
		return -1;	/* a description that does not parse: a build defect, 500 */
	rs->body = malloc(text_len);
	if (!rs->body) {
		resp_errorf(rs, 503, "out of memory; try again");
		return 0;
	}
	memcpy(rs->body, text, text_len);
	rs->len = text_len;
	rs->status = 200;
	rs->content_type = "application/json";
	return 0;
}

const struct route api_openapi_routes[] = {
	{"GET", "/api/v1/openapi.json", 0, get_openapi, NULL},
	{NULL, NULL, 0, NULL, NULL},
};
