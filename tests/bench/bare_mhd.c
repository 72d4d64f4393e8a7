/*
 * The baseline for karted's POST rate: a bare libmicrohttpd handler with the
 * same daemon flags and thread count as karted, that collects the body and
 * answers 201 with a fixed {"ids":[1]}. No parsing, no storage.
 * usage: bare_mhd PORT THREADS   (runs until SIGTERM)
 */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char answer[] = "{\"ids\":[1]}";

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	(void)cls;
	(void)url;
	(void)method;
	(void)version;
	(void)upload_data;
	if (!*con_cls) {
		*con_cls = (void *)1;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;	/* karted copies the body; so is it read here */
		return MHD_YES;
	}
	r = MHD_create_response_from_buffer(sizeof(answer) - 1, (void *)answer,
					    MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	ret = MHD_queue_response(conn, 201, r);
	MHD_destroy_response(r);
	return ret;
}

int main(int argc, char **argv)
{
	struct MHD_Daemon *d;
	sigset_t sigs;
	int sig;

	if (argc != 3) {
		fprintf(stderr, "usage: bare_mhd PORT THREADS\n");
		return 2;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			     MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG,
			     (uint16_t)atoi(argv[1]), NULL, NULL, on_request, NULL,
			     MHD_OPTION_THREAD_POOL_SIZE, (unsigned)atoi(argv[2]),
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "bare_mhd: cannot listen on port %s\n", argv[1]);
		return 1;
	}
	printf("bare_mhd: ready\n");
	fflush(stdout);
	sigwait(&sigs, &sig);
	MHD_stop_daemon(d);
	return 0;
}
