/*
 * karte-collect: get measured runs into karted from job scripts.
 *
 *   karte-collect run --system S --application A -p 16 -n 80000 -- ./prog args
 *   karte-collect post runs.csv | runs.ndjson | runs.json
 *   karte-collect import relearn_data.txt --system S --application A --region 'main()'
 *   karte-collect flush
 *
 * Every run carries an idempotency key, so a retry never stores twice; a
 * body the server never took is spooled and `flush` sends it later.
 */
#include <archive.h>
#include <archive_entry.h>
#include <csv.h>
#include <ctype.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <nettle/sha2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/csvsafe.h"
#include "core/jsonw.h"
#include "core/bounds.h"
#include "core/slurp.h"
#include "core/run.h"
#include "rapl.h"
#include "core/mono.h"
#include "core/version.h"

#define JSONF (JSON_COMPACT | JSON_REAL_PRECISION(17))

static const char usage[] =
	"usage: karte-collect COMMAND [OPTIONS]\n"
	"\n"
	"commands:\n"
	"  run [OPTIONS] -- CMD ARGS   run CMD, measure tau and RAPL energy, post the run\n"
	"  post FILE...                post runs a job wrote: .json, .ndjson or .csv\n"
	"  import FILE                 import another tool's file through karted (see below)\n"
	"  flush                       send the runs spooled while karted was away\n"
	"  --help, --version           this text; the version\n"
	"\n"
	"server (also KARTE_URL, KARTE_TOKEN):\n"
	"  --url URL          karted's address (default http://127.0.0.1:8080)\n"
	"  --token TOKEN      a write token (karted token create NAME)\n"
	"  --retries N        tries on a connection error or 5xx before spooling (4)\n"
	"  --spool-dir DIR    where unsent runs wait (KARTE_SPOOL_DIR;\n"
	"                     default $XDG_STATE_HOME/karte/spool or ~/.local/state/karte/spool)\n"
	"  --dry-run          check the runs as karted would, print the NDJSON, post nothing\n"
	"\n"
	"run, post and import:\n"
	"  --system S, --application A, --variant V   the series (fill what the data lacks)\n"
	"  -p P, -n N          processors and problem size\n"
	"  --chi S | --gamma S overhead or parallel computation time, seconds\n"
	"  --label K=V         a label (repeatable)\n"
	"  --frequency MHZ     the run's frequency_mhz\n"
	"\n"
	"run: CMD gets KARTE_RESULTS, a file it may write (the region library\n"
	"does): a JSON object of run fields (tau, chi or gamma, regions, ...), or\n"
	"lines 'chi 5.6' / 'gamma 6.9' / 'tau 12.5' / 'n 80000'. Its fields win over\n"
	"what karte-collect measured; the options win over both. Energy is the\n"
	"package + DRAM RAPL domains of the powercap tree (KARTE_POWERCAP_ROOT).\n"
	"\n"
	"import FILE: karted reads Extra-P text, JSON lines and JSON, Talpas, saved Extra-P\n"
	"  experiments (.extra-p), Caliper .cali and cali-query JSON, Thicket ensembles\n"
	"  (to_json), GEOPM reports, CSV and karte's own NDJSON export; each point and\n"
	"  repetition becomes a run. import DIR sends Score-P's experiment directories\n"
	"  under DIR (mm.x10y1z1.r1/profile.cubex: parameters from the names, as\n"
	"  Extra-P reads them) as one tar. Options may come before or after FILE:\n"
	"  --format F          extrap-text, extrap-jsonl, extrap-json, talpas, caliper-json,\n"
	"                      cali, geopm-report, csv, ndjson, cube, extrap-experiment,\n"
	"                      thicket-json (default: guessed by karted; a DIR is cube)\n"
	"  --p-param NAME, --n-param NAME   the file's parameters that are p and n\n"
	"                      (default: those called p and n; the only one is p)\n"
	"  --n-value N         a constant n (a file with p alone)\n"
	"  --metric NAME       what is tau (default: the only metric, else time/runtime)\n"
	"  --region NAME       the region that is tau (default: the single root); the\n"
	"                      regions one level under it become the run's regions\n"
	"  --chi-regions A,B | --gamma-regions A,B   regions summed into chi or gamma\n"
	"  --time-unit U       s, ms, us or ns: the unit of a Caliper file's times\n"
	"  --col FIELD=HEADER  CSV: the column that holds a run field (repeatable)\n"
	"  Importing the same file with the same options again stores nothing new.\n"
	"  (import-extrap FILE is import --format extrap-text; --tau-region is --region.)\n";

struct opts {
	const char *url, *token, *spool, *system, *application, *variant;
	const char *p, *n, *chi, *gamma, *frequency;
	const char *labels[32];
	int nlabels;
	int retries;
	bool dry_run;
	/* import */
	const char *format, *p_param, *n_param, *n_value, *metric, *region, *chi_regions,
		*gamma_regions, *time_unit;
	const char *cols[32];
	int ncols;
};

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
static void content_key(json_t *run, size_t index, char *key)
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

static void random_key(char *key)
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

struct buf {
	char *p;
	size_t len;
};

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

enum sent { SENT, REJECTED, UNREACHABLE };

/* How a POST goes: where, as what, and what to show while it is sent. */
struct post {
	const char *path;	/* "/api/v1/runs" or "/api/v1/import?..." */
	const char *type;	/* Content-Type */
	long timeout_s;
	const char *progress;	/* a name to show an upload's progress under, or NULL */
	json_t *answer;		/* out: the parsed answer of a 2xx or 4xx */
	long status;		/* out */
	int shown;		/* the percentage shown last; -1 before */
};

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
static enum sent post_body(const struct opts *o, struct post *p, const char *body, size_t len)
{
	char url[4096], auth[600], type[128];
	struct curl_slist *h = NULL;
	enum sent result = UNREACHABLE;
	double wait = 0.5;
	int attempt;
	CURL *c = curl_easy_init();

	if (!c)
		return UNREACHABLE;
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
	for (attempt = 0; attempt <= o->retries; attempt++) {
		struct buf answer = {0};
		CURLcode rc;
		long status = 0;

		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect_body);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer);
		rc = curl_easy_perform(c);
		if (rc == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		p->status = status;
		if (rc == CURLE_OK && status < 500) {
			json_decref(p->answer);
			p->answer = json_loads(answer.p ? answer.p : "", 0, NULL);
		}
		if (rc == CURLE_OK && (status == 200 || status == 201)) {
			free(answer.p);
			result = SENT;
			break;
		}
		if (rc == CURLE_OK && status < 500) {
			if (!p->answer)
				fprintf(stderr, "karte-collect: karted refused it (HTTP %ld): %s\n", status,
					answer.p ? answer.p : "");
			free(answer.p);
			result = REJECTED;
			break;
		}
		if (rc != CURLE_OK) {
			fprintf(stderr, "karte-collect: %s (try %d of %d)\n", curl_easy_strerror(rc),
				attempt + 1, o->retries + 1);
		} else {
			/* a 5xx (the database blinked, karted is busy): kept, sent again */
			json_t *a = json_loads(answer.p ? answer.p : "", 0, NULL);
			const char *why = json_string_value(json_object_get(a, "error"));
			const char *id = json_string_value(json_object_get(a, "request_id"));

			fprintf(stderr, "karte-collect: karted could not take it now (HTTP %ld%s%s%s%s) "
				"(try %d of %d)\n", status, why ? ": " : "", why ? why : "",
				id ? "; request " : "", id ? id : "", attempt + 1, o->retries + 1);
			json_decref(a);
		}
		free(answer.p);
		if (attempt < o->retries) {
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

/* What a POST of runs may be (karted's --max-body, read from the same
 * variable), and a file to import (--max-import-body). */
#define BODY_LIMIT "karted's --max-body (KARTE_MAX_BODY)"
#define IMPORT_LIMIT "karted's --max-import-body (KARTE_MAX_IMPORT_BODY)"

/* The file whole, at most cap bytes; NULL after saying why. */
static char *read_input(const char *file, size_t cap, const char *limit, size_t *len)
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
static int deliver(const struct opts *o, const char *body, size_t len)
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

static int cmd_flush(const struct opts *o)
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

/* ---- building runs --------------------------------------------------------------- */

static int set_num(json_t *run, const char *key, const char *text, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (!*text || *end || errno || !isfinite(v)) {
		fprintf(stderr, "karte-collect: %s: '%s' is not a number\n", what, text);
		return -1;
	}
	if (!strcmp(key, "p") && v == floor(v) && fabs(v) <= 1e15)	/* karted says whether it fits */
		json_object_set_new(run, key, json_integer((json_int_t)v));
	else
		json_object_set_new(run, key, json_real(v));
	return 0;
}

/* The options' fields over run's (they win). */
static int apply_opts(const struct opts *o, json_t *run, bool fill_only)
{
	const char *strs[3][2] = {{"system", o->system}, {"application", o->application},
				  {"variant", o->variant}};
	const char *nums[5][2] = {{"p", o->p}, {"n", o->n}, {"chi", o->chi}, {"gamma", o->gamma},
				  {"frequency_mhz", o->frequency}};
	json_t *labels;
	int i;

	for (i = 0; i < 3; i++)
		if (strs[i][1] && (!fill_only || !json_object_get(run, strs[i][0])))
			json_object_set_new(run, strs[i][0], json_string(strs[i][1]));
	for (i = 0; i < 5; i++)
		if (nums[i][1] && (!fill_only || !json_object_get(run, nums[i][0]))) {
			if (set_num(run, nums[i][0], nums[i][1], nums[i][0]))
				return -1;
			/* an option's chi replaces the data's gamma, and the reverse */
			if (!strcmp(nums[i][0], "chi"))
				json_object_del(run, "gamma");
			if (!strcmp(nums[i][0], "gamma") && !o->chi)
				json_object_del(run, "chi");
		}
	if (o->nlabels) {
		labels = json_object_get(run, "labels");
		if (!json_is_object(labels)) {
			labels = json_object();
			json_object_set_new(run, "labels", labels);
		}
		for (i = 0; i < o->nlabels; i++) {
			const char *eq = strchr(o->labels[i], '=');
			char key[128];

			if (!eq || eq == o->labels[i]) {
				fprintf(stderr, "karte-collect: --label takes KEY=VALUE\n");
				return -1;
			}
			snprintf(key, sizeof(key), "%.*s", (int)(eq - o->labels[i]), o->labels[i]);
			json_object_set_new(labels, key, json_string(eq + 1));
		}
	}
	return 0;
}

/* Append one run as an NDJSON line, with a key when it has none. */
static void add_line(struct buf *b, json_t *run, size_t index, bool random)
{
	char key[40], *s;
	size_t l;

	if (!json_object_get(run, "idempotency_key")) {
		if (random)
			random_key(key);
		else
			content_key(run, index, key);
		json_object_set_new(run, "idempotency_key", json_string(key));
	}
	s = jsonw_string(run, NULL);
	l = strlen(s);
	b->p = realloc(b->p, b->len + l + 2);
	memcpy(b->p + b->len, s, l);
	b->len += l;
	b->p[b->len++] = '\n';
	b->p[b->len] = '\0';
	free(s);
}

/* ---- CSV --------------------------------------------------------------------------- */

struct csv_in {
	const char *file;
	const struct opts *o;
	long line;
	char *f[64];
	size_t nf;
	char *head[64];
	size_t nhead;
	struct buf out;
	size_t runs;
	char err[512];
};

static void csv_field(void *s, size_t len, void *ctx)
{
	struct csv_in *c = ctx;
	char *v = malloc(len + 1), *cell;

	memcpy(v, s, len);
	v[len] = '\0';
	cell = (char *)csv_cell_unescape(v);	/* karte's exports: '=... is =... */
	if (cell != v)
		memmove(v, cell, strlen(cell) + 1);
	if (c->nf < 64)
		c->f[c->nf++] = v;
	else
		free(v);
}

static bool known_column(const char *h)
{
	static const char *const cols[] = {"system", "application", "variant", "p", "n", "tau",
					   "chi", "gamma", "frequency_mhz", "power_cap_w",
					   "energy_j", "measured_at", "idempotency_key"};
	size_t i;

	if (!strncmp(h, "label.", 6) && h[6])
		return true;
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (!strcmp(h, cols[i]))
			return true;
	return false;
}

static void csv_row(int ch, void *ctx)
{
	struct csv_in *c = ctx;
	json_t *run, *labels = NULL;
	size_t i;

	(void)ch;
	c->line++;
	if (c->err[0])
		goto out;
	if (c->line == 1) {
		for (i = 0; i < c->nf; i++) {
			if (!known_column(c->f[i])) {
				snprintf(c->err, sizeof(c->err), "%s:1: unknown column '%s' (known: "
					 "system, application, variant, p, n, tau, chi, gamma, "
					 "frequency_mhz, power_cap_w, energy_j, measured_at, "
					 "idempotency_key, label.NAME)", c->file, c->f[i]);
				goto out;
			}
			c->head[c->nhead++] = c->f[i];
			c->f[i] = NULL;
		}
		goto out;
	}
	if (c->nf == 1 && !*c->f[0])
		goto out;	/* blank line */
	if (c->nf != c->nhead) {
		snprintf(c->err, sizeof(c->err), "%s:%ld: %zu fields, the header has %zu", c->file,
			 c->line, c->nf, c->nhead);
		goto out;
	}
	run = json_object();
	for (i = 0; i < c->nf; i++) {
		const char *h = c->head[i], *v = c->f[i];

		if (!*v)
			continue;	/* empty: not given */
		if (!strncmp(h, "label.", 6)) {
			if (!labels) {
				labels = json_object();
				json_object_set_new(run, "labels", labels);
			}
			json_object_set_new(labels, h + 6, json_string(v));
		} else if (!strcmp(h, "system") || !strcmp(h, "application") ||
			   !strcmp(h, "variant") || !strcmp(h, "measured_at") ||
			   !strcmp(h, "idempotency_key")) {
			json_object_set_new(run, h, json_string(v));
		} else {
			char what[200];

			snprintf(what, sizeof(what), "%s:%ld: %s", c->file, c->line, h);
			if (set_num(run, h, v, what)) {
				snprintf(c->err, sizeof(c->err), "%s:%ld: %s: '%s' is not a number",
					 c->file, c->line, h, v);
				json_decref(run);
				goto out;
			}
		}
	}
	if (apply_opts(c->o, run, true)) {
		snprintf(c->err, sizeof(c->err), "%s:%ld: bad options", c->file, c->line);
		json_decref(run);
		goto out;
	}
	add_line(&c->out, run, c->runs++, false);
	json_decref(run);
out:
	for (i = 0; i < c->nf; i++)
		free(c->f[i]);
	c->nf = 0;
}

/* A CSV file as NDJSON; the whole file or nothing. */
static int csv_to_ndjson(const char *file, const struct opts *o, struct buf *out)
{
	struct csv_in c = {0};
	struct csv_parser p;
	size_t len, i;
	char *all = read_input(file, slurp_cap("KARTE_MAX_BODY", LIMIT_BODY), BODY_LIMIT, &len);

	if (!all)
		return -1;
	c.file = file;
	c.o = o;
	csv_init(&p, CSV_APPEND_NULL);
	if (csv_parse(&p, all, len, csv_field, csv_row, &c) != len)
		snprintf(c.err, sizeof(c.err), "%s:%ld: %s", file, c.line + 1, csv_strerror(csv_error(&p)));
	csv_fini(&p, csv_field, csv_row, &c);
	csv_free(&p);
	free(all);
	for (i = 0; i < c.nhead; i++)
		free(c.head[i]);
	if (c.err[0]) {
		fprintf(stderr, "karte-collect: %s; nothing of %s is posted\n", c.err, file);
		free(c.out.p);
		return -1;
	}
	*out = c.out;
	return 0;
}

/* JSON (object or array) or NDJSON as NDJSON with keys and the options. */
static int json_to_ndjson(const char *file, const struct opts *o, struct buf *out)
{
	json_error_t je;
	json_t *root, *v;
	size_t i, index = 0, off = 0, n;
	char *all = read_input(file, slurp_cap("KARTE_MAX_BODY", LIMIT_BODY), BODY_LIMIT, &n);

	if (!all)
		return -1;
	root = json_loadb(all, n, JSON_DISABLE_EOF_CHECK, &je);
	if (root && (json_is_array(root) || json_is_object(root))) {
		/* JSON: one object, or an array; or NDJSON whose first line parsed alone */
		json_decref(root);
		while (off < n) {
			size_t used;

			root = json_loadb(all + off, n - off, JSON_DISABLE_EOF_CHECK, &je);
			if (!root) {
				const char *rest = all + off;

				while (*rest == ' ' || *rest == '\n' || *rest == '\r' || *rest == '\t')
					rest++;
				if (!*rest)
					break;
				fprintf(stderr, "karte-collect: %s: %s (line %d); nothing posted\n", file,
					je.text, je.line);
				free(all);
				free(out->p);
				return -1;
			}
			used = je.position;
			off += used ? used : n - off;
			if (json_is_object(root))
				root = json_pack("[o]", root);
			json_array_foreach(root, i, v) {
				if (!json_is_object(v) || apply_opts(o, v, true)) {
					fprintf(stderr, "karte-collect: %s: item %zu is not a run object\n",
						file, index);
					json_decref(root);
					free(all);
					free(out->p);
					return -1;
				}
				add_line(out, v, index++, false);
			}
			json_decref(root);
		}
		free(all);
		return 0;
	}
	fprintf(stderr, "karte-collect: %s: %s (line %d)\n", file, root ? "not a run" : je.text,
		je.line);
	json_decref(root);
	free(all);
	return -1;
}

static int cmd_post(const struct opts *o, int argc, char **argv)
{
	int i, rc = 0;

	if (argc < 1) {
		fprintf(stderr, "karte-collect: post needs FILE (JSON, NDJSON or CSV)\n");
		return 2;
	}
	for (i = 0; i < argc; i++) {
		struct buf b = {0};
		size_t l = strlen(argv[i]);
		int r = l > 4 && !strcasecmp(argv[i] + l - 4, ".csv") ? csv_to_ndjson(argv[i], o, &b) :
							      json_to_ndjson(argv[i], o, &b);

		if (r) {
			rc = 1;
			continue;
		}
		if (b.len)
			r = deliver(o, b.p, b.len);
		if (r > rc)
			rc = r;
		free(b.p);
	}
	return rc;
}

/* ---- run ------------------------------------------------------------------------------ */

/* What the program wrote: a JSON object, or "key value" lines. */
static json_t *read_results(const char *path)
{
	json_error_t je;
	char key[64], *all, *line, *next;
	size_t len;
	double v;
	json_t *r;
	struct kerr err;

	if (access(path, F_OK))
		return json_object();	/* the program wrote none */
	kerr_clear(&err);
	if (slurp(path, slurp_cap("KARTE_MAX_BODY", LIMIT_BODY), BODY_LIMIT, &all, &len, &err)) {
		fprintf(stderr, "karte-collect: %s; ignored\n", err.msg);
		return json_object();
	}
	line = all + strspn(all, " \n\t\r");
	if (*line == '{') {
		r = json_loadb(all, len, 0, &je);
		free(all);
		if (!json_is_object(r)) {
			fprintf(stderr, "karte-collect: %s: %s (line %d); ignored\n", path, je.text,
				je.line);
			json_decref(r);
			return json_object();
		}
		return r;
	}
	r = json_object();
	for (line = all; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%63s %lf", key, &v) == 2 &&
		    (!strcmp(key, "chi") || !strcmp(key, "gamma") || !strcmp(key, "tau") ||
		     !strcmp(key, "n") || !strcmp(key, "energy_j")))
			json_object_set_new(r, key, json_real(v));
	}
	free(all);
	return r;
}

static int cmd_run(const struct opts *o, int argc, char **argv)
{
	char dir[] = "/tmp/karte-collect-XXXXXX", results[64], key[40], host[128] = "";
	uint64_t e0[RAPL_MAX_DOMAINS], e1[RAPL_MAX_DOMAINS];
	struct rapl rapl;
	double t0, t1, energy = 0;
	json_t *run, *labels;
	struct buf b = {0};
	int status, rc;
	size_t d;
	pid_t pid;

	if (argc < 1) {
		fprintf(stderr, "karte-collect: run needs a command after --\n");
		return 2;
	}
	if (!mkdtemp(dir)) {
		fprintf(stderr, "karte-collect: cannot make a temporary directory: %s\n",
			strerror(errno));
		return 1;
	}
	snprintf(results, sizeof(results), "%s/run.json", dir);
	rapl_open(&rapl, NULL);
	if (rapl.n && rapl_read(&rapl, e0))
		rapl.n = 0;
	t0 = mono_s();
	pid = fork();
	if (pid == 0) {
		setenv("KARTE_RESULTS", results, 1);
		if (o->system)
			setenv("KARTE_SYSTEM", o->system, 1);
		if (o->application)
			setenv("KARTE_APPLICATION", o->application, 1);
		if (o->n)
			setenv("KARTE_N", o->n, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "karte-collect: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "karte-collect: cannot run %s: %s\n", argv[0], strerror(errno));
		return 1;
	}
	t1 = mono_s();
	if (rapl.n && rapl_read(&rapl, e1) == 0)
		for (d = 0; d < rapl.n; d++)
			energy += rapl_joules(e0[d], e1[d], rapl.d[d].max_range_uj);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "karte-collect: %s failed (%s %d); no run posted\n", argv[0],
			WIFEXITED(status) ? "exit status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		unlink(results);
		rmdir(dir);
		rapl_close(&rapl);
		return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	run = read_results(results);
	unlink(results);
	rmdir(dir);
	if (!json_object_get(run, "tau"))
		json_object_set_new(run, "tau", json_real(t1 - t0));
	if (rapl.n && !json_object_get(run, "energy_j"))
		json_object_set_new(run, "energy_j", json_real(energy));
	if (!rapl.n && !json_object_get(run, "energy_j"))
		fprintf(stderr, "karte-collect: note: no energy: %s; the run carries no energy_j\n", rapl.why);
	if (apply_opts(o, run, false)) {
		json_decref(run);
		rapl_close(&rapl);
		return 2;
	}
	if (!json_object_get(run, "chi") && !json_object_get(run, "gamma"))
		fprintf(stderr, "karte-collect: note: the run carries tau alone (no --chi or --gamma, "
			"and the program wrote neither to $KARTE_RESULTS); p-tau views and models "
			"use it, the isoefficiency analysis leaves it out\n");
	labels = json_object_get(run, "labels");
	if (!json_is_object(labels)) {
		labels = json_object();
		json_object_set_new(run, "labels", labels);
	}
	gethostname(host, sizeof(host) - 1);
	json_object_set_new(labels, "host", json_string(host));
	if (rapl.n) {
		char doms[256] = "";

		for (d = 0; d < rapl.n; d++)
			snprintf(doms + strlen(doms), sizeof(doms) - strlen(doms), "%s%s",
				 d ? "," : "", rapl.d[d].name);
		json_object_set_new(labels, "energy_domains", json_string(doms));
	}
	rapl_close(&rapl);
	random_key(key);
	json_object_set_new(run, "idempotency_key", json_string(key));
	add_line(&b, run, 0, true);
	json_decref(run);
	rc = deliver(o, b.p, b.len);
	free(b.p);
	return rc;
}

/* ---- import -------------------------------------------------------------------------- */

static void query_add(char *q, size_t size, const char *key, const char *value)
{
	char *e;
	size_t n = strlen(q);

	if (!value)
		return;
	e = curl_easy_escape(NULL, value, 0);
	snprintf(q + n, size - n, "%s%s=%s", n ? "&" : "?", key, e ? e : "");
	curl_free(e);
}

/* Names from a JSON array as "a, b, c". */
static void say_list(const char *what, json_t *a)
{
	json_t *v;
	size_t i;

	if (!json_array_size(a))
		return;
	fprintf(stderr, "  %s:", what);
	json_array_foreach(a, i, v) {
		if (i == 20) {
			fprintf(stderr, " ... (%zu in all)", json_array_size(a));
			break;
		}
		fprintf(stderr, "%s '%s'", i ? "," : "", json_string_value(v));
	}
	fputc('\n', stderr);
}

/* The import's query parameters as this tool's options: karted's answers
 * name what a request sends (p=NAME, n_value), the user typed flags. */
static const struct {
	const char *param, *flag;
} import_flags[] = {
	{"p", "--p-param"}, {"n", "--n-param"}, {"n_value", "--n-value"}, {"metric", "--metric"},
	{"region", "--region"}, {"chi_regions", "--chi-regions"}, {"gamma_regions", "--gamma-regions"},
	{"time_unit", "--time-unit"}, {"format", "--format"}, {"system", "--system"},
	{"application", "--application"}, {"variant", "--variant"},
};

/* The option for a parameter karted named ("col.tau" is "--col tau=..."). */
static const char *flag_of(const char *param)
{
	size_t i;

	if (!strncmp(param, "col.", 4))
		return "--col";
	for (i = 0; i < sizeof(import_flags) / sizeof(import_flags[0]); i++)
		if (!strcmp(import_flags[i].param, param))
			return import_flags[i].flag;
	return param;
}

/* text with "NAME=VALUE" of an import parameter as "--flag VALUE",
 * "col.F=H" as "--col F=H", and a parameter's name standing alone
 * (n_value, chi_regions) as its flag, into buf. */
static const char *as_flags(const char *text, char *buf, size_t size)
{
	size_t len = 0, i, k;
	const char *t = text ? text : "";

	while (*t && len + 1 < size) {
		bool word = t == text || !(isalnum((unsigned char)t[-1]) || t[-1] == '_' || t[-1] == '.');

		if (word && !strncmp(t, "col.", 4)) {
			len += (size_t)snprintf(buf + len, size - len, "--col ");
			t += 4;
			continue;
		}
		for (i = 0; word && i < sizeof(import_flags) / sizeof(import_flags[0]); i++) {
			k = strlen(import_flags[i].param);
			if (strncmp(t, import_flags[i].param, k) || isalnum((unsigned char)t[k]) || t[k] == '_' ||
			    (t[k] != '=' && !strchr(import_flags[i].param, '_')))	/* "a metric": a word */
				continue;
			len += (size_t)snprintf(buf + len, size - len, "%s%s", import_flags[i].flag,
						t[k] == '=' ? " " : "");
			t += k + (t[k] == '=');
			break;
		}
		if (word && i < sizeof(import_flags) / sizeof(import_flags[0]))
			continue;
		buf[len++] = *t++;
	}
	buf[len < size ? len : size - 1] = '\0';
	return buf;
}

/* ---- a directory of Score-P experiments, packed ---------------------------------- */

#define PACK_FILES_MAX 10000	/* .cubex files of one directory (as karted reads) */
#define PACK_DEPTH_MAX 8	/* folder levels searched under it */

struct pack {
	struct archive *a;
	size_t files, cap;
	const char *root;
	size_t links;		/* symbolic links met, followed none */
	char link[4096];	/* the first of them, to say */
};

static bool cubex_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 6 && !strcmp(name + n - 6, ".cubex");
}

/* Every .cubex under dir (relative path rel) into the tar; -1 said. */
static int pack_dir(struct pack *pk, const char *dir, const char *rel, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		fprintf(stderr, "karte-collect: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char path[4096], sub[4096];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		/* a link is never followed: it may lead out of the folder given, or
		 * round in a loop (each level packed again) */
		if (lstat(path, &st))
			continue;
		if (S_ISLNK(st.st_mode)) {
			if (!pk->links++)
				snprintf(pk->link, sizeof(pk->link), "%s", sub);
			continue;
		}
		if (S_ISDIR(st.st_mode) && depth < PACK_DEPTH_MAX) {
			rc = pack_dir(pk, path, sub, depth + 1);
		} else if (S_ISREG(st.st_mode) && cubex_name(e->d_name)) {
			struct archive_entry *ae;
			struct buf f = {0};

			if (++pk->files > PACK_FILES_MAX) {
				fprintf(stderr, "karte-collect: %s holds more than %d .cubex files; import it "
					"in parts\n", pk->root, PACK_FILES_MAX);
				rc = -1;
				break;
			}
			if (!(f.p = read_input(path, pk->cap, IMPORT_LIMIT, &f.len))) {
				rc = -1;
				break;
			}
			ae = archive_entry_new();
			archive_entry_set_pathname(ae, sub);
			archive_entry_set_size(ae, (la_int64_t)f.len);
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_perm(ae, 0644);
			if (archive_write_header(pk->a, ae) != ARCHIVE_OK ||
			    archive_write_data(pk->a, f.p, f.len) != (la_ssize_t)f.len) {
				fprintf(stderr, "karte-collect: the profiles under %s add up to more than %zu "
					"bytes (%s); nothing is sent\n", pk->root, pk->cap, IMPORT_LIMIT);
				rc = -1;
			}
			archive_entry_free(ae);
			free(f.p);
		}
	}
	closedir(d);
	return rc;
}

/* A directory of experiment directories as one tar (what format=cube
 * takes), in memory, bounded like a file; NULL said. */
static char *pack_cubes(const char *dir, size_t cap, size_t *len)
{
	struct pack pk = {archive_write_new(), 0, cap, dir, 0, ""};
	char *buf = malloc(cap + 1);
	size_t used = 0;
	int rc;

	if (!buf) {
		fprintf(stderr, "karte-collect: out of memory\n");
		archive_write_free(pk.a);
		return NULL;
	}
	archive_write_set_format_pax_restricted(pk.a);
	archive_write_set_bytes_in_last_block(pk.a, 1);
	archive_write_open_memory(pk.a, buf, cap, &used);
	rc = pack_dir(&pk, dir, "", 0);
	if (archive_write_close(pk.a) != ARCHIVE_OK && !rc) {
		fprintf(stderr, "karte-collect: the profiles under %s add up to more than %zu bytes "
			"(%s); nothing is sent\n", dir, cap, IMPORT_LIMIT);
		rc = -1;
	}
	archive_write_free(pk.a);
	if (pk.links)
		fprintf(stderr, "karte-collect: %s: %zu symbolic link%s skipped (%s%s): karte-collect stays in "
			"the folder it is given and follows no link\n", dir, pk.links, pk.links == 1 ? "" : "s",
			pk.link, pk.links > 1 ? " and others" : "");
	if (!rc && !pk.files) {
		fprintf(stderr, "karte-collect: %s holds no .cubex file (Score-P writes profile.cubex "
			"in each experiment directory, named like mm.x10y1z1.r1)\n", dir);
		rc = -1;
	}
	if (rc) {
		free(buf);
		return NULL;
	}
	fprintf(stderr, "karte-collect: %s: %zu profiles packed\n", dir, pk.files);
	*len = used;
	return buf;
}

static int cmd_import(const struct opts *o, int argc, char **argv)
{
	char q[8192] = "", path[8300], said[2048];
	struct post p = {NULL, "application/octet-stream", 3600, NULL, NULL, 0, -1};
	struct buf file = {0};
	json_t *w;
	size_t i;
	int k, rc = 1;
	bool is_dir;

	if (argc != 1) {
		fprintf(stderr, "karte-collect: import needs one FILE (see karte-collect --help)\n");
		return 2;
	}
	{
		struct stat st;

		/* a directory: Score-P's experiment directories, sent as one tar */
		is_dir = !stat(argv[0], &st) && S_ISDIR(st.st_mode);
	}
	file.p = is_dir ? pack_cubes(argv[0], slurp_cap("KARTE_MAX_IMPORT_BODY", LIMIT_IMPORT_BODY), &file.len) :
		 read_input(argv[0], slurp_cap("KARTE_MAX_IMPORT_BODY", LIMIT_IMPORT_BODY), IMPORT_LIMIT,
			    &file.len);
	if (!file.p)
		return 2;
	{
		/* the options as the import's query parameters */
		const char *const params[][2] = {
			{"format", o->format ? o->format : is_dir ? "cube" : NULL}, {"system", o->system}, {"application", o->application},
			{"variant", o->variant}, {"p", o->p_param}, {"n", o->n_param},
			{"n_value", o->n_value}, {"metric", o->metric}, {"region", o->region},
			{"chi_regions", o->chi_regions}, {"gamma_regions", o->gamma_regions},
			{"time_unit", o->time_unit},
		};

		for (i = 0; i < sizeof(params) / sizeof(params[0]); i++)
			query_add(q, sizeof(q), params[i][0], params[i][1]);
	}
	for (k = 0; k < o->ncols; k++) {
		const char *eq = strchr(o->cols[k], '=');
		char key[160];

		if (!eq || eq == o->cols[k] || !eq[1] || eq - o->cols[k] > 120) {
			fprintf(stderr, "karte-collect: --col takes FIELD=HEADER (got '%s')\n", o->cols[k]);
			free(file.p);
			return 2;
		}
		snprintf(key, sizeof(key), "col.%.*s", (int)(eq - o->cols[k]), o->cols[k]);
		query_add(q, sizeof(q), key, eq + 1);
	}
	snprintf(path, sizeof(path), "/api/v1/import%s", q);
	p.path = path;
	p.progress = argv[0];
	switch (post_body(o, &p, file.p ? file.p : "", file.len)) {
	case SENT:
		json_array_foreach(json_object_get(p.answer, "warnings"), i, w)
			fprintf(stderr, "karte-collect: warning: %s\n", as_flags(json_string_value(w), said,
										    sizeof(said)));
		if (p.status == 201)
			fprintf(stderr, "karte-collect: %s (%s): %lld runs from %lld points stored\n",
				argv[0], json_string_value(json_object_get(p.answer, "format")),
				json_integer_value(json_object_get(p.answer, "runs")),
				json_integer_value(json_object_get(p.answer, "points")));
		else
			fprintf(stderr, "karte-collect: %s (%s): imported before with these options: its "
				"%lld runs are stored, nothing new\n", argv[0],
				json_string_value(json_object_get(p.answer, "format")),
				json_integer_value(json_object_get(p.answer, "runs")));
		say_list("regions of the runs", json_object_get(p.answer, "regions"));
		rc = 0;
		break;
	case REJECTED:
		if (p.answer) {
			json_t *av = json_object_get(p.answer, "available");
			const char *field = json_string_value(json_object_get(p.answer, "field"));

			fprintf(stderr, "karte-collect: karted refused %s: %s%s%s%s\n", argv[0],
				as_flags(json_string_value(json_object_get(p.answer, "error")), said,
					 sizeof(said)),
				field ? " (" : "", field ? flag_of(field) : "", field ? ")" : "");
			json_array_foreach(json_object_get(p.answer, "warnings"), i, w)
				fprintf(stderr, "karte-collect: warning: %s\n",
					as_flags(json_string_value(w), said, sizeof(said)));
			if (av) {
				fprintf(stderr, "the file has\n");
				say_list("parameters", json_object_get(av, "parameters"));
				say_list("metrics", json_object_get(av, "metrics"));
				say_list("root regions", json_object_get(av, "roots"));
			}
		}
		fprintf(stderr, "karte-collect: nothing stored\n");
		break;
	default:
		fprintf(stderr, "karte-collect: karted could not be reached; nothing stored (run the "
			"import again later: it stores nothing twice)\n");
		rc = 2;
	}
	json_decref(p.answer);
	free(file.p);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"url", required_argument, NULL, 'U'}, {"token", required_argument, NULL, 'T'},
		{"spool-dir", required_argument, NULL, 'S'}, {"retries", required_argument, NULL, 'R'},
		{"dry-run", no_argument, NULL, 'D'}, {"system", required_argument, NULL, 's'},
		{"application", required_argument, NULL, 'a'}, {"variant", required_argument, NULL, 'v'},
		{"chi", required_argument, NULL, 'c'}, {"gamma", required_argument, NULL, 'g'},
		{"label", required_argument, NULL, 'l'}, {"frequency", required_argument, NULL, 'f'},
		{"p-param", required_argument, NULL, 1}, {"n-param", required_argument, NULL, 2},
		{"metric", required_argument, NULL, 3}, {"tau-region", required_argument, NULL, 4},
		{"region", required_argument, NULL, 4}, {"chi-regions", required_argument, NULL, 5},
		{"gamma-regions", required_argument, NULL, 6}, {"format", required_argument, NULL, 7},
		{"n-value", required_argument, NULL, 8}, {"time-unit", required_argument, NULL, 9},
		{"col", required_argument, NULL, 10},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	struct opts o = {0};
	const char *cmd, *env;
	int c, rc;

	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("karte-collect %s\n", KARTE_VERSION);
		return 0;
	}
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	o.url = (env = getenv("KARTE_URL")) && *env ? env : "http://127.0.0.1:8080";
	o.token = getenv("KARTE_TOKEN");
	o.spool = (env = getenv("KARTE_SPOOL_DIR")) && *env ? env : NULL;
	o.retries = 4;
	if (!strcmp(cmd, "import-extrap"))
		o.format = "extrap-text";
	optind = 2;
	/* run: "+" stops at the first operand, so the command's own options stay
	 * its own; the others take options before and after their files */
	while ((c = getopt_long(argc, argv, strcmp(cmd, "run") ? "p:n:h" : "+p:n:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'U': o.url = optarg; break;
		case 'T': o.token = optarg; break;
		case 'S': o.spool = optarg; break;
		case 'R': o.retries = atoi(optarg) < 0 ? 0 : atoi(optarg); break;
		case 'D': o.dry_run = true; break;
		case 's': o.system = optarg; break;
		case 'a': o.application = optarg; break;
		case 'v': o.variant = optarg; break;
		case 'p': o.p = optarg; break;
		case 'n': o.n = optarg; break;
		case 'c': o.chi = optarg; break;
		case 'g': o.gamma = optarg; break;
		case 'f': o.frequency = optarg; break;
		case 'l':
			if (o.nlabels < 32)
				o.labels[o.nlabels++] = optarg;
			break;
		case 1: o.p_param = optarg; break;
		case 2: o.n_param = optarg; break;
		case 3: o.metric = optarg; break;
		case 4: o.region = optarg; break;
		case 5: o.chi_regions = optarg; break;
		case 6: o.gamma_regions = optarg; break;
		case 7: o.format = optarg; break;
		case 8: o.n_value = optarg; break;
		case 9: o.time_unit = optarg; break;
		case 10:
			if (o.ncols == 32) {
				fprintf(stderr, "karte-collect: at most 32 --col\n");
				return 2;
			}
			o.cols[o.ncols++] = optarg;
			break;
		case 'h': fputs(usage, stdout); return 0;
		default: fprintf(stderr, "karte-collect: see karte-collect --help\n"); return 2;
		}
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (!strcmp(cmd, "run"))
		rc = cmd_run(&o, argc - optind, argv + optind);
	else if (!strcmp(cmd, "post"))
		rc = cmd_post(&o, argc - optind, argv + optind);
	else if (!strcmp(cmd, "flush"))
		rc = cmd_flush(&o);
	else if (!strcmp(cmd, "import") || !strcmp(cmd, "import-extrap"))
		rc = cmd_import(&o, argc - optind, argv + optind);
	else {
		fprintf(stderr, "karte-collect: unknown command '%s'; see karte-collect --help\n", cmd);
		rc = 2;
	}
	curl_global_cleanup();
	return rc;
}
