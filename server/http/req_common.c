/*
 * The parts of http.h that need no server: reading a request's body as a
 * JSON object through req_body(), and the latency buckets of /metrics.
 * They live apart from http.c so that the fuzzers' request without a
 * server (tests/fuzz/req_mem.c) gives handlers the same behaviour.
 */
#include "http.h"
#include "resp.h"

json_t *req_json_object(struct req *rq, struct resp *rs)
{
	json_error_t je;
	const char *b;
	size_t len;
	json_t *root;

	b = req_body(rq, &len);
	root = json_loadb(b, len, 0, &je);
	if (!root)
		resp_errorf(rs, 400, "the body is not valid JSON: %s (line %d)", je.text, je.line);
	else if (!json_is_object(root)) {
		resp_errorf(rs, 400, "the body must be a JSON object");
		json_decref(root);
		root = NULL;
	}
	return root;
}

const double http_latency_le[HTTP_LATENCY_BUCKETS] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
						     0.1,   0.25,   0.5,   1,    2.5,   10};
