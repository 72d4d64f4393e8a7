/*
 * karte: the offline tool. `karte plot` draws karted's reports from files,
 * no server needed, through the same chart and report code.
 */
#include <csv.h>
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart.h"
#include "core/bounds.h"
#include "core/run.h"
#include "import/otf2in.h"
#include "render/report.h"
#include "core/slurp.h"
#include "core/version.h"
#include "core/xalloc.h"

static const char usage[] =
	"usage: karte plot KIND (--csv FILE ... | --model FILE) -o OUT [options]\n"
	"       karte correct --instrumented TRACE --reference TRACE [-o OUT.json] [--plot OUT]\n"
	"       karte trace ARCHIVE.otf2           (the trace as JSON)\n"
	"\n"
	"Draw one of karted's reports offline. KIND is isoefficiency, efficiency,\n"
	"energy or energy-shares; the format follows OUT's extension (.svg, .png,\n"
	".pdf).\n"
	"\n"
	"  --csv FILE        runs with a header line: p, n, tau, and chi or gamma;\n"
	"                    optional system, application, variant (rows of each\n"
	"                    series are overlaid; without them a file is one series)\n"
	"                    and frequency_mhz (see --frequency). Repeat to overlay files.\n"
	"  --model FILE      for energy and energy-shares: the JSON body of\n"
	"                    POST /api/v1/analysis/energy/model ({f_std, regions})\n"
	"  -o, --output OUT  the image to write\n"
	"  --width PX, --height PX   size, 200 to 4000 (default 800 x 600)\n"
	"  --base P,N        isoefficiency: draw this run's line with regions (I), (II)\n"
	"  --tolerance X     absolute tolerance on efficiency (default 1e-9), or auto:\n"
	"                    both tolerances from each series' spread of repeated\n"
	"                    runs, as karted's tolerance=auto\n"
	"  --c2-rtol X       C2 when |dtau/tau| <= X (default 0.02)\n"
	"  --frequency MHZ   use only the rows at this frequency_mhz\n"
	"  --max-p P         energy: predict up to P nodes (default 4096)\n"
	"  --scale S         PNG: device pixels per px, 1 to 4 (default 1)\n"
	"  -h, --help        this text\n"
	"  --version         print the version\n"
	"\n"
	"correct: Osaka et al.'s correction of a power trace taken under a heavy\n"
	"profiler against a light reference run. TRACE is an OTF2 archive (its\n"
	"anchor .otf2 file: the power metric's samples, segments from the Enter/\n"
	"Leave events) or JSON {\"samples\": [{t, p}], \"segments\": [{name, start,\n"
	"end}]}. Segments are matched by name and order of appearance.\n"
	"\n"
	"example:\n"
	"  karte plot isoefficiency --csv runs.csv --base 10,39200 -o iso.svg\n"
	"  karte correct --instrumented scorep/traces.otf2 --reference light/traces.otf2 -o c.json\n";

#define SERIES_MAX 8

struct series_acc {
	char name[400];
	struct ka_run *runs;
	size_t n, cap;
};

struct csv_state {
	const char *file;
	long line;		/* 1-based row of the file */
	int col[8];		/* index of p, n, tau, chi, gamma, system, application, variant */
	int freq_col;
	size_t field;
	char *fields[32];
	size_t nfields;
	bool header_done;
	double only_freq;	/* NAN: every row */
	struct series_acc *series;
	size_t *nseries;
	char err[512];
};

enum { C_P, C_N, C_TAU, C_CHI, C_GAMMA, C_SYS, C_APP, C_VAR };

static void on_field(void *s, size_t len, void *ctx)
{
	struct csv_state *st = ctx;

	if (st->nfields < 32)
		st->fields[st->nfields++] = xstrndup(s, len);
}

static int number(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return *s && !*end && !errno && isfinite(*out) ? 0 : -1;
}

static struct series_acc *series_for(struct csv_state *st, const char *name)
{
	size_t i;

	for (i = 0; i < *st->nseries; i++)
		if (!strcmp(st->series[i].name, name))
			return &st->series[i];
	if (*st->nseries == SERIES_MAX)
		return NULL;
	snprintf(st->series[*st->nseries].name, sizeof(st->series[0].name), "%s", name);
	return &st->series[(*st->nseries)++];
}

static void header(struct csv_state *st)
{
	static const char *const names[8] = {"p", "n", "tau", "chi", "gamma", "system",
					     "application", "variant"};
	size_t i, j;

	for (j = 0; j < 8; j++)
		st->col[j] = -1;
	st->freq_col = -1;
	for (i = 0; i < st->nfields; i++) {
		for (j = 0; j < 8; j++)
			if (!strcmp(st->fields[i], names[j]))
				st->col[j] = (int)i;
		if (!strcmp(st->fields[i], "frequency_mhz"))
			st->freq_col = (int)i;
	}
	if (st->col[C_P] < 0 || st->col[C_N] < 0 || st->col[C_TAU] < 0 ||
	    (st->col[C_CHI] < 0 && st->col[C_GAMMA] < 0))
		snprintf(st->err, sizeof(st->err),
			 "%s:1: the header must name p, n, tau and chi or gamma", st->file);
	st->header_done = true;
}

static const char *cell(struct csv_state *st, int c)
{
	return c >= 0 && (size_t)c < st->nfields ? st->fields[c] : NULL;
}

static void row(struct csv_state *st)
{
	double p, n, tau, chi, f;
	const char *s;
	char name[400];
	struct series_acc *acc;

	if (cell(st, st->col[C_P]) == NULL && st->nfields <= 1)
		return;	/* blank line */
	if (number(cell(st, st->col[C_P]) ? cell(st, st->col[C_P]) : "", &p) || p < 1 || p > 1e9 ||
	    p != floor(p)) {
		snprintf(st->err, sizeof(st->err), "%s:%ld: p must be a whole number from 1 to 1e9",
			 st->file, st->line);
		return;
	}
	if (number(cell(st, st->col[C_N]) ? cell(st, st->col[C_N]) : "", &n) || !(n > 0)) {
		snprintf(st->err, sizeof(st->err), "%s:%ld: n must be a number above 0", st->file,
			 st->line);
		return;
	}
	if (number(cell(st, st->col[C_TAU]) ? cell(st, st->col[C_TAU]) : "", &tau) || !(tau > 0)) {
		snprintf(st->err, sizeof(st->err), "%s:%ld: tau must be a number above 0 (seconds)",
			 st->file, st->line);
		return;
	}
	if ((s = cell(st, st->col[C_CHI])) && *s) {
		if (number(s, &chi) || chi < 0 || chi > tau) {
			snprintf(st->err, sizeof(st->err), "%s:%ld: chi must be from 0 to tau",
				 st->file, st->line);
			return;
		}
	} else if (number(cell(st, st->col[C_GAMMA]) ? cell(st, st->col[C_GAMMA]) : "", &chi) || chi < 0 ||
		   chi > tau) {
		snprintf(st->err, sizeof(st->err), "%s:%ld: give chi or gamma, from 0 to tau",
			 st->file, st->line);
		return;
	} else {
		chi = tau - chi;	/* the column was gamma */
	}
	if (!isnan(st->only_freq) &&
	    (number(cell(st, st->freq_col) ? cell(st, st->freq_col) : "", &f) || f != st->only_freq))
		return;
	if (cell(st, st->col[C_SYS]) || cell(st, st->col[C_APP]))
		snprintf(name, sizeof(name), "%s:%s%s%s", cell(st, st->col[C_SYS]) ? cell(st, st->col[C_SYS]) : "",
			 cell(st, st->col[C_APP]) ? cell(st, st->col[C_APP]) : "",
			 cell(st, st->col[C_VAR]) && *cell(st, st->col[C_VAR]) ? ":" : "",
			 cell(st, st->col[C_VAR]) ? cell(st, st->col[C_VAR]) : "");
	else
		snprintf(name, sizeof(name), "%s", st->file);
	acc = series_for(st, name);
	if (!acc) {
		snprintf(st->err, sizeof(st->err), "%s:%ld: more than %d series to overlay", st->file,
			 st->line, SERIES_MAX);
		return;
	}
	if (acc->n == LIMIT_SERIES_RUNS) {
		snprintf(st->err, sizeof(st->err), "%s:%ld: series %s has more than %d runs, the most "
			 "karted's analyses read of one series", st->file, st->line, name, LIMIT_SERIES_RUNS);
		return;
	}
	if (acc->n == acc->cap) {
		acc->cap = acc->cap ? 2 * acc->cap : 256;
		acc->runs = xrealloc(acc->runs, acc->cap * sizeof(*acc->runs));
	}
	acc->runs[acc->n] = (struct ka_run){(int64_t)acc->n, (int64_t)p, n, tau, chi};
	acc->n++;
}

static void on_row(int c, void *ctx)
{
	struct csv_state *st = ctx;
	size_t i;

	(void)c;
	st->line++;
	if (!st->err[0]) {
		if (!st->header_done)
			header(st);
		else
			row(st);
	}
	for (i = 0; i < st->nfields; i++)
		free(st->fields[i]);
	st->nfields = 0;
}

/* The inputs karted would take, read whole: a CSV of runs as a file to
 * import, a JSON body as a what-if analysis' body. NULL after saying why. */
#define CSV_LIMIT "karted's --max-import-body (KARTE_MAX_IMPORT_BODY)"
#define JSON_LIMIT "karted's limit of an analysis body"

static char *read_input(const char *file, size_t cap, const char *limit, size_t *len)
{
	struct kerr err;
	char *all;

	kerr_clear(&err);
	if (slurp(file, cap, limit, &all, len, &err)) {
		fprintf(stderr, "karte: %s\n", err.msg);
		return NULL;
	}
	return all;
}

static json_t *read_json(const char *file)
{
	json_error_t je;
	size_t len;
	char *all = read_input(file, LIMIT_ANALYSIS_BODY, JSON_LIMIT, &len);
	json_t *root;

	if (!all)
		return NULL;
	root = json_loadb(all, len, 0, &je);
	free(all);
	if (!root)
		fprintf(stderr, "karte: %s:%d: %s\n", file, je.line, je.text);
	return root;
}

static int read_csv(const char *file, double only_freq, struct series_acc *series,
		    size_t *nseries)
{
	struct csv_state st = {0};
	struct csv_parser p;
	size_t len;
	char *all = read_input(file, slurp_cap("KARTE_MAX_IMPORT_BODY", LIMIT_IMPORT_BODY), CSV_LIMIT,
			       &len);

	if (!all)
		return -1;
	st.file = file;
	st.only_freq = only_freq;
	st.series = series;
	st.nseries = nseries;
	csv_init(&p, CSV_APPEND_NULL);
	if (csv_parse(&p, all, len, on_field, on_row, &st) != len && !st.err[0])
		snprintf(st.err, sizeof(st.err), "%s:%ld: %s", file, st.line + 1,
			 csv_strerror(csv_error(&p)));
	csv_fini(&p, on_field, on_row, &st);
	csv_free(&p);
	free(all);
	if (st.err[0]) {
		fprintf(stderr, "karte: %s\n", st.err);
		return -1;
	}
	return 0;
}

/* The energy model body: {"f_std", "regions": [...]} ("p" ignored). */
static int read_model(const char *file, struct report_series *rs, struct ka_region_model **m,
		      const char ***names, json_t **root)
{
	json_t *regs = NULL;
	struct numbers p = {NULL, 0};
	const struct field f[] = {
		{"f_std", FIELD_NUMBER, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL, &rs->f_std, 0},
		{"regions", FIELD_ARRAY, FIELD_REQUIRED, 1, RUN_REGIONS_MAX, &regs, 0},
		{"p", FIELD_NUMBERS, 0, 1, HUGE_VAL, &p, 16384},	/* the what-if's, unused here */
	};
	struct kerr err;

	kerr_clear(&err);
	if (!(*root = read_json(file)))
		return -1;
	if (!fields_only(*root, FIELDS(f), &err)) {
		free(p.v);
		*m = xcalloc(json_array_size(regs), sizeof(**m));
		*names = xcalloc(json_array_size(regs), sizeof(**names));
		if (!report_regions_read(regs, *m, *names, &err)) {
			*rs = (struct report_series){.name = file, .regions = *m, .region_names = *names,
						     .nregions = json_array_size(regs), .f_std = rs->f_std};
			return 0;
		}
	}
	fprintf(stderr, "karte: %s: %s%s%s\n", file, err.field, *err.field ? ": " : "", err.msg);
	return -1;
}

static int write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len) {
		fprintf(stderr, "karte: cannot write '%s': %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

/* karte plot's command line: its files, and the report's options by name
 * as karted's query string names them (read by report_opts_read). */
struct plot_args {
	const char *csvs[SERIES_MAX], *model, *out;
	size_t ncsv;
	const char *key[16], *val[16];	/* --width 640 is width=640 */
	size_t nopts;
};

static const char *plot_opt(void *ctx, const char *key)
{
	const struct plot_args *a = ctx;
	const char *v = NULL;
	size_t i;

	for (i = 0; i < a->nopts; i++)	/* the last one given counts */
		if (!strcmp(a->key[i], key))
			v = a->val[i];
	return v;
}

/* -1: a usage error said; 1: --help said; 0: read. */
static int plot_args_read(int argc, char **argv, struct plot_args *a)
{
	static const struct option longopts[] = {
		{"csv", required_argument, NULL, 'c'},     {"model", required_argument, NULL, 'm'},
		{"output", required_argument, NULL, 'o'},  {"width", required_argument, NULL, 0},
		{"height", required_argument, NULL, 0},    {"base", required_argument, NULL, 0},
		{"tolerance", required_argument, NULL, 0}, {"c2-rtol", required_argument, NULL, 0},
		{"frequency", required_argument, NULL, 0}, {"max-p", required_argument, NULL, 0},
		{"scale", required_argument, NULL, 0},     {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const char *const keys[] = {NULL, NULL, NULL, "width", "height", "base", "tolerance",
					   "c2_rtol", "frequency", "max_p", "scale"};
	int c, at;

	memset(a, 0, sizeof(*a));
	optind = 2;
	while ((c = getopt_long(argc, argv, "o:h", longopts, &at)) != -1) {
		if (c == 0 && a->nopts < 16) {
			a->key[a->nopts] = keys[at];
			a->val[a->nopts++] = optarg;
		} else if (c == 'c' && a->ncsv < SERIES_MAX) {
			a->csvs[a->ncsv++] = optarg;
		} else if (c == 'm' || c == 'o') {
			*(c == 'm' ? &a->model : &a->out) = optarg;
		} else if (c == 'h') {
			fputs(usage, stdout);
			return 1;
		} else {
			if (c == 'c')
				fprintf(stderr, "karte: at most %d --csv files\n", SERIES_MAX);
			return -1;
		}
	}
	return 0;
}

/* The series of the plot: runs from the CSV files, or the energy model. */
static int plot_inputs(const char *kind_name, enum report_kind kind, const struct plot_args *a, double freq,
		       struct series_acc *acc, size_t *nacc, struct report_series *rs,
		       struct ka_region_model **m, const char ***names, json_t **root)
{
	size_t i;

	memset(rs, 0, SERIES_MAX * sizeof(*rs));
	if (!report_needs_runs(kind)) {
		if (!a->model) {
			fprintf(stderr, "karte: %s needs --model FILE\n", kind_name);
			return 2;
		}
		*nacc = 1;
		return read_model(a->model, &rs[0], m, names, root) ? 1 : 0;
	}
	if (!a->ncsv) {
		fprintf(stderr, "karte: %s needs --csv FILE\n", kind_name);
		return 2;
	}
	for (i = 0; i < a->ncsv; i++)
		if (read_csv(a->csvs[i], freq, acc, nacc))
			return 1;
	for (i = 0; i < *nacc; i++)
		rs[i] = (struct report_series){.name = acc[i].name, .runs = acc[i].runs, .nruns = acc[i].n};
	return 0;
}

static int plot_write(enum report_kind kind, struct report_series *rs, size_t n, const struct report_opts *o,
		      enum chart_format fmt, const char *out)
{
	struct report *rep = report_build(kind, rs, n, o);
	struct kerr err;
	char *data;
	size_t len;
	int rc = 1;

	kerr_clear(&err);
	if (chart_render(report_spec(rep), fmt, &data, &len, NULL, &err)) {
		fprintf(stderr, "karte: %s\n", err.msg);
	} else {
		rc = write_file(out, data, len) ? 1 : 0;
		free(data);
		if (rc == 0)
			fprintf(stderr, "karte: wrote %s (%zu bytes)\n", out, len);
	}
	report_free(rep);
	return rc;
}

static int cmd_plot(int argc, char **argv)
{
	struct series_acc acc[SERIES_MAX] = {{{0}, NULL, 0, 0}};
	struct report_series rs[SERIES_MAX];
	struct ka_region_model *m = NULL;
	const char **names = NULL, *ext;
	const struct field f = {"frequency", FIELD_NUMBER, 0, 0, HUGE_VAL, NULL, 0};
	struct field fq = f;
	struct plot_args a;
	struct report_opts o;
	json_t *root = NULL;
	size_t nacc = 0, i;
	double freq = NAN;
	enum report_kind kind;
	enum chart_format fmt;
	struct kerr err;
	int rc;

	if (argc < 2 || report_kind_parse(argv[1], &kind)) {
		fprintf(stderr, "karte: plot needs a KIND: isoefficiency, efficiency, energy or "
			"energy-shares (see karte --help)\n");
		return 2;
	}
	if ((rc = plot_args_read(argc, argv, &a)))
		return rc > 0 ? 0 : 2;
	kerr_clear(&err);
	fq.out = &freq;
	if (report_opts_read(plot_opt, &a, &o, &err) || fields_get(plot_opt, &a, NULL, &fq, 1, &err)) {
		for (i = 0; err.field[i]; i++)	/* c2_rtol is --c2-rtol */
			err.field[i] = err.field[i] == '_' ? '-' : err.field[i];
		fprintf(stderr, "karte: --%s: %s\n", err.field, err.msg);
		return 2;
	}
	if (!a.out || !(ext = strrchr(a.out, '.')) || chart_format_parse(ext + 1, &fmt)) {
		fprintf(stderr, "karte: give the image to write with -o OUT.svg|.png|.pdf\n");
		return 2;
	}
	rc = plot_inputs(argv[1], kind, &a, freq, acc, &nacc, rs, &m, &names, &root);
	if (rc == 0)
		rc = plot_write(kind, rs, nacc ? nacc : 1, &o, fmt, a.out);
	for (i = 0; i < nacc && i < SERIES_MAX; i++)
		free(acc[i].runs);
	free(m);
	free(names);
	json_decref(root);
	return rc;
}

/* A trace from an OTF2 anchor or a JSON file as karte trace writes it. */
static int load_trace(const char *file, struct otf2_trace *t)
{
	size_t l = strlen(file), i;
	json_t *root, *v;
	struct kerr err;

	if (l > 5 && !strcmp(file + l - 5, ".otf2")) {
		if (otf2_trace_read(file, t, &err)) {
			fprintf(stderr, "karte: %s\n", err.msg);
			return -1;
		}
		return 0;
	}
	memset(t, 0, sizeof(*t));
	root = read_json(file);
	if (!root)
		return -1;
	t->nsamples = json_array_size(json_object_get(root, "samples"));
	t->nsegments = json_array_size(json_object_get(root, "segments"));
	if (t->nsamples > LIMIT_TRACE_SAMPLES || t->nsegments > LIMIT_SEGMENTS) {
		fprintf(stderr, "karte: %s: more than %d samples or %d segments, karted's limits of a "
			"trace correction\n", file, LIMIT_TRACE_SAMPLES, LIMIT_SEGMENTS);
		json_decref(root);
		return -1;
	}
	t->samples = xcalloc(t->nsamples + 1, sizeof(*t->samples));
	t->segments = xcalloc(t->nsegments + 1, sizeof(*t->segments));
	json_array_foreach(json_object_get(root, "samples"), i, v)
		t->samples[i] = (struct ka_sample){json_number_value(json_object_get(v, "t")),
						   json_number_value(json_object_get(v, "p"))};
	json_array_foreach(json_object_get(root, "segments"), i, v) {
		snprintf(t->segments[i].name, sizeof(t->segments[i].name), "%s",
			 json_string_value(json_object_get(v, "name")) ?
				 json_string_value(json_object_get(v, "name")) : "");
		t->segments[i].start = json_number_value(json_object_get(v, "start"));
		t->segments[i].end = json_number_value(json_object_get(v, "end"));
	}
	json_decref(root);
	if (!t->nsamples) {
		fprintf(stderr, "karte: %s: no samples\n", file);
		otf2_trace_free(t);
		return -1;
	}
	return 0;
}

static json_t *trace_json(const struct otf2_trace *t)
{
	json_t *s = json_array(), *g = json_array();
	size_t i;

	for (i = 0; i < t->nsamples; i++)
		json_array_append_new(s, json_pack("{s:f,s:f}", "t", t->samples[i].t, "p",
						   t->samples[i].p));
	for (i = 0; i < t->nsegments; i++)
		json_array_append_new(g, json_pack("{s:s,s:f,s:f}", "name", t->segments[i].name,
						   "start", t->segments[i].start, "end",
						   t->segments[i].end));
	return json_pack("{s:s,s:o,s:o}", "metric", t->metric, "samples", s, "segments", g);
}

static int cmd_trace(int argc, char **argv)
{
	struct otf2_trace t;
	json_t *j;

	if (argc != 2) {
		fprintf(stderr, "karte: trace needs one ARCHIVE.otf2\n");
		return 2;
	}
	if (load_trace(argv[1], &t))
		return 1;
	j = trace_json(&t);
	json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	putchar('\n');
	json_decref(j);
	otf2_trace_free(&t);
	return 0;
}

/* Pair the segments of two traces by name and order of appearance. */
static int pair_segments(const struct otf2_trace *a, const struct otf2_trace *b,
			 struct ka_segment *out)
{
	size_t i, j, seen, want;

	if (a->nsegments != b->nsegments) {
		fprintf(stderr, "karte: the traces have %zu and %zu segments\n", a->nsegments,
			b->nsegments);
		return -1;
	}
	for (i = 0; i < a->nsegments; i++) {
		for (want = 0, j = 0; j < i; j++)
			want += !strcmp(a->segments[j].name, a->segments[i].name);
		for (seen = 0, j = 0; j < b->nsegments; j++)
			if (!strcmp(b->segments[j].name, a->segments[i].name) && seen++ == want)
				break;
		if (j == b->nsegments) {
			fprintf(stderr, "karte: segment '%s' (#%zu) is not in the reference\n",
				a->segments[i].name, want + 1);
			return -1;
		}
		out[i] = (struct ka_segment){a->segments[i].start, a->segments[i].end,
					     b->segments[j].start, b->segments[j].end};
	}
	return 0;
}

static int cmd_correct(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"instrumented", required_argument, NULL, 'i'}, {"reference", required_argument, NULL, 'r'},
		{"output", required_argument, NULL, 'o'}, {"plot", required_argument, NULL, 'p'},
		{NULL, 0, NULL, 0},
	};
	const char *inst_f = NULL, *ref_f = NULL, *out_f = NULL, *plot = NULL, *ext;
	struct otf2_trace a = {0}, b = {0};
	struct ka_segment *seg = NULL;
	struct ka_sample *out = NULL;
	double before, after;
	json_t *j, *c;
	size_t i;
	int opt, rc = 1;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
		if (opt == 'i')
			inst_f = optarg;
		else if (opt == 'r')
			ref_f = optarg;
		else if (opt == 'o')
			out_f = optarg;
		else if (opt == 'p')
			plot = optarg;
		else
			return 2;
	}
	if (!inst_f || !ref_f) {
		fprintf(stderr, "karte: correct needs --instrumented TRACE and --reference TRACE\n");
		return 2;
	}
	if (load_trace(inst_f, &a) || load_trace(ref_f, &b))
		goto out;
	seg = xcalloc(a.nsegments + 1, sizeof(*seg));
	out = xcalloc(a.nsamples, sizeof(*out));
	if (pair_segments(&a, &b, seg))
		goto out;
	if (ka_trace_correct(a.samples, a.nsamples, b.samples, b.nsamples, seg, a.nsegments, out, NULL)) {
		fprintf(stderr, "karte: the segments or samples are not in time order\n");
		goto out;
	}
	ka_trace_rms(a.samples, a.nsamples, b.samples, b.nsamples, &before);
	ka_trace_rms(out, a.nsamples, b.samples, b.nsamples, &after);
	c = json_array();
	for (i = 0; i < a.nsamples; i++)
		json_array_append_new(c, json_pack("{s:f,s:f}", "t", out[i].t, "p", out[i].p));
	j = json_pack("{s:o,s:{s:f,s:f,s:f},s:{s:f,s:f},s:I}", "corrected", c, "durations_s",
		      "instrumented", a.samples[a.nsamples - 1].t, "reference",
		      b.samples[b.nsamples - 1].t, "corrected", out[a.nsamples - 1].t,
		      "rms_power_error_w", "before", before, "after", after, "segments",
		      (json_int_t)a.nsegments);
	if (out_f ? json_dump_file(j, out_f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) :
		    json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(17))) {
		fprintf(stderr, "karte: cannot write %s\n", out_f ? out_f : "the answer");
		json_decref(j);
		goto out;
	}
	json_decref(j);
	fprintf(stderr, "karte: %zu segments; RMS power error %.3g W before, %.3g W after\n",
		a.nsegments, before, after);
	rc = 0;
	if (plot) {
		struct report_opts o = report_opts_default();
		enum chart_format fmt;
		struct report *rep;
		struct kerr err;
		char *data;
		size_t len;

		ext = strrchr(plot, '.');
		if (!ext || chart_format_parse(ext + 1, &fmt)) {
			fprintf(stderr, "karte: %s: the plot must end in .svg, .png or .pdf\n", plot);
			rc = 2;
			goto out;
		}
		const char **names = xcalloc(a.nsegments + 1, sizeof(*names));
		struct report_trace in = {.inst = a.samples, .ref = b.samples, .corrected = out,
					  .n = a.nsamples, .m = b.nsamples, .seg = seg,
					  .names = names, .k = a.nsegments};

		for (i = 0; i < a.nsegments; i++)
			names[i] = a.segments[i].name;
		rep = report_build_trace(&in, &o);
		free(names);
		kerr_clear(&err);
		if (chart_render(report_spec(rep), fmt, &data, &len, NULL, &err)) {
			fprintf(stderr, "karte: %s\n", err.msg);
			rc = 1;
		} else {
			rc = write_file(plot, data, len) ? 1 : 0;
			free(data);
		}
		report_free(rep);
	}
out:
	otf2_trace_free(&a);
	otf2_trace_free(&b);
	free(seg);
	free(out);
	return rc;
}

int main(int argc, char **argv)
{
	gsl_set_error_handler_off();
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("karte %s\n", KARTE_VERSION);
		return 0;
	}
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "plot"))
		return cmd_plot(argc - 1, argv + 1);
	if (!strcmp(argv[1], "correct"))
		return cmd_correct(argc - 1, argv + 1);
	if (!strcmp(argv[1], "trace"))
		return cmd_trace(argc - 1, argv + 1);
	fprintf(stderr, "karte: unknown command '%s'; see karte --help\n", argv[1]);
	return 2;
}
