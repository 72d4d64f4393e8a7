/* karte-collect: idempotency keys, the HTTP client, the spool and flush (collect.h). */
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/bounds.h"
#include "core/slurp.h"
#include "core/run.h"
#include "collect.h"

/* ---- keys ---------------------------------------------------------------------- */

static void hex(const unsigned char *b, size_t n, char *out)
{
	static const char h[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = h[b[i] >> 4];
		out[2 * i + 1] = h[b[i] & 15];
	}
	out[2 * n] = '\0';
}

/* A key from the run's content and its place in the file: posting the same
 * file twice stores it once. */
void content_key(json_t *run, size_t index, char *key)
{
	unsigned char d[SHA256_DIGEST_SIZE];
	struct sha256_ctx c;
	char *s = json_dumps(run, JSONF | JSON_SORT_KEYS), idx[32];

	snprintf(idx, sizeof(idx), "#%zu", index);
	sha256_init(&c);
	sha256_update(&c, strlen(s), (const uint8_t *)s);
	sha256_update(&c, strlen(idx), (const uint8_t *)idx);
	sha256_digest(&c, sizeof(d), d);
	memcpy(key, "kc-", 3);
	hex(d, 16, key + 3);
	free(s);
}

void random_key(char *key)
{
	unsigned char r[16] = {0};

	if (getrandom(r, sizeof(r), 0) != sizeof(r)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		memcpy(r, &ts, sizeof(ts) < sizeof(r) ? sizeof(ts) : sizeof(r));
		r[15] ^= (unsigned char)getpid();
	}
	memcpy(key, "kc-", 3);
	hex(r, 16, key + 3);
}

/* ---- sending --------------------------------------------------------------------- */

static size_t collect_body(char *data, size_t size, size_t n, void *ctx)
{
	struct buf *b = ctx;
	size_t add = size * n;
	char *np = realloc(b->p, b->len + add + 1);

	if (!np)
		return 0;
	b->p = np;
	memcpy(b->p + b->len, data, add);
	b->len += add;
	b->p[b->len] = '\0';
	return add;
}

/* Upload progress on stderr: one line, redrawn on a terminal, and said
 * once when the upload is done (karted then reads the file). */
static int show_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
			 curl_off_t ulnow)
{
	struct post *p = ctx;

	(void)dltotal;
	(void)dlnow;
	if (ultotal > 0) {
		int pct = (int)(100 * ulnow / ultotal);

		if (pct != p->shown && (isatty(2) || pct == 100)) {
			double unit = ultotal >= 1000000 ? 1e6 : 1e3;

			fprintf(stderr, "%skarte-collect: sending %s: %.1f of %.1f %s (%d %%)%s",
				isatty(2) ? "\r" : "", p->progress, ulnow / unit, ultotal / unit,
				unit > 1e3 ? "MB" : "kB", pct, pct == 100 ? "; karted is reading it\n" : "");
			p->shown = pct;
		}
	}
	return 0;
}

/* POST a body with retries and backoff on connection errors and 5xx.
 * REJECTED: the server said no (4xx); p->answer holds what it said. */
/* c set to POST body to p->path at o->url, with the token and p->type;
 * the headers' list, for the caller to free (libcurl copies the texts). */
static struct curl_slist *post_setup(CURL *c, const struct opts *o, struct post *p, const char *body,
				     size_t len)
{
	char url[4096], auth[600], type[128];
	struct curl_slist *h = NULL;

	snprintf(url, sizeof(url), "%s%s", o->url, p->path);
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", o->token ? o->token : "");
	snprintf(type, sizeof(type), "Content-Type: %s", p->type);
	h = curl_slist_append(h, type);
	h = curl_slist_append(h, auth);
	h = curl_slist_append(h, "Expect:");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, p->timeout_s);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 5L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (p->progress) {
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, show_progress);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, p);
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	}
	return h;
}

/* One try: SENT (200 or 201), REJECTED (another 4xx: karted's answer in
 * p->answer, or said here), or UNREACHABLE, said why, to try again (no
 * answer, or a 5xx: the database blinked, karted is busy). */
static enum sent post_once(CURL *c, const struct opts *o, struct post *p, int attempt)
{
	struct buf answer = {0};
	enum sent result = UNREACHABLE;
	long status = 0;
	CURLcode rc;

	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer);
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	p->status = status;
	if (rc != CURLE_OK) {
		fprintf(stderr, "karte-collect: %s (try %d of %d)\n", curl_easy_strerror(rc), attempt + 1,
			o->retries + 1);
	} else if (status < 500) {
		json_decref(p->answer);
		p->answer = json_loads(answer.p ? answer.p : "", 0, NULL);
		result = status == 200 || status == 201 ? SENT : REJECTED;
		if (result == REJECTED && !p->answer)
			fprintf(stderr, "karte-collect: karted refused it (HTTP %ld): %s\n", status,
				answer.p ? answer.p : "");
	} else {
		json_t *a = json_loads(answer.p ? answer.p : "", 0, NULL);
		const char *why = json_string_value(json_object_get(a, "error"));
		const char *id = json_string_value(json_object_get(a, "request_id"));

		fprintf(stderr, "karte-collect: karted could not take it now (HTTP %ld%s%s%s%s) "
			"(try %d of %d)\n", status, why ? ": " : "", why ? why : "",
			id ? "; request " : "", id ? id : "", attempt + 1, o->retries + 1);
		json_decref(a);
	}
	free(answer.p);
	return result;
}

enum sent post_body(const struct opts *o, struct post *p, const char *body, size_t len)
{
	enum sent result = UNREACHABLE;
	struct curl_slist *h;
	double wait = 0.5;
	int attempt;
	CURL *c = curl_easy_init();

	if (!c)
		return UNREACHABLE;
	h = post_setup(c, o, p, body, len);
	for (attempt = 0; attempt <= o->retries; attempt++) {
		if ((result = post_once(c, o, p, attempt)) != UNREACHABLE)
			break;
		if (attempt < o->retries) {	/* 0.5, 1, 2, 4, 8, 8 ... seconds */
			struct timespec ts = {(time_t)wait, (long)((wait - floor(wait)) * 1e9)};

			nanosleep(&ts, NULL);
			wait = fmin(wait * 2, 8);
		}
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return result;
}

/* POST an NDJSON body of runs; *nruns from the answer's ids. */
static enum sent post_ndjson(const struct opts *o, const char *body, size_t len, size_t *nruns)
{
	struct post p = {"/api/v1/runs", "application/x-ndjson", 60, NULL, NULL, 0, -1};
	enum sent r = post_body(o, &p, body, len);

	if (r == SENT)
		*nruns = json_array_size(json_object_get(p.answer, "ids"));
	if (r == REJECTED && p.answer) {
		char *t = json_dumps(p.answer, JSON_COMPACT);

		fprintf(stderr, "karte-collect: karted refused the runs (HTTP %ld): %s\n", p.status,
			t ? t : "");
		free(t);
	}
	json_decref(p.answer);
	return r;
}

/* The file whole, at most cap bytes; NULL after saying why. */
char *read_input(const char *file, size_t cap, const char *limit, size_t *len)
{
	struct kerr err;
	char *all;

	kerr_clear(&err);
	if (slurp(file, cap, limit, &all, len, &err)) {
		fprintf(stderr, "karte-collect: %s; nothing of it is sent\n", err.msg);
		return NULL;
	}
	return all;
}

/* ---- spool --------------------------------------------------------------------- */

static void spool_dir(const struct opts *o, char *out, size_t size)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (o->spool)
		snprintf(out, size, "%s", o->spool);
	else if (state && *state)
		snprintf(out, size, "%s/karte/spool", state);
	else
		snprintf(out, size, "%s/.local/state/karte/spool", home ? home : ".");
}

static int mkdirs(const char *path)
{
	char tmp[1024], *s;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (s = tmp + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(tmp, 0700);
			*s = '/';
		}
	return mkdir(tmp, 0700) && errno != EEXIST ? -1 : 0;
}

/* Write the body to the spool: a temporary name, then rename, so flush
 * never sees half a file. */
static int spool(const struct opts *o, const char *body, size_t len)
{
	char dir[1024], tmp[1100], final[1100], key[40];
	struct timespec ts;
	FILE *f;

	spool_dir(o, dir, sizeof(dir));
	if (mkdirs(dir)) {
		fprintf(stderr, "karte-collect: cannot create spool directory %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	random_key(key);
	snprintf(tmp, sizeof(tmp), "%s/.%lld-%s.tmp", dir, (long long)ts.tv_sec, key + 3);
	snprintf(final, sizeof(final), "%s/%lld.%09ld-%s.ndjson", dir, (long long)ts.tv_sec,
		 ts.tv_nsec, key + 3);
	f = fopen(tmp, "w");
	if (!f || fwrite(body, 1, len, f) != len || fsync(fileno(f)) || fclose(f) ||
	    rename(tmp, final)) {
		fprintf(stderr, "karte-collect: cannot spool to %s: %s\n", dir, strerror(errno));
		return -1;
	}
	fprintf(stderr, "karte-collect: karted did not take the runs (unreachable or a server "
		"error); they wait in %s (send them with: karte-collect flush)\n", final);
	return 0;
}

/* Post, or spool when unreachable. 0 sent or spooled, 1 rejected, 2 lost. */
int deliver(const struct opts *o, const char *body, size_t len)
{
	size_t n = 0;

	if (o->dry_run) {	/* checked as karted checks it: a dry run finds every mistake */
		struct run_batch rb;
		struct kerr err;

		if (run_parse_body(body, len, BODY_NDJSON, &rb, &err)) {
			if (err.field[0])
				fprintf(stderr, "karte-collect: karted would refuse this: %s (field %s)\n",
					err.msg, err.field);
			else
				fprintf(stderr, "karte-collect: karted would refuse this: %s\n", err.msg);
			return 1;
		}
		fprintf(stderr, "karte-collect: dry run: %zu run%s karted would take; nothing posted\n",
			rb.count, rb.count == 1 ? "" : "s");
		run_batch_free(&rb);
		fwrite(body, 1, len, stdout);
		return 0;
	}
	switch (post_ndjson(o, body, len, &n)) {
	case SENT:
		fprintf(stderr, "karte-collect: %zu run%s stored\n", n, n == 1 ? "" : "s");
		return 0;
	case REJECTED:
		return 1;
	default:
		return spool(o, body, len) ? 2 : 0;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cmd_flush(const struct opts *o)
{
	char dir[1024], path[1400], **names = NULL;
	size_t n = 0, cap = 0, i, sent = 0, nruns;
	struct dirent *e;
	int rc = 0;
	DIR *d;

	spool_dir(o, dir, sizeof(dir));
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "karte-collect: nothing to flush (%s)\n", dir);
		return 0;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.' || l < 7 || strcmp(e->d_name + l - 7, ".ndjson"))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			names = realloc(names, cap * sizeof(*names));
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);	/* oldest first */
	for (i = 0; i < n; i++) {
		char *body;
		size_t len;
		enum sent s;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		body = read_input(path, slurp_cap("KARTE_MAX_BODY", LIMIT_BODY), BODY_LIMIT, &len);
		if (!body)
			continue;
		s = post_ndjson(o, body, len, &nruns);
		free(body);
		if (s == SENT) {
			unlink(path);
			sent += nruns;
		} else if (s == REJECTED) {
			char bad[1500];

			snprintf(bad, sizeof(bad), "%s/rejected", dir);
			mkdir(bad, 0700);
			snprintf(bad, sizeof(bad), "%s/rejected/%s", dir, names[i]);
			rename(path, bad);
			fprintf(stderr, "karte-collect: moved %s to %s\n", names[i], bad);
			rc = 1;
		} else {
			fprintf(stderr, "karte-collect: karted still not reachable; %zu file%s left\n",
				n - i, n - i == 1 ? "" : "s");
			rc = 2;
			break;
		}
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	fprintf(stderr, "karte-collect: flushed %zu run%s\n", sent, sent == 1 ? "" : "s");
	return rc;
}
