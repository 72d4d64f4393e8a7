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
#include <curl/curl.h>
#include <dirent.h>
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/version.h"
#include "collect.h"

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

/* The options: each a field of struct opts and how its text is taken. */
enum okind { O_TEXT, O_FLAG, O_RETRIES, O_LABEL, O_COL, O_HELP };

static const struct flag {
	const char *name;
	char letter;		/* its one-letter form, or 0 */
	enum okind kind;
	size_t at;		/* where in struct opts (O_TEXT, O_FLAG) */
} flags[] = {
#define AT(field) offsetof(struct opts, field)
	{"url", 0, O_TEXT, AT(url)}, {"token", 0, O_TEXT, AT(token)},
	{"spool-dir", 0, O_TEXT, AT(spool)}, {"retries", 0, O_RETRIES, 0},
	{"dry-run", 0, O_FLAG, AT(dry_run)}, {"system", 0, O_TEXT, AT(system)},
	{"application", 0, O_TEXT, AT(application)}, {"variant", 0, O_TEXT, AT(variant)},
	{"p", 'p', O_TEXT, AT(p)}, {"n", 'n', O_TEXT, AT(n)},
	{"chi", 0, O_TEXT, AT(chi)}, {"gamma", 0, O_TEXT, AT(gamma)},
	{"label", 0, O_LABEL, 0}, {"frequency", 0, O_TEXT, AT(frequency)},
	{"p-param", 0, O_TEXT, AT(p_param)}, {"n-param", 0, O_TEXT, AT(n_param)},
	{"metric", 0, O_TEXT, AT(metric)}, {"tau-region", 0, O_TEXT, AT(region)},
	{"region", 0, O_TEXT, AT(region)}, {"chi-regions", 0, O_TEXT, AT(chi_regions)},
	{"gamma-regions", 0, O_TEXT, AT(gamma_regions)}, {"format", 0, O_TEXT, AT(format)},
	{"n-value", 0, O_TEXT, AT(n_value)}, {"time-unit", 0, O_TEXT, AT(time_unit)},
	{"col", 0, O_COL, 0}, {"help", 'h', O_HELP, 0},
#undef AT
};
#define NFLAGS (sizeof(flags) / sizeof(flags[0]))

/* Option f with its text: 0, 1 after --help, or 2 after a message. */
static int take(struct opts *o, const struct flag *f, const char *text)
{
	switch (f->kind) {
	case O_TEXT:
		*(const char **)((char *)o + f->at) = text;
		return 0;
	case O_FLAG:
		*(bool *)((char *)o + f->at) = true;
		return 0;
	case O_RETRIES:
		o->retries = atoi(text) < 0 ? 0 : atoi(text);
		return 0;
	case O_LABEL:
		if (o->nlabels == 32) {
			fprintf(stderr, "karte-collect: at most 32 --label\n");
			return 2;
		}
		o->labels[o->nlabels++] = text;
		return 0;
	case O_COL:
		if (o->ncols == 32) {
			fprintf(stderr, "karte-collect: at most 32 --col\n");
			return 2;
		}
		o->cols[o->ncols++] = text;
		return 0;
	default:
		fputs(usage, stdout);
		return 1;
	}
}

/* The command's options, from argv[2] on, into o: optind of the first
 * operand, or -1 after --help, -2 after a message. */
static int read_flags(int argc, char **argv, const char *cmd, struct opts *o)
{
	struct option longopts[NFLAGS + 1];
	const struct flag *f;
	size_t i;
	int c, r;

	for (i = 0; i < NFLAGS; i++)
		longopts[i] = (struct option){flags[i].name,
					      flags[i].kind == O_FLAG || flags[i].kind == O_HELP ?
					      no_argument : required_argument, NULL, 256 + (int)i};
	longopts[NFLAGS] = (struct option){NULL, 0, NULL, 0};
	optind = 2;
	/* run: "+" stops at the first operand, so the command's own options stay
	 * its own; the others take options before and after their files */
	while ((c = getopt_long(argc, argv, strcmp(cmd, "run") ? "p:n:h" : "+p:n:h", longopts,
				NULL)) != -1) {
		f = NULL;
		if (c >= 256 && c < 256 + (int)NFLAGS)
			f = &flags[c - 256];
		for (i = 0; !f && c < 256 && i < NFLAGS; i++)
			if (flags[i].letter == c)
				f = &flags[i];
		if (!f) {
			fprintf(stderr, "karte-collect: see karte-collect --help\n");
			return -2;
		}
		if ((r = take(o, f, optarg)) != 0)
			return r == 1 ? -1 : -2;
	}
	return optind;
}

static int flush_cmd(const struct opts *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_flush(o);
}

static const struct {
	const char *name;
	int (*run)(const struct opts *o, int argc, char **argv);
} commands[] = {
	{"run", cmd_run}, {"post", cmd_post}, {"flush", flush_cmd},
	{"import", cmd_import}, {"import-extrap", cmd_import},
};

int main(int argc, char **argv)
{
	struct opts o = {0};
	const char *cmd, *env;
	size_t i;
	int first, rc = 2;

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
	first = read_flags(argc, argv, cmd, &o);
	if (first < 0)
		return first == -1 ? 0 : 2;
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name))
			break;
	if (i == sizeof(commands) / sizeof(commands[0])) {
		fprintf(stderr, "karte-collect: unknown command '%s'; see karte-collect --help\n", cmd);
		return 2;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = commands[i].run(&o, argc - first, argv + first);
	curl_global_cleanup();
	return rc;
}
