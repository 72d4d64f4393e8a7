/*
 * The baseline for karted's ingest (make bench): the least a server that
 * stores runs does. libmicrohttpd on one internal polling thread (as
 * bare_mhd), each body parsed with jansson (system, application, p, n and
 * tau required), one SQLite insert per run on one writer thread that
 * commits whatever is queued as one transaction (group commit), WAL and
 * synchronous=NORMAL as karted runs, and the 201 with the run's id sent
 * after its commit (the connection suspended until then). No validation
 * beyond the required fields, no labels, no index, no regression check.
 * usage: min_ingest PORT DB    (runs until SIGTERM)
 */
#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BODY_MAX (1 << 20)

struct job {
	struct MHD_Connection *conn;
	char *buf;
	size_t len, cap;
	int64_t id;
	int status;		/* 0 until answered: 201, or 400 / 413 / 500 */
	bool queued;
	json_t *doc;
	struct job *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct job *head, *tail;
	bool stopping;
	sqlite3 *db;
	sqlite3_stmt *insert;
} W = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void store(struct job *j)
{
	json_t *d = j->doc;
	char *text = json_dumps(d, JSON_COMPACT);

	sqlite3_bind_text(W.insert, 1, json_string_value(json_object_get(d, "system")), -1, SQLITE_STATIC);
	sqlite3_bind_text(W.insert, 2, json_string_value(json_object_get(d, "application")), -1, SQLITE_STATIC);
	sqlite3_bind_int64(W.insert, 3, json_integer_value(json_object_get(d, "p")));
	sqlite3_bind_double(W.insert, 4, json_number_value(json_object_get(d, "n")));
	sqlite3_bind_double(W.insert, 5, json_number_value(json_object_get(d, "tau")));
	sqlite3_bind_text(W.insert, 6, text, -1, free);
	j->status = sqlite3_step(W.insert) == SQLITE_DONE ? 201 : 500;
	j->id = sqlite3_last_insert_rowid(W.db);
	sqlite3_reset(W.insert);
}

/* Group commit: every job queued so far in one transaction, then each
 * connection resumed to send its answer. */
static void *writer(void *arg)
{
	struct job *jobs, *j, *next;

	(void)arg;
	pthread_mutex_lock(&W.lock);
	for (;;) {
		while (!W.head && !W.stopping)
			pthread_cond_wait(&W.cond, &W.lock);
		if (!W.head)
			break;
		jobs = W.head;
		W.head = W.tail = NULL;
		pthread_mutex_unlock(&W.lock);
		sqlite3_exec(W.db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		for (j = jobs; j; j = j->next)
			store(j);
		if (sqlite3_exec(W.db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
			for (j = jobs; j; j = j->next)
				j->status = 500;
		for (j = jobs; j; j = next) {
			next = j->next;
			MHD_resume_connection(j->conn);
		}
		pthread_mutex_lock(&W.lock);
	}
	pthread_mutex_unlock(&W.lock);
	return NULL;
}

static enum MHD_Result answer(struct MHD_Connection *conn, int status, const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								 MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	ret = MHD_queue_response(conn, (unsigned)status, r);
	MHD_destroy_response(r);
	return ret;
}

static bool complete(json_t *d)
{
	return json_is_object(d) && json_is_string(json_object_get(d, "system")) &&
	       json_is_string(json_object_get(d, "application")) && json_is_integer(json_object_get(d, "p")) &&
	       json_is_number(json_object_get(d, "n")) && json_is_number(json_object_get(d, "tau"));
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *data, size_t *size,
				  void **con_cls)
{
	struct job *j = *con_cls;
	char text[48];

	(void)cls, (void)url, (void)method, (void)version;
	if (!j) {
		*con_cls = j = calloc(1, sizeof(*j));
		j->conn = conn;
		return MHD_YES;
	}
	if (*size) {
		if (j->len + *size > BODY_MAX)
			j->status = 413;
		else {
			if (j->len + *size > j->cap) {
				j->cap = 2 * (j->len + *size);
				j->buf = realloc(j->buf, j->cap);
			}
			memcpy(j->buf + j->len, data, *size);
			j->len += *size;
		}
		*size = 0;
		return MHD_YES;
	}
	if (j->status && !j->queued)
		return answer(conn, j->status, "{\"error\":\"the body is too large\"}");
	if (j->queued) {	/* resumed after the commit */
		snprintf(text, sizeof(text), "{\"ids\":[%lld]}", (long long)j->id);
		return answer(conn, j->status, j->status == 201 ? text : "{\"error\":\"not stored\"}");
	}
	j->doc = json_loadb(j->buf ? j->buf : "", j->len, 0, NULL);
	if (!complete(j->doc))
		return answer(conn, 400, "{\"error\":\"a run needs system, application, p, n and tau\"}");
	j->queued = true;
	MHD_suspend_connection(conn);
	pthread_mutex_lock(&W.lock);
	if (W.tail)
		W.tail->next = j;
	else
		W.head = j;
	W.tail = j;
	pthread_cond_signal(&W.cond);
	pthread_mutex_unlock(&W.lock);
	return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode why)
{
	struct job *j = *con_cls;

	(void)cls, (void)conn, (void)why;
	if (j) {
		json_decref(j->doc);
		free(j->buf);
		free(j);
		*con_cls = NULL;
	}
}

int main(int argc, char **argv)
{
	struct MHD_Daemon *d;
	pthread_t th;
	sigset_t sigs;
	int sig;

	if (argc != 3) {
		fprintf(stderr, "usage: min_ingest PORT DB\n");
		return 2;
	}
	if (sqlite3_open(argv[2], &W.db) != SQLITE_OK ||
	    sqlite3_exec(W.db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE IF NOT "
			 "EXISTS runs (id INTEGER PRIMARY KEY, system TEXT, application TEXT, p INTEGER, n REAL, "
			 "tau REAL, doc TEXT)", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(W.db, "INSERT INTO runs (system, application, p, n, tau, doc) VALUES (?, ?, ?, "
			       "?, ?, ?)", -1, &W.insert, NULL) != SQLITE_OK) {
		fprintf(stderr, "min_ingest: %s: %s\n", argv[2], sqlite3_errmsg(W.db));
		return 1;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	pthread_create(&th, NULL, writer, NULL);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
			     MHD_USE_ERROR_LOG, (uint16_t)atoi(argv[1]), NULL, NULL, on_request, NULL,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "min_ingest: cannot listen on port %s\n", argv[1]);
		return 1;
	}
	printf("min_ingest: ready\n");
	fflush(stdout);
	sigwait(&sigs, &sig);
	MHD_stop_daemon(d);
	pthread_mutex_lock(&W.lock);
	W.stopping = true;
	pthread_cond_signal(&W.cond);
	pthread_mutex_unlock(&W.lock);
	pthread_join(th, NULL);
	sqlite3_finalize(W.insert);
	sqlite3_close(W.db);
	return 0;
}
