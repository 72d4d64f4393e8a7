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
