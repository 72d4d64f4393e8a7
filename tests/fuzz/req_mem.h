/* A request without a server, for fuzzing handlers (req_mem.c). */
#ifndef KARTE_REQ_MEM_H
#define KARTE_REQ_MEM_H

#include <stdbool.h>
#include <stddef.h>

#include "http/http.h"
#include "core/utf8.h"

/* A request with these parts (borrowed: they must outlive it); query is
 * an undecoded query string of qlen bytes. Free with mem_req_free. */
struct req *mem_req(const char *method, const char *path, const char *param, const char *body,
		     size_t len, const char *query, size_t qlen);
void mem_req_free(struct req *rq);

/* Whether every query key and value is strict UTF-8 (http.c's check). */
bool mem_req_args_utf8(const struct req *rq);

#endif
