/* karted: the karte daemon and its administration commands. */
#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "store/checkpointer.h"
#include "store/copy.h"
#include "api/karted.h"
#include "track/webhook.h"
#include "core/version.h"
#include "core/token.h"
#include "core/klog.h"


static const char usage[] =
	"usage: karted COMMAND [OPTIONS]\n"
	"\n"
	"karte's daemon: stores measured runs of parallel programs and serves\n"
	"scalability and energy analyses over HTTP.\n"
	"\n"
	"commands:\n"
	"  serve                 run the HTTP service (the default command)\n"
	"  token create NAME     make a write token; prints only the token\n"
	"  token list            list tokens (names and dates; tokens are stored hashed)\n"
	"  token revoke NAME     revoke a token\n"
	"  migrate               create or migrate the database, then exit (instances\n"
	"                        that start together migrate once: the first takes a lock)\n"
	"  copy --from DB --to DB  copy a whole database into another, e.g. SQLite into\n"
	"                        PostgreSQL; streams runs in chunks (--chunk N, 10000),\n"
	"                        goes on where it stopped when run again, then checks\n"
	"                        row counts and a SHA-256 of every table on both sides\n"
	"  version               print the version\n"
	"\n";

static const char usage_options[] =
	"options (each also from the environment variable shown):\n"
	"  --db PATH|URI         an SQLite file, or a PostgreSQL database as\n"
	"                        postgresql://USER[:PASSWORD]@HOST[:PORT]/DB (several\n"
	"                        karted may share one)      KARTE_DB      (./data/karte.db)\n"
	"  --listen ADDR:PORT    address to serve on        KARTE_LISTEN  (127.0.0.1:8080)\n"
	"                        port 0 picks a free port; [::1]:8080 for IPv6\n"
	"  --max-body BYTES      largest request body       KARTE_MAX_BODY (8388608)\n"
	"  --max-import-body BYTES  largest file to import  KARTE_MAX_IMPORT_BODY (134217728)\n"
	"  --read-token          reads need a token too     KARTE_READ_TOKEN=1\n"
	"  --sync MODE           normal: a run survives karted's crash, not a power loss;\n"
	"                        full: also a power loss (fsync per commit)\n"
	"                                                   KARTE_SYNC    (normal)\n"
	"  --static DIR          browser UI files           KARTE_STATIC_DIR\n"
	"                        (PREFIX/share/karte/static when installed, else ./static)\n"
	"  --allowed-host NAME   serve requests whose Host is NAME too (repeatable; '*' for\n"
	"                        any); the listen address, localhost, 127.0.0.1 and [::1]\n"
	"                        are always served        KARTE_ALLOWED_HOSTS (comma-separated)\n"
	"  --max-body-memory BYTES  request bodies held at once, all clients together;\n"
	"                        past it 503 + Retry-After  KARTE_MAX_BODY_MEMORY (268435456)\n"
	"  --max-client-connections N  connections one source address may hold\n"
	"                                                   KARTE_MAX_CLIENT_CONNECTIONS (64)\n"
	"  --request-timeout S   a whole request (headers and body) must arrive within S\n"
	"                        seconds, however slowly it trickles; idle connections\n"
	"                        close after S too        KARTE_REQUEST_TIMEOUT (60)\n"
	"  --read-timeout S      a read (listing, analysis, report) running longer is\n"
	"                        stopped with 503 (fractions allowed; 0 for none)\n"
	"                                                   KARTE_READ_TIMEOUT (30)\n"
	"  --regression-check on|off  hold each POSTed run against the earlier runs of\n"
	"                        its point and store regressions as alerts\n"
	"                                                   KARTE_REGRESSION_CHECK (on)\n"
	"  --check-memory MIB    memory the check keeps its points' earlier runs in, so\n"
	"                        that a run is judged without reading them (1 to 65536;\n"
	"                        about 600 bytes a point of a few runs, 3 KiB of 36)\n"
	"                                                   KARTE_CHECK_MEMORY (256)\n"
	"  --access-log          a line on stderr for each request: method, path, status,\n"
	"                        milliseconds, request id (5xx always)  KARTE_ACCESS_LOG=1\n"
	"  --log-level LEVEL     error, warning, info or debug: what karted says on stderr\n"
	"                        ('karted: warning: ...'; under systemd the journal gets\n"
	"                        each line's priority)        KARTE_LOG_LEVEL (info)\n"
	"  --alert-webhook URL   POST each alert as JSON to URL (http or https),\n"
	"                        from a thread, retried 5 times with backoff\n"
	"                                                   KARTE_ALERT_WEBHOOK\n"
	"  --no-first-token      do not create a token on the first start\n"
	"  --version             print the version\n"
	"  -h, --help            this text\n"
	"\n"
	"examples:\n"
	"  karted serve --listen 127.0.0.1:8080 --db data/karte.db\n"
	"  karted serve --db postgresql://karte@db1/karte      (several behind one proxy)\n"
	"  karted copy --from data/karte.db --to postgresql://karte@db1/karte\n"
	"  TOKEN=$(karted token create ci --db data/karte.db)\n"
	"  curl -H \"Authorization: Bearer $TOKEN\" -H 'Content-Type: application/json' \\\n"
	"       -d '{\"system\":\"SP2\",\"application\":\"md\",\"p\":16,\"n\":80000,\"tau\":12.5,"
	"\"chi\":5.6}' \\\n"
	"       http://127.0.0.1:8080/api/v1/runs\n";

struct opts {
	const char *db;
	const char *from, *to;	/* karted copy */
	long long chunk;
	const char *listen;
	const char *static_dir;
	size_t max_body;
	bool read_token;
	bool access_log;
	bool sync_full;
	bool first_token;
	const char *allowed[17];	/* --allowed-host, NULL-ended */
	size_t nallowed;
	char allowed_env[1024];	/* KARTE_ALLOWED_HOSTS, split in place */
	unsigned max_client_conns;
	unsigned request_timeout_s;
	double read_timeout_s;	/* 0: none */
	size_t body_memory;
	size_t max_import;
	const char *alert_webhook;	/* NULL: none */
	bool regression_check;
	size_t check_memory;	/* bytes */
};

static int parse_unsigned(const char *what, const char *s, unsigned long long max,
			  unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (!*s || *end || errno || *out == 0 || *out > max) {
		fprintf(stderr, "karted: %s must be a whole number from 1 to %llu (got '%s')\n", what,
			max, s);
		return -1;
	}
	return 0;
}

/* Seconds from 0 (none) to an hour, fractions allowed. */
static int parse_seconds(const char *what, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (!*s || *end || errno || !(*out >= 0 && *out <= 3600)) {
		fprintf(stderr, "karted: %s must be a number of seconds from 0 (none) to 3600 "
			"(got '%s')\n", what, s);
		return -1;
	}
	return 0;
}

static int parse_on_off(const char *what, const char *s, bool *on)
{
	if (strcmp(s, "on") && strcmp(s, "off")) {
		fprintf(stderr, "karted: %s must be 'on' or 'off' (got '%s')\n", what, s);
		return -1;
	}
	*on = !strcmp(s, "on");
	return 0;
}

static int parse_sync(const char *what, const char *s, bool *full)
{
	if (!strcmp(s, "normal") || !strcmp(s, "full")) {
		*full = !strcmp(s, "full");
		return 0;
	}
	fprintf(stderr, "karted: %s must be 'normal' or 'full' (got '%s')\n", what, s);
	return -1;
}

static int parse_log_level(const char *what, const char *s)
{
	if (!klog_set_level(s))
		return 0;
	fprintf(stderr, "karted: %s must be error, warning, info or debug (got '%s')\n", what, s);
	return -1;
}

/* The browser UI's files: PREFIX/share/karte/static beside an installed
 * karted (PREFIX/sbin/karted), else ./static (the source tree, make run). */
static const char *default_static_dir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct stat sb;

	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';	/* PREFIX/sbin */
			if (snprintf(dir, sizeof(dir), "%s/../share/karte/static", exe) < (int)sizeof(dir) &&
			    !stat(dir, &sb) && S_ISDIR(sb.st_mode))
				return dir;
		}
	}
	return "static";
}

/* The numeric settings and their bounds. */
enum num_setting { N_MAX_BODY, N_CLIENT_CONNS, N_REQUEST_TIMEOUT, N_BODY_MEMORY, N_MAX_IMPORT,
		   N_CHECK_MEMORY, N_COUNT };

static const unsigned long long num_max[N_COUNT] = {
	[N_MAX_BODY] = 1ull << 32,
	[N_CLIENT_CONNS] = 1000,
	[N_REQUEST_TIMEOUT] = 3600,
	[N_BODY_MEMORY] = 1ull << 40,
	[N_MAX_IMPORT] = 1ull << 32,
	[N_CHECK_MEMORY] = WATCH_MEMORY_MAX >> 20,	/* MiB */
};

/* Set setting `which` from text (what: the option or variable, for the
 * message); -1 with the message printed. */
static int set_num(struct opts *o, enum num_setting which, const char *what, const char *text)
{
	unsigned long long v;

	if (parse_unsigned(what, text, num_max[which], &v))
		return -1;
	switch (which) {
	case N_MAX_BODY:
		o->max_body = (size_t)v;
		break;
	case N_CLIENT_CONNS:
		o->max_client_conns = (unsigned)v;
		break;
	case N_REQUEST_TIMEOUT:
		o->request_timeout_s = (unsigned)v;
		break;
	case N_MAX_IMPORT:
		o->max_import = (size_t)v;
		break;
	case N_CHECK_MEMORY:
		o->check_memory = (size_t)v << 20;
		break;
	default:
		o->body_memory = (size_t)v;
		break;
	}
	return 0;
}

static int add_allowed(struct opts *o, const char *host)
{
	if (!*host || strlen(host) > 255) {
		fprintf(stderr, "karted: --allowed-host takes a host name of 1 to 255 bytes\n");
		return -1;
	}
	if (o->nallowed == sizeof(o->allowed) / sizeof(o->allowed[0]) - 1) {
		fprintf(stderr, "karted: at most %zu --allowed-host names\n", o->nallowed);
		return -1;
	}
	o->allowed[o->nallowed++] = host;
	return 0;
}

/* karted's settings: each an option, most also an environment variable
 * (read first; the option wins), and how its text is taken. */
enum kind {
	K_TEXT,		/* a string kept as given (an empty variable counts as unset) */
	K_ON,		/* a flag; its variable on when "1" */
	K_OFF,		/* a flag that turns a default off */
	K_NUM,		/* a whole number, bounded by num_max[num] */
	K_SECONDS,	/* 0 to 3600 seconds */
	K_ON_OFF,	/* "on" or "off" */
	K_SYNC,		/* "normal" or "full" */
	K_LOG,		/* a log level */
	K_HOST,		/* an allowed Host name; the variable a comma-separated list */
	K_CHUNK,	/* karted copy's rows a transaction */
	K_HELP,
	K_VERSION,
};

struct setting {
	const char *opt, *env;
	enum kind kind;
	size_t at;		/* where in struct opts (K_TEXT, K_ON, K_OFF, K_SECONDS, K_ON_OFF, K_SYNC) */
	enum num_setting num;	/* K_NUM */
};

#define AT(field) offsetof(struct opts, field)
static const struct setting settings[] = {
	{"db", "KARTE_DB", K_TEXT, AT(db), 0},
	{"listen", "KARTE_LISTEN", K_TEXT, AT(listen), 0},
	{"static", "KARTE_STATIC_DIR", K_TEXT, AT(static_dir), 0},
	{"max-body", "KARTE_MAX_BODY", K_NUM, 0, N_MAX_BODY},
	{"max-client-connections", "KARTE_MAX_CLIENT_CONNECTIONS", K_NUM, 0, N_CLIENT_CONNS},
	{"request-timeout", "KARTE_REQUEST_TIMEOUT", K_NUM, 0, N_REQUEST_TIMEOUT},
	{"max-body-memory", "KARTE_MAX_BODY_MEMORY", K_NUM, 0, N_BODY_MEMORY},
	{"max-import-body", "KARTE_MAX_IMPORT_BODY", K_NUM, 0, N_MAX_IMPORT},
	{"check-memory", "KARTE_CHECK_MEMORY", K_NUM, 0, N_CHECK_MEMORY},
	{"read-timeout", "KARTE_READ_TIMEOUT", K_SECONDS, AT(read_timeout_s), 0},
	{"read-token", "KARTE_READ_TOKEN", K_ON, AT(read_token), 0},
	{"access-log", "KARTE_ACCESS_LOG", K_ON, AT(access_log), 0},
	{"no-first-token", NULL, K_OFF, AT(first_token), 0},
	{"log-level", "KARTE_LOG_LEVEL", K_LOG, 0, 0},
	{"regression-check", "KARTE_REGRESSION_CHECK", K_ON_OFF, AT(regression_check), 0},
	{"sync", "KARTE_SYNC", K_SYNC, AT(sync_full), 0},
	{"allowed-host", "KARTE_ALLOWED_HOSTS", K_HOST, 0, 0},
	{"alert-webhook", "KARTE_ALERT_WEBHOOK", K_TEXT, AT(alert_webhook), 0},
	{"from", NULL, K_TEXT, AT(from), 0},
	{"to", NULL, K_TEXT, AT(to), 0},
	{"chunk", NULL, K_CHUNK, 0, 0},
	{"help", NULL, K_HELP, 0, 0},
	{"version", NULL, K_VERSION, 0, 0},
};
#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))

/* Setting s from text (NULL for a flag given as an option), what naming
 * the option or variable in a message: 0, -1 (message printed), -2 for
 * --help, -3 for --version. */
static int apply(struct opts *o, const struct setting *s, const char *what, const char *text)
{
	char *field = (char *)o + s->at;
	unsigned long long v;

	switch (s->kind) {
	case K_TEXT:
		*(const char **)field = text;
		return 0;
	case K_ON:
		*(bool *)field = !text || !strcmp(text, "1");
		return 0;
	case K_OFF:
		*(bool *)field = false;
		return 0;
	case K_NUM:
		return set_num(o, s->num, what, text);
	case K_SECONDS:
		return parse_seconds(what, text, (double *)field);
	case K_ON_OFF:
		return parse_on_off(what, text, (bool *)field);
	case K_SYNC:
		return parse_sync(what, text, (bool *)field);
	case K_LOG:
		return parse_log_level(what, text);
	case K_HOST:
		return add_allowed(o, text);
	case K_CHUNK:
		if (parse_unsigned(what, text, 1000000, &v))
			return -1;
		o->chunk = (long long)v;
		return 0;
	case K_HELP:
		return -2;
	default:
		return -3;
	}
}

/* The environment's settings: a K_TEXT variable when not empty, the rest
 * when set; KARTE_ALLOWED_HOSTS split at commas. */
static int apply_env(struct opts *o)
{
	const struct setting *s;
	const char *v;
	char *tok, *save;

	for (s = settings; s < settings + NSETTINGS; s++) {
		if (!s->env || !(v = getenv(s->env)) || (s->kind == K_TEXT && !*v))
			continue;
		if (s->kind != K_HOST) {
			if (apply(o, s, s->env, v))
				return -1;
			continue;
		}
		snprintf(o->allowed_env, sizeof(o->allowed_env), "%s", v);
		for (tok = strtok_r(o->allowed_env, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (add_allowed(o, tok))
				return -1;
	}
	return 0;
}

/* Options from the environment, then the command line. Returns optind of
 * the first operand, or -1 (message printed), -2 for --help, -3 for
 * --version. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	struct option longopts[NSETTINGS + 1];
	char what[64];
	size_t i;
	int c, r;

	memset(o, 0, sizeof(*o));
	o->db = "data/karte.db";
	o->listen = "127.0.0.1:8080";
	o->static_dir = default_static_dir();
	o->max_body = LIMIT_BODY;
	o->read_timeout_s = HTTP_READ_TIMEOUT_S;
	o->first_token = true;
	o->chunk = 10000;
	o->regression_check = true;
	if (apply_env(o))
		return -1;
	for (i = 0; i < NSETTINGS; i++) {
		bool flag = settings[i].kind == K_ON || settings[i].kind == K_OFF ||
			    settings[i].kind == K_HELP || settings[i].kind == K_VERSION;

		longopts[i] = (struct option){settings[i].opt, flag ? no_argument : required_argument, NULL,
					      256 + (int)i};
	}
	longopts[NSETTINGS] = (struct option){NULL, 0, NULL, 0};
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h')
			return -2;
		if (c < 256 || c >= 256 + (int)NSETTINGS) {
			fprintf(stderr, "karted: see 'karted --help'\n");
			return -1;
		}
		snprintf(what, sizeof(what), "--%s", settings[c - 256].opt);
		if ((r = apply(o, &settings[c - 256], what, optarg)) != 0)
			return r;
	}
	return optind;
}

/* Create the directory holding path when it is missing (one level). */
static void make_parent(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	if (store_is_uri(path))
		return;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	mkdir(dir, 0755);
}

static struct store *open_admin(const struct opts *o)
{
	struct kerr err;
	struct store *st;

	kerr_clear(&err);
	make_parent(o->db);
	st = store_open(o->db, STORE_MIGRATE, &err);
	if (!st)
		fprintf(stderr, "karted: %s\n", KERR_TEXT(&err));
	return st;
}

/* Make a token called name; the token goes to out. */
static int new_token(struct store *st, const char *name, char token[TOKEN_LEN + 1],
		     struct kerr *err)
{
	char hash[TOKEN_HASH_LEN + 1];

	if (!*name || strlen(name) > 64)
		return kerr_set(err, KERR_INVALID, "a token name must be 1 to 64 characters");
	if (token_generate(token))
		return kerr_set(err, KERR_INTERNAL, "cannot read random bytes for a token: %s", strerror(errno));
	token_hash(token, strlen(token), hash);
	return store_token_add(st, name, hash, err);
}

static int print_token(const char *name, const char *created, const char *revoked, void *ctx)
{
	(void)ctx;
	printf("%-24s created %s%s%s\n", name, created, revoked ? "  revoked " : "",
	       revoked ? revoked : "");
	return 0;
}

static int cmd_token(const struct opts *o, int argc, char **argv)
{
	char token[TOKEN_LEN + 1];
	struct kerr err;
	struct store *st;
	int rc = 1;

	kerr_clear(&err);
	if (argc < 1) {
		fprintf(stderr, "karted: token needs create NAME, list or revoke NAME\n");
		return 2;
	}
	if ((!strcmp(argv[0], "create") || !strcmp(argv[0], "revoke")) && argc != 2) {
		fprintf(stderr, "karted: token %s needs one NAME\n", argv[0]);
		return 2;
	}
	if (strcmp(argv[0], "create") && strcmp(argv[0], "revoke") && strcmp(argv[0], "list")) {
		fprintf(stderr, "karted: unknown token command '%s' (create, list, revoke)\n", argv[0]);
		return 2;
	}
	st = open_admin(o);
	if (!st)
		return 1;
	if (!strcmp(argv[0], "create")) {
		if (new_token(st, argv[1], token, &err) == 0) {
			printf("%s\n", token);	/* only the token: TOKEN=$(karted token create x) */
			rc = 0;
		}
	} else if (!strcmp(argv[0], "revoke")) {
		if (store_token_revoke(st, argv[1], &err) == 0) {
			fprintf(stderr, "karted: token '%s' revoked\n", argv[1]);
			rc = 0;
		}
	} else {
		rc = store_each_token(st, print_token, NULL, &err) < 0;
	}
	if (rc)
		fprintf(stderr, "karted: %s\n", KERR_TEXT(&err));
	store_close(st);
	return rc;
}

static int count_token(const char *name, const char *created, const char *revoked, void *ctx)
{
	(void)name;
	(void)created;
	(void)revoked;
	++*(int *)ctx;
	return 0;
}

/* On the first start (no token at all) make one and print it. Called once
 * the address is bound, so a start that fails (address taken, bad
 * options) leaves no token nobody saw. */
/* Where the first token goes when stdout is the journal (JOURNAL_STREAM:
 * systemd connected it), which keeps what it is given for every reader of
 * the log: $STATE_DIRECTORY/first-token, else first-token beside an SQLite
 * database; false when neither (a database on PostgreSQL outside a unit
 * with StateDirectory=). */
static bool token_file(const char *db, char *path, size_t size)
{
	const char *state = getenv("STATE_DIRECTORY"), *slash;

	if (state && *state && !strchr(state, ':')) {
		snprintf(path, size, "%s/first-token", state);
		return true;
	}
	if (store_is_uri(db))
		return false;
	slash = strrchr(db, '/');
	snprintf(path, size, "%.*s%sfirst-token", slash ? (int)(slash - db) : 0, db, slash ? "/" : "");
	return true;
}

/* Give the first write token to the operator: on stdout, or under
 * systemd into a file only its owner reads (the journal would keep it). */
static void show_first_token(const char *db, const char *token)
{
	char path[PATH_MAX];
	FILE *f;
	int fd;

	if (!getenv("JOURNAL_STREAM")) {
		printf("karted: first start: write token (shown once, stored hashed): %s\n", token);
		return;
	}
	if (!token_file(db, path, sizeof(path)))
		return;	/* first_start_token made none */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || fprintf(f, "%s\n", token) < 0 || fclose(f)) {
		if (!f && fd >= 0)
			close(fd);
		printf("karted: first start: a write token was made but %s could not be written (%s);"
		       " make one with: karted token create NAME --db ...\n", path, strerror(errno));
		return;
	}
	printf("karted: first start: a write token is in %s (mode 600; read it, then delete the file)\n", path);
}

static void first_start_token(const char *db)
{
	char token[TOKEN_LEN + 1], path[PATH_MAX];
	struct kerr err;
	struct store *st;
	int ntokens = 0;

	kerr_clear(&err);
	st = store_open(db, 0, &err);
	if (st && store_each_token(st, count_token, &ntokens, &err) == 0 && ntokens == 0) {
		if (getenv("JOURNAL_STREAM") && !token_file(db, path, sizeof(path)))
			printf("karted: first start: no write token made: the journal would keep it and there "
			       "is no StateDirectory= to put it in; make one with: karted token create NAME "
			       "--db ...\n");
		else if (new_token(st, "first-start", token, &err) == 0)
			show_first_token(db, token);
	}
	if (err.msg[0])
		klog(KLOG_WARNING, "no first-start token: %s", KERR_TEXT(&err));
	store_close(st);
}

const struct route *const karted_routes[] = {api_routes, api_import_routes, api_analysis_routes,
					     api_model_routes, api_region_routes, api_history_routes, api_alert_routes,
					     api_report_routes, api_method_routes, api_metric_routes,
					     api_openapi_routes, NULL};

/* The host part of ADDR:PORT as a browser would use it. */
static const char *shown_host(const char *listen, char *buf, size_t size)
{
	const char *colon = listen[0] == '[' ? strchr(listen, ']') + 1 : strrchr(listen, ':');

	snprintf(buf, size, "%.*s", (int)(colon - listen), listen);
	if (!strcmp(buf, "0.0.0.0") || !strcmp(buf, "localhost"))
		snprintf(buf, size, "127.0.0.1");
	else if (!strcmp(buf, "[::]"))
		snprintf(buf, size, "[::1]");
	return buf;
}

static int cmd_copy(const struct opts *o)
{
	static const char *const what[STORE_TABLES] = {
		[T_SERIES] = "series", [T_FLOOR] = "id floor", [T_TOKENS] = "tokens",
		[T_PVT] = "power variation rows", [T_IMPORTS] = "imports", [T_ALERTS] = "alerts",
		[T_RUNS] = "runs",
	};
	struct store_copy_result res;
	struct kerr err;
	char shown[512];
	int t;

	if (!o->from || !o->to) {
		fprintf(stderr, "karted: copy needs --from DB and --to DB (a path or a postgresql:// "
			"URI each)\n");
		return 2;
	}
	if (!strcmp(o->from, o->to)) {
		fprintf(stderr, "karted: copy: --from and --to are the same database\n");
		return 2;
	}
	kerr_clear(&err);
	make_parent(o->to);
	if (store_copy(o->from, o->to, o->chunk, stderr, &res, &err)) {
		fprintf(stderr, "karted: copy: %s\n", KERR_TEXT(&err));
		return 1;
	}
	printf("copied %s into %s: %lld new runs\n", o->from, store_shown(o->to, shown, sizeof(shown)),
	       (long long)res.runs_copied);
	for (t = 0; t < STORE_TABLES; t++)
		if (t != T_FLOOR)
			printf("  %-22s %lld on both\n", what[t], (long long)res.rows[t]);
	printf("  sha256 of every table   %s on both\n", res.checksum);
	return 0;
}

/* SIGINT and SIGTERM blocked in every thread (which inherit the mask)
 * and read from the descriptor returned, for the loop; SIGPIPE ignored.
 * -1 when the descriptor cannot be made. */
static int watch_signals(void)
{
	sigset_t sigs;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, &sigs, SFD_CLOEXEC);
}

/* A large import that a karted left half stored (killed between its
 * parts): what it stored goes; on PostgreSQL only when its last part is
 * over a minute old (another instance may be storing it now). */
static int discard_half_imports(struct store *st, const char *db, struct kerr *err)
{
	char stale[32];
	int64_t gone = 0;

	store_utc_text(time(NULL) - 60, 0, stale, sizeof(stale));
	if (store_begin(st, err) || store_import_discard(st, 0, store_is_uri(db) ? stale : NULL, &gone, err) ||
	    store_commit(st, err))
		return -1;
	if (gone)
		klog(KLOG_WARNING, "deleted the %lld runs of an import left half stored", (long long)gone);
	return 0;
}

/* The HTTP layer's settings from the options, with karted's handlers. */
static void http_config_of(const struct opts *o, struct karted *k, struct http_config *cfg)
{
	cfg->listen = o->listen;
	cfg->max_body = o->max_body;
	cfg->max_file_body = o->max_import;
	cfg->read_token = o->read_token;
	cfg->routes = karted_routes;
	cfg->serve_static = api_static;
	cfg->token_ok = api_token_ok;
	cfg->after_run = api_after_run;
	cfg->answers_ready = api_answers_ready;
	cfg->loop_sleeps = api_loop_sleeps;
	cfg->answers_soon = api_answers_soon;
	cfg->wake_fd = writer_fd(k->writer);
	cfg->workers = 2;	/* analyses and reports, off the event loop */
	cfg->quick_workers = 2;	/* cheap reads, never behind slow ones */
	cfg->read_timeout_s = o->read_timeout_s > 0 ? o->read_timeout_s : -1.0;
	cfg->access_log = o->access_log;
	cfg->allowed_hosts = o->allowed;
	cfg->max_client_conns = o->max_client_conns;
	cfg->request_timeout_s = o->request_timeout_s;
	cfg->body_budget = o->body_memory;
	cfg->app = k;
}

/* Where karted serves, on stdout and to systemd (Type=notify: ready once
 * it listens; nothing without NOTIFY_SOCKET). */
static void say_serving(const struct opts *o, struct http *h)
{
	char host[128], shown[512];

	printf("karted: serving http://%s:%u/ (database %s)\n", shown_host(o->listen, host, sizeof(host)),
	       http_port(h), store_shown(o->db, shown, sizeof(shown)));
	fflush(stdout);
	sd_notifyf(0, "READY=1\nSTATUS=serving http://%s:%u/", shown_host(o->listen, host, sizeof(host)),
		   http_port(h));
}

static int cmd_serve(const struct opts *o)
{
	struct karted k = {0};
	struct http_config cfg = {0};
	struct http *h = NULL;
	struct checkpointer *ckpt = NULL;
	struct store *st;
	struct kerr err;
	int sig, sigfd = -1, rc = 1;
	struct stat sb;

	kerr_clear(&err);
	/* An answer of a few hundred kB (a 1,000-point isoefficiency) is
	 * written into one buffer by a worker thread and freed when sent; by
	 * glibc's defaults the worker's arena hands those pages back with
	 * madvise after each answer and faults them in again for the next (8 %
	 * of karted's CPU for that answer). Buffers up to 4 MiB come from the
	 * arenas, and an arena keeps up to 32 MiB free before giving it back. */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 32 << 20);
	/* a bad address is a usage error, found before the database is touched */
	if (http_check_listen(o->listen, &err)) {
		fprintf(stderr, "karted: %s\n", KERR_TEXT(&err));
		return 2;
	}
	if ((sigfd = watch_signals()) < 0) {
		klog(KLOG_ERROR, "cannot watch signals: %s", strerror(errno));
		return 1;
	}

	/* a bad webhook URL is a usage error: said before any file is made */
	if (o->alert_webhook && !(k.watch.hook = webhook_open(o->alert_webhook, &err))) {
		klog(KLOG_ERROR, "%s", KERR_TEXT(&err));
		return 1;
	}
	make_parent(o->db);
	st = store_open(o->db, STORE_MIGRATE | STORE_NO_AUTOCHECKPOINT |
			(o->sync_full ? STORE_SYNC_FULL : 0), &err);
	if (!st) {
		klog(KLOG_ERROR, "%s", KERR_TEXT(&err));
		webhook_close(k.watch.hook);
		return 1;
	}
	if (discard_half_imports(st, o->db, &err))
		goto out;
	/* the loop, two quick and two slow workers, one spare; a statement
	 * stops a second after the read deadline (the workers' reads are
	 * stopped at it: this is for the loop's) */
	k.readers = pool_open(o->db, 6, o->read_timeout_s > 0 ? o->read_timeout_s + 1.0 : 0, &err);
	if (!k.readers || !(k.prober = prober_start(o->db, &err)))
		goto out;
	if (!store_is_uri(o->db)) {	/* PostgreSQL checkpoints itself */
		ckpt = checkpointer_start(o->db, &err);
		if (!ckpt)
			goto out;
	}
	k.watch.enabled = o->regression_check;
	k.watch.budget = o->check_memory ? o->check_memory : WATCH_MEMORY_DEFAULT;
	k.writer = writer_open(st, &err);
	if (!k.writer)
		goto out;
	writer_after(k.writer, watch_batch, &k.watch);
	st = NULL;	/* the writer owns it */
	k.read_token = o->read_token;
	k.static_dir = (!stat(o->static_dir, &sb) && S_ISDIR(sb.st_mode)) ? o->static_dir : NULL;

	http_config_of(o, &k, &cfg);
	h = http_start(&cfg, &err);
	if (!h)
		goto out;
	if (o->first_token)
		first_start_token(o->db);
	say_serving(o, h);

	sig = http_loop(h, sigfd, 10000);
	sd_notify(0, "STOPPING=1");
	klog(KLOG_INFO, "%s: stopped", sig == SIGINT ? "SIGINT" : "SIGTERM");
	rc = 0;
out:
	if (rc)
		klog(KLOG_ERROR, "%s", KERR_TEXT(&err));
	http_stop(h);
	/* read-only connections first: the last connection to close checkpoints
	 * and removes the WAL, which a read-only one cannot */
	prober_stop(k.prober);
	pool_close(k.readers);
	checkpointer_stop(ckpt);
	writer_close(k.writer);	/* commits what is queued, closes its store */
	webhook_close(k.watch.hook);	/* after the writer: it may still send */
	watch_free(&k.watch);
	store_close(st);
	if (sigfd >= 0)
		close(sigfd);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o;
	const char *cmd;
	int first;

	gsl_set_error_handler_off();	/* GSL reports through return codes, never aborts */
	store_library_init();
	first = parse_opts(argc, argv, &o);
	if (first == -2) {
		fputs(usage, stdout);
		fputs(usage_options, stdout);
		return 0;
	}
	if (first == -3) {
		printf("karted %s (schema %d)\n", KARTE_VERSION, store_schema_latest());
		return 0;
	}
	if (first < 0)
		return 2;
	cmd = first < argc ? argv[first++] : "serve";
	if (!strcmp(cmd, "serve")) {
		if (first < argc) {
			fprintf(stderr, "karted: serve takes no operands (got '%s')\n", argv[first]);
			return 2;
		}
		return cmd_serve(&o);
	}
	if (!strcmp(cmd, "token"))
		return cmd_token(&o, argc - first, argv + first);
	if (!strcmp(cmd, "migrate")) {
		struct store *st = open_admin(&o);

		if (!st)
			return 1;
		char shown[512];

		fprintf(stderr, "karted: database %s is at schema version %d\n",
			store_shown(o.db, shown, sizeof(shown)), store_schema_version(st));
		store_close(st);
		return 0;
	}
	if (!strcmp(cmd, "copy"))
		return cmd_copy(&o);
	if (!strcmp(cmd, "version")) {
		printf("karted %s (schema %d)\n", KARTE_VERSION, store_schema_latest());
		return 0;
	}
	fprintf(stderr, "karted: unknown command '%s'; see 'karted --help'\n", cmd);
	return 2;
}
