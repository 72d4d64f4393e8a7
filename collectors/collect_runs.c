/* karte-collect: runs built from options, CSV and JSON files; post and run (collect.h). */
#include <csv.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/jsonw.h"
#include "core/csvsafe.h"
#include "core/bounds.h"
#include "core/slurp.h"
#include "core/run.h"
#include "rapl.h"
#include "core/mono.h"
#include "collect.h"

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
int csv_to_ndjson(const char *file, const struct opts *o, struct buf *out)
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
int json_to_ndjson(const char *file, const struct opts *o, struct buf *out)
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

int cmd_post(const struct opts *o, int argc, char **argv)
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

/* argv run with $KARTE_RESULTS naming results (and the run's names in
 * the environment): its wall time and, where RAPL reads, the energy of
 * every domain meanwhile. 0 with *status, or -1 (said why) when it could
 * not be started. */
static int measure(const struct opts *o, char **argv, const char *results, struct rapl *rapl,
		   int *status, double *seconds, double *energy)
{
	uint64_t e0[RAPL_MAX_DOMAINS], e1[RAPL_MAX_DOMAINS];
	double t0;
	size_t d;
	pid_t pid;

	if (rapl->n && rapl_read(rapl, e0))
		rapl->n = 0;
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
	if (pid < 0 || waitpid(pid, status, 0) < 0) {
		fprintf(stderr, "karte-collect: cannot run %s: %s\n", argv[0], strerror(errno));
		return -1;
	}
	*seconds = mono_s() - t0;
	*energy = 0;
	if (rapl->n && rapl_read(rapl, e1) == 0)
		for (d = 0; d < rapl->n; d++)
			*energy += rapl_joules(e0[d], e1[d], rapl->d[d].max_range_uj);
	return 0;
}

/* The labels karte-collect adds: the host, and the energy's domains. */
static void run_labels(json_t *run, const struct rapl *rapl)
{
	json_t *labels = json_object_get(run, "labels");
	char host[128] = "", doms[256] = "";
	size_t d;

	if (!json_is_object(labels)) {
		labels = json_object();
		json_object_set_new(run, "labels", labels);
	}
	gethostname(host, sizeof(host) - 1);
	json_object_set_new(labels, "host", json_string(host));
	if (!rapl->n)
		return;
	for (d = 0; d < rapl->n; d++)
		snprintf(doms + strlen(doms), sizeof(doms) - strlen(doms), "%s%s", d ? "," : "",
			 rapl->d[d].name);
	json_object_set_new(labels, "energy_domains", json_string(doms));
}

int cmd_run(const struct opts *o, int argc, char **argv)
{
	char dir[] = "/tmp/karte-collect-XXXXXX", results[64], key[40];
	struct rapl rapl;
	double seconds, energy;
	json_t *run;
	struct buf b = {0};
	int status, rc;

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
	if (measure(o, argv, results, &rapl, &status, &seconds, &energy)) {
		rmdir(dir);
		rapl_close(&rapl);
		return 1;
	}
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
		json_object_set_new(run, "tau", json_real(seconds));
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
	run_labels(run, &rapl);
	rapl_close(&rapl);
	random_key(key);
	json_object_set_new(run, "idempotency_key", json_string(key));
	add_line(&b, run, 0, true);
	json_decref(run);
	rc = deliver(o, b.p, b.len);
	free(b.p);
	return rc;
}
