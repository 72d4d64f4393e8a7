/* karte-collect: other tools' files sent to karted's import (collect.h). */
#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/bounds.h"
#include "core/slurp.h"
#include "collect.h"

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

/* The options as the import's query string into q; -1 after a message
 * on a --col that is not FIELD=HEADER. */
static int import_query(const struct opts *o, bool is_dir, char *q, size_t size)
{
	const char *const params[][2] = {
		{"format", o->format ? o->format : is_dir ? "cube" : NULL}, {"system", o->system},
		{"application", o->application}, {"variant", o->variant}, {"p", o->p_param},
		{"n", o->n_param}, {"n_value", o->n_value}, {"metric", o->metric}, {"region", o->region},
		{"chi_regions", o->chi_regions}, {"gamma_regions", o->gamma_regions},
		{"time_unit", o->time_unit},
	};
	size_t i;
	int k;

	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++)
		query_add(q, size, params[i][0], params[i][1]);
	for (k = 0; k < o->ncols; k++) {
		const char *eq = strchr(o->cols[k], '=');
		char key[160];

		if (!eq || eq == o->cols[k] || !eq[1] || eq - o->cols[k] > 120) {
			fprintf(stderr, "karte-collect: --col takes FIELD=HEADER (got '%s')\n", o->cols[k]);
			return -1;
		}
		snprintf(key, sizeof(key), "col.%.*s", (int)(eq - o->cols[k]), o->cols[k]);
		query_add(q, size, key, eq + 1);
	}
	return 0;
}

/* karted's warnings, its parameter names said as karte-collect's flags. */
static void say_warnings(json_t *answer)
{
	char said[2048];
	json_t *w;
	size_t i;

	json_array_foreach(json_object_get(answer, "warnings"), i, w)
		fprintf(stderr, "karte-collect: warning: %s\n", as_flags(json_string_value(w), said, sizeof(said)));
}

/* What an import karted took stored (201), or that it had it already. */
static void say_stored(const char *file, json_t *answer, long status)
{
	const char *format = json_string_value(json_object_get(answer, "format"));
	long long runs = json_integer_value(json_object_get(answer, "runs"));

	say_warnings(answer);
	if (status == 201)
		fprintf(stderr, "karte-collect: %s (%s): %lld runs from %lld points stored\n", file, format,
			runs, json_integer_value(json_object_get(answer, "points")));
	else
		fprintf(stderr, "karte-collect: %s (%s): imported before with these options: its "
			"%lld runs are stored, nothing new\n", file, format, runs);
	say_list("regions of the runs", json_object_get(answer, "regions"));
}

/* Why karted refused the file, the field as a flag, and what it has. */
static void say_refused(const char *file, json_t *answer)
{
	json_t *av = json_object_get(answer, "available");
	const char *field = json_string_value(json_object_get(answer, "field"));
	char said[2048];

	if (answer) {
		fprintf(stderr, "karte-collect: karted refused %s: %s%s%s%s\n", file,
			as_flags(json_string_value(json_object_get(answer, "error")), said, sizeof(said)),
			field ? " (" : "", field ? flag_of(field) : "", field ? ")" : "");
		say_warnings(answer);
		if (av) {
			fprintf(stderr, "the file has\n");
			say_list("parameters", json_object_get(av, "parameters"));
			say_list("metrics", json_object_get(av, "metrics"));
			say_list("root regions", json_object_get(av, "roots"));
		}
	}
	fprintf(stderr, "karte-collect: nothing stored\n");
}

int cmd_import(const struct opts *o, int argc, char **argv)
{
	char q[8192] = "", path[8300];
	struct post p = {NULL, "application/octet-stream", 3600, NULL, NULL, 0, -1};
	size_t cap = slurp_cap("KARTE_MAX_IMPORT_BODY", LIMIT_IMPORT_BODY);
	struct buf file = {0};
	struct stat st;
	int rc = 1;
	bool is_dir;

	if (argc != 1) {
		fprintf(stderr, "karte-collect: import needs one FILE (see karte-collect --help)\n");
		return 2;
	}
	/* a directory: Score-P's experiment directories, sent as one tar */
	is_dir = !stat(argv[0], &st) && S_ISDIR(st.st_mode);
	file.p = is_dir ? pack_cubes(argv[0], cap, &file.len) : read_input(argv[0], cap, IMPORT_LIMIT, &file.len);
	if (!file.p)
		return 2;
	if (import_query(o, is_dir, q, sizeof(q))) {
		free(file.p);
		return 2;
	}
	snprintf(path, sizeof(path), "/api/v1/import%s", q);
	p.path = path;
	p.progress = argv[0];
	switch (post_body(o, &p, file.p, file.len)) {
	case SENT:
		say_stored(argv[0], p.answer, p.status);
		rc = 0;
		break;
	case REJECTED:
		say_refused(argv[0], p.answer);
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
