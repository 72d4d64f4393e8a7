#include "run.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "dconv.h"
#include "utf8.h"
#include "xalloc.h"

/*
 * Bodies are parsed with yajl's event (SAX) parser straight into struct
 * run: no document tree is built, which keeps a POST cheap (a DOM parser
 * costs several times the whole storage of a run). Regions and labels are
 * validated as they stream by and then copied from the body with the blanks
 * between tokens dropped, so what is stored is compact JSON holding the
 * posted numbers digit for digit.
 */


/* Top-level fields, in the order a missing one is reported. */
enum fld {
	F_SYSTEM, F_APPLICATION, F_VARIANT, F_P, F_N, F_TAU, F_CHI, F_GAMMA, F_FREQ, F_CAP,
	F_ENERGY, F_REGIONS, F_LABELS, F_MEASURED_AT, F_IDEM, F_COUNT, F_NONE = F_COUNT
};

static const char *const fld_names[F_COUNT] = {
	"system", "application", "variant", "p", "n", "tau", "chi", "gamma", "frequency_mhz",
	"power_cap_w", "energy_j", "regions", "labels", "measured_at", "idempotency_key",
};

static const unsigned char fld_lens[F_COUNT] = {6, 11, 7, 1, 1, 3, 3, 5, 13, 11, 8, 7, 6, 11, 15};

enum region_fld { R_NAME, R_TIME, R_ENERGY, R_POWER, R_FREQ, R_COUNTERS, R_PATH, R_COUNT };

static const char *const region_names[R_COUNT] = {
	"name", "time_s", "energy_j", "power_w", "frequency_mhz", "counters", "path",
};

/* Where the parser is: the container it is inside. */
enum level { L_TOP, L_BATCH, L_RUN, L_REGIONS, L_REGION, L_COUNTERS, L_LABELS, L_PATH };

/* yajl's own allocations for one body (handle, lexer, stacks and, once a
 * string has escapes, two 2 KiB buffers; all freed with the handle) come
 * from here, past it from malloc. Each block starts with its size, so
 * realloc knows what to copy. */
#define ARENA_SIZE 8192
#define ARENA_ALIGN 16

struct arena {
	_Alignas(ARENA_ALIGN) unsigned char buf[ARENA_SIZE];
	size_t used;
};

struct sax {
	struct run_batch *batch;
	size_t cap;
	struct kerr *err;
	const char *body;
	enum body_kind kind;
	enum level level;
	bool top_array;
	long index;		/* item number of the run being read */
	size_t run_at;		/* byte offset where that run starts */
	size_t value_end;	/* byte offset just past the last top-level value read */
	yajl_handle h;
	size_t raw_start;	/* offset of the regions / labels value being read */

	struct run cur;
	double num[F_COUNT];	/* numbers of the current run */
	unsigned seen;		/* bits of enum fld present (not null) */
	unsigned given;		/* bits of enum fld named at all */
	enum fld field;		/* key just read at L_RUN */

	size_t region;		/* index of the region being read */
	enum region_fld rfield;
	unsigned rseen;
	double renergy;		/* the region's energy_j, NAN before */
	char rname[RUN_NAME_MAX + 1];	/* its name, "" before */
	/* its path: the names joined by RUN_PATH_SEP, and how many */
	char rpath[RUN_PATH_MAX * (RUN_NAME_MAX + 1)];
	size_t rpath_len, rdepth, rlast;	/* rlast: where the last name starts */
	char **rnames;		/* keys of this run's regions (path, else name), for duplicates */
	size_t nrnames, rncap;
	uint32_t *rhash;	/* open addressing over rnames: index + 1, 0 for empty */
	size_t rhcap;		/* a power of two, at least twice nrnames */
	size_t bad_escape;	/* offset of the first lone surrogate escape, or SIZE_MAX */
	size_t nitems;		/* counters in this region / labels in this run */
	char key[RUN_NAME_MAX + 1];	/* counter / label name just read */
};

static bool printable(const unsigned char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

static int two(const char *s)
{
	return (s[0] - '0') * 10 + (s[1] - '0');
}

/* ISO 8601 date-time: YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM), a real
 * one: month 1-12, a day its month has (29 February in leap years), hour
 * 0-23, minute 0-59, second 0-60 (a leap second), an offset of at most
 * 14:00 (the Earth's widest, Kiribati's). */
static bool iso8601(const char *s)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	static const int days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int year, month, day;
	size_t i;

	for (i = 0; shape[i]; i++) {
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) :
		    (s[i] != shape[i] && !(shape[i] == 'T' && s[i] == ' ')))
			return false;
	}
	year = two(s) * 100 + two(s + 2);
	month = two(s + 5);
	day = two(s + 8);
	if (month < 1 || month > 12 || day < 1 || day > days[month - 1] ||
	    (month == 2 && day == 29 && !(year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))) ||
	    two(s + 11) > 23 || two(s + 14) > 59 || two(s + 17) > 60)
		return false;
	s += i;
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'Z')
		return s[1] == '\0';
	if (*s == '+' || *s == '-')
		return isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[2]) && s[3] == ':' &&
		       isdigit((unsigned char)s[4]) && isdigit((unsigned char)s[5]) && s[6] == '\0' &&
		       two(s + 1) * 60 + two(s + 4) <= 14 * 60 && two(s + 4) <= 59;
	return false;
}

/* The field path of the value being read, for error messages. */
static void where(struct sax *x, char *buf, size_t size, const char *leaf)
{
	switch (x->level) {
	case L_REGIONS:
		snprintf(buf, size, "regions[%zu]", x->region);
		break;
	case L_REGION:
		snprintf(buf, size, "regions[%zu].%s", x->region, leaf ? leaf : region_names[x->rfield]);
		break;
	case L_COUNTERS:
		snprintf(buf, size, "regions[%zu].counters", x->region);
		break;
	case L_PATH:
		snprintf(buf, size, "regions[%zu].path", x->region);
		break;
	case L_LABELS:
		snprintf(buf, size, "labels");
		break;
	default:
		snprintf(buf, size, "%s", leaf ? leaf : x->field < F_COUNT ? fld_names[x->field] : "");
		break;
	}
}

/* Record an error about field (NULL: the value being read); stops the
 * parse. Only the first error counts. */
static int vfail(struct sax *x, const char *field, const char *fmt, va_list ap)
{
	char here[64];

	if (x->err->code)
		return 0;
	if (!field) {
		where(x, here, sizeof(here), NULL);
		field = here;
	}
	snprintf(x->err->field, sizeof(x->err->field), "%s", field);
	x->err->code = KERR_INVALID;
	vsnprintf(x->err->msg, sizeof(x->err->msg), fmt, ap);
	x->err->index = x->top_array || x->kind == BODY_NDJSON ? x->index : -1;
	return 0;
}

__attribute__((format(printf, 2, 3))) static int fail(struct sax *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(x, NULL, fmt, ap);
	va_end(ap);
	return 0;
}

__attribute__((format(printf, 3, 4))) static int fail_at(struct sax *x, const char *field,
							 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(x, field, fmt, ap);
	va_end(ap);
	return 0;
}

static const char *cur_name(struct sax *x)
{
	static __thread char buf[64];

	where(x, buf, sizeof(buf), NULL);
	return buf;
}

int run_number(const char *s, size_t len, double *out)
{
	return dconv_strtod(s, len, out) || !isfinite(*out) ? -1 : 0;
}

/* A number token: finite, else an error naming the field. */
static int number(struct sax *x, const char *s, size_t len, double *out)
{
	if (len >= 64)
		return fail(x, "%s has too many digits", cur_name(x));
	if (run_number(s, len, out))
		return fail(x, "%s must be a finite number (got %.*s)", cur_name(x), (int)len, s);
	return 1;
}

/* A number of a region, kept in its stored text as written: an integer
 * literal past int64 would not read back (jansson refuses it), so it is
 * refused here, not lost from every answer later. */
static int kept_number(struct sax *x, const char *s, size_t len, double *out)
{
	char buf[64];

	if (!number(x, s, len, out))
		return 0;
	if (memchr(s, '.', len) || memchr(s, 'e', len) || memchr(s, 'E', len))
		return 1;
	memcpy(buf, s, len);	/* len < 64: number() saw to it */
	buf[len] = '\0';
	errno = 0;
	(void)strtoll(buf, NULL, 10);
	if (errno == ERANGE)
		return fail(x, "%s is an integer past 2^63, which karte cannot keep as written "
			    "(got %.*s): write it with an exponent, such as 1.5e20", cur_name(x),
			    (int)len, s);
	return 1;
}

static int type_error(struct sax *x, const char *got)
{
	static const char *const want[F_COUNT] = {
		[F_SYSTEM] = "a string", [F_APPLICATION] = "a string", [F_VARIANT] = "a string",
		[F_P] = "an integer", [F_N] = "a number", [F_TAU] = "a number (seconds)",
		[F_CHI] = "a number (seconds)", [F_GAMMA] = "a number (seconds)",
		[F_FREQ] = "a number (MHz)", [F_CAP] = "a number (W)", [F_ENERGY] = "a number (J)",
		[F_REGIONS] = "an array of region objects", [F_LABELS] = "an object of name: string",
		[F_MEASURED_AT] = "an ISO 8601 time string", [F_IDEM] = "a string",
	};
	static const char *const rwant[R_COUNT] = {
		"a string", "a number (seconds)", "a number (J)", "a number (W)", "a number (MHz)",
		"an object of name: number", "an array of names",
	};

	switch (x->level) {
	case L_RUN:
		return fail(x, "%s must be %s, not %s", fld_names[x->field], want[x->field], got);
	case L_REGION:
		return fail(x, "%s must be %s, not %s", cur_name(x), rwant[x->rfield], got);
	case L_REGIONS:
		return fail(x, "%s must be an object, not %s", cur_name(x), got);
	case L_COUNTERS:
		return fail(x, "counter '%s' in %s must be a number, not %s", x->key, cur_name(x), got);
	case L_LABELS:
		return fail(x, "label '%s' must be a string, not %s", x->key, got);
	case L_PATH:
		return fail(x, "%s must be an array of region names, not one holding %s", cur_name(x), got);
	default:
		if (x->kind == BODY_NDJSON)
			return fail(x, "each line must be a run object, not %s", got);
		return fail(x, "the body must be a run object or an array of runs, not %s", got);
	}
}

/* ---- events ------------------------------------------------------------ */

static int ev_null(void *ctx)
{
	struct sax *x = ctx;

	switch (x->level) {
	case L_RUN:
		return 1;	/* null is "not given" */
	case L_REGION:
		return 1;
	default:
		return type_error(x, "null");
	}
}

static int ev_bool(void *ctx, int b)
{
	return type_error(ctx, b ? "true" : "false");
}

static int ev_number(void *ctx, const char *s, size_t len)
{
	struct sax *x = ctx;
	double v;

	switch (x->level) {
	case L_RUN:
		if (x->field < F_P || x->field > F_ENERGY)
			return type_error(x, "a number");
		if (!number(x, s, len, &v))
			return 0;
		if (x->field == F_P && !(v == floor(v) && v >= 1 && v <= 1e9))
			return fail(x, "p must be an integer from 1 to 1e9 (got %.*s)", (int)len, s);
		x->num[x->field] = v;
		x->seen |= 1u << x->field;
		return 1;
	case L_REGION:
		if (x->rfield == R_NAME || x->rfield == R_COUNTERS)
			return type_error(x, "a number");
		if (!kept_number(x, s, len, &v))
			return 0;
		if (x->rfield == R_FREQ ? !(v > 0) : !(v >= 0))
			return fail(x, "%s must be %s (got %.*s)", cur_name(x),
				    x->rfield == R_FREQ ? "greater than 0" : "0 or more", (int)len, s);
		if (x->rfield == R_ENERGY)
			x->renergy = v;
		return 1;
	case L_COUNTERS:
		if (!kept_number(x, s, len, &v))
			return 0;
		if (v < 0)
			return fail(x, "counter '%s' in %s must be 0 or more", x->key, cur_name(x));
		return 1;
	default:
		return type_error(x, "a number");
	}
}

static size_t here(struct sax *x)
{
	return yajl_get_bytes_consumed(x->h);
}

/* Strict UTF-8, and no lone surrogate escape in the token just read: the
 * first string token that ends past bad_escape holds it (outside strings
 * a backslash is a syntax error, found before any callback). */
static bool text_ok(struct sax *x, const unsigned char *s, size_t len)
{
	return utf8_valid(s, len) && !(x->bad_escape < here(x));
}

static uint32_t name_hash(const unsigned char *s, size_t len)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

size_t run_region_key(json_t *region, char *buf, size_t size)
{
	json_t *path = json_object_get(region, "path"), *seg;
	const char *name = json_string_value(json_object_get(region, "name"));
	size_t i, len = 0, depth = 0;

	buf[0] = '\0';
	if (!name || !size)
		return 0;
	if (!json_is_array(path) || !json_array_size(path)) {
		snprintf(buf, size, "%s", name);
		return 1;
	}
	json_array_foreach(path, i, seg) {
		const char *s = json_string_value(seg);
		size_t n = s ? strlen(s) : 0;

		if (len + n + 2 > size)
			break;
		if (i)
			buf[len++] = RUN_PATH_SEP;
		memcpy(buf + len, s, n);
		len += n;
		depth++;
	}
	buf[len] = '\0';
	return depth;
}

char *run_path_text(const char *key, char *buf, size_t size)
{
	size_t len = 0;

	for (; *key && len + 1 < size; key++) {
		if (*key != RUN_PATH_SEP) {
			buf[len++] = *key;
		} else if (len + 3 < size) {
			memcpy(buf + len, "->", 2);
			len += 2;
		} else {
			break;
		}
	}
	if (size)
		buf[len] = '\0';
	return buf;
}

/* Put name index i into the hash table. */
static void rhash_put(struct sax *x, size_t i)
{
	const char *nm = x->rnames[i];
	size_t slot = name_hash((const unsigned char *)nm, strlen(nm)) & (x->rhcap - 1);

	while (x->rhash[slot])
		slot = (slot + 1) & (x->rhcap - 1);
	x->rhash[slot] = (uint32_t)(i + 1);
}

/* Add a region name of the current run; false when it is there already.
 * Expected O(1): a hash table, grown by doubling (RUN_REGIONS_MAX bounds it). */
static bool rname_add(struct sax *x, const unsigned char *s, size_t len)
{
	size_t slot, i;

	if (2 * (x->nrnames + 1) > x->rhcap) {
		free(x->rhash);
		x->rhcap = x->rhcap ? 2 * x->rhcap : 16;
		x->rhash = xcalloc(x->rhcap, sizeof(*x->rhash));
		for (i = 0; i < x->nrnames; i++)
			rhash_put(x, i);
	}
	for (slot = name_hash(s, len) & (x->rhcap - 1); x->rhash[slot];
	     slot = (slot + 1) & (x->rhcap - 1)) {
		const char *nm = x->rnames[x->rhash[slot] - 1];

		if (strlen(nm) == len && !memcmp(nm, s, len))
			return false;
	}
	if (x->nrnames == x->rncap) {
		x->rncap = x->rncap ? 2 * x->rncap : 8;
		x->rnames = xrealloc(x->rnames, x->rncap * sizeof(*x->rnames));
	}
	x->rnames[x->nrnames] = xstrndup((const char *)s, len);
	x->rhash[slot] = (uint32_t)(++x->nrnames);
	return true;
}

static int check_text(struct sax *x, const unsigned char *s, size_t len, size_t minlen,
		      size_t maxlen, bool colon_ok)
{
	if (len < minlen)
		return fail(x, "%s must not be empty", cur_name(x));
	if (len > maxlen)
		return fail(x, "%s is %zu bytes long; at most %zu are allowed", cur_name(x), len,
			    maxlen);
	if (!printable(s, len))
		return fail(x, "%s must not contain control characters", cur_name(x));
	if (!colon_ok && memchr(s, ':', len))
		return fail(x, "%s must not contain ':' (series are named "
			    "system:application:variant)", cur_name(x));
	return 1;
}

static int run_string(struct sax *x, const unsigned char *s, size_t len)
{
	char **slot;

	switch (x->field) {
	case F_SYSTEM:
	case F_APPLICATION:
		if (!check_text(x, s, len, 1, RUN_NAME_MAX, false))
			return 0;
		slot = x->field == F_SYSTEM ? &x->cur.system : &x->cur.application;
		break;
	case F_VARIANT:
		if (!check_text(x, s, len, 0, RUN_NAME_MAX, true))
			return 0;
		slot = &x->cur.variant;
		break;
	case F_IDEM:
		if (!check_text(x, s, len, 1, RUN_KEY_MAX, true))
			return 0;
		slot = &x->cur.idempotency_key;
		break;
	case F_MEASURED_AT:
		slot = &x->cur.measured_at;
		break;
	default:
		return type_error(x, "a string");
	}
	free(*slot);
	*slot = xstrndup((const char *)s, len);
	if (x->field == F_MEASURED_AT && !iso8601(*slot))
		return fail(x, "measured_at must be a real ISO 8601 date and time such as 2026-11-21T10:00:00Z "
			    "(month 1-12, a day the month has, hour 0-23, minute 0-59, an offset of at most "
			    "14:00)");
	x->seen |= 1u << x->field;
	return 1;
}

static int ev_string(void *ctx, const unsigned char *s, size_t len)
{
	struct sax *x = ctx;

	if (!text_ok(x, s, len))
		return fail(x, "%s is not valid UTF-8 (no overlong forms, surrogates or code "
			    "points above U+10FFFF)", cur_name(x));
	switch (x->level) {
	case L_RUN:
		return run_string(x, s, len);
	case L_REGION:
		if (x->rfield != R_NAME)
			return type_error(x, "a string");
		if (!check_text(x, s, len, 1, RUN_NAME_MAX, true))
			return 0;
		memcpy(x->rname, s, len);
		x->rname[len] = '\0';
		return 1;
	case L_PATH:
		if (!check_text(x, s, len, 1, RUN_NAME_MAX, true))
			return 0;
		if (x->rdepth == RUN_PATH_MAX)
			return fail(x, "%s holds more than %d names (a call path from the first level "
				    "under the root, at most %d deep)", cur_name(x), RUN_PATH_MAX, RUN_PATH_MAX);
		if (x->rdepth)
			x->rpath[x->rpath_len++] = RUN_PATH_SEP;
		x->rlast = x->rpath_len;
		memcpy(x->rpath + x->rpath_len, s, len);
		x->rpath_len += len;
		x->rpath[x->rpath_len] = '\0';
		x->rdepth++;
		return 1;
	case L_LABELS:
		if (len > RUN_LABEL_VAL_MAX || !printable(s, len))
			return fail(x, "label '%s' must be a string of at most %d printable bytes",
				    x->key, RUN_LABEL_VAL_MAX);
		return 1;
	default:
		return type_error(x, "a string");
	}
}

static bool in_arena(const struct arena *a, const void *p)
{
	return (const unsigned char *)p >= a->buf && (const unsigned char *)p < a->buf + ARENA_SIZE;
}

static void *arena_malloc(void *ctx, size_t sz)
{
	struct arena *a = ctx;
	size_t need = ARENA_ALIGN + (sz + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
	unsigned char *block;

	if (need <= ARENA_SIZE - a->used) {
		block = a->buf + a->used;
		a->used += need;
	} else {
		block = xmalloc(ARENA_ALIGN + sz);
	}
	memcpy(block, &sz, sizeof(sz));
	return block + ARENA_ALIGN;
}

static void arena_free(void *ctx, void *p)
{
	if (p && !in_arena(ctx, p))
		free((unsigned char *)p - ARENA_ALIGN);
}

static void *arena_realloc(void *ctx, void *p, size_t sz)
{
	size_t old;
	void *q;

	if (!p)
		return arena_malloc(ctx, sz);
	memcpy(&old, (unsigned char *)p - ARENA_ALIGN, sizeof(old));
	q = arena_malloc(ctx, sz);
	memcpy(q, p, old < sz ? old : sz);
	arena_free(ctx, p);
	return q;
}

/* Offset just after the token being handled. */
/* The JSON text body[start, end) without the blanks between tokens. */
static char *compact_copy(const char *s, size_t start, size_t end)
{
	char *out = xmalloc(end - start + 1), *o = out;
	bool in_str = false, esc = false;
	size_t i;

	for (i = start; i < end; i++) {
		char c = s[i];

		if (in_str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
			continue;	/* JSON's blanks (run_parse_body refuses \v and \f) */
		} else if (c == '"') {
			in_str = true;
		}
		*o++ = c;
	}
	*o = '\0';
	return out;
}

/* 1-based line of byte offset pos: counted only when an error needs it. */
static long line_of(const char *body, size_t pos)
{
	const char *p = body, *end = body + pos;
	long line = 1;

	while ((p = memchr(p, '\n', (size_t)(end - p))))
		line++, p++;
	return line;
}

static void run_begin(struct sax *x)
{
	memset(&x->cur, 0, sizeof(x->cur));
	x->seen = x->given = 0;
	x->field = F_NONE;
	x->level = L_RUN;
	x->run_at = here(x);
}

static int ev_start_map(void *ctx)
{
	struct sax *x = ctx;

	switch (x->level) {
	case L_TOP:
	case L_BATCH:
		run_begin(x);
		return 1;
	case L_RUN:
		if (x->field != F_LABELS)
			return type_error(x, "an object");
		x->level = L_LABELS;
		x->nitems = 0;
		x->raw_start = here(x) - 1;
		return 1;
	case L_REGIONS:
		if (x->region >= RUN_REGIONS_MAX)	/* before anything of it is read */
			return fail_at(x, "regions", "a run may have at most %d regions",
				       RUN_REGIONS_MAX);
		x->level = L_REGION;
		x->rseen = 0;
		x->rfield = R_NAME;
		x->renergy = NAN;
		x->rname[0] = '\0';
		x->rpath_len = x->rdepth = 0;
		return 1;
	case L_REGION:
		if (x->rfield != R_COUNTERS)
			return type_error(x, "an object");
		x->level = L_COUNTERS;
		x->nitems = 0;
		return 1;
	default:
		return type_error(x, "an object");
	}
}

static int key_run(struct sax *x, const unsigned char *k, size_t len)
{
	int f;

	for (f = 0; f < F_COUNT; f++)
		if (fld_lens[f] == len && !memcmp(fld_names[f], k, len))
			break;
	if (f == F_COUNT) {
		char name[48];

		snprintf(name, sizeof(name), "%.*s", (int)(len > 40 ? 40 : len), k);
		return fail_at(x, len ? name : "(empty)",
			       "unknown field '%s' (check its spelling; see the README for the "
			       "fields of a run)", name);
	}
	x->field = (enum fld)f;
	if (x->given & (1u << f))
		return fail(x, "%s appears twice in one run", fld_names[f]);
	x->given |= 1u << f;
	return 1;
}

static int ev_map_key(void *ctx, const unsigned char *k, size_t len)
{
	struct sax *x = ctx;
	int f;

	if (!text_ok(x, k, len)) {
		if (x->level == L_RUN)
			return fail_at(x, "(field name)", "a field name is not valid UTF-8");
		return fail(x, "a name in %s is not valid UTF-8", cur_name(x));
	}
	switch (x->level) {
	case L_RUN:
		return key_run(x, k, len);
	case L_REGION:
		for (f = 0; f < R_COUNT; f++)
			if (strlen(region_names[f]) == len && !memcmp(region_names[f], k, len))
				break;
		if (f == R_COUNT) {
			char field[64];

			snprintf(field, sizeof(field), "regions[%zu].%.*s", x->region,
				 (int)(len > 40 ? 40 : len), k);
			return fail_at(x, field, "unknown field '%.*s' in regions[%zu] (known: name, "
				       "path, time_s, energy_j, power_w, frequency_mhz, counters)",
				       (int)(len > 40 ? 40 : len), k, x->region);
		}
		x->rfield = (enum region_fld)f;
		if (x->rseen & (1u << f))
			return fail(x, "%s appears twice", cur_name(x));
		x->rseen |= 1u << f;
		return 1;
	default:		/* L_COUNTERS, L_LABELS */
		if (++x->nitems > (x->level == L_LABELS ? RUN_LABELS_MAX : RUN_COUNTERS_MAX))
			return fail(x, "%s has too many entries (at most %d)", cur_name(x),
				    x->level == L_LABELS ? RUN_LABELS_MAX : RUN_COUNTERS_MAX);
		if (!len || len > (x->level == L_LABELS ? RUN_LABEL_MAX : RUN_NAME_MAX) ||
		    !printable(k, len))
			return fail(x, "names in %s must be 1 to %d printable bytes", cur_name(x),
				    x->level == L_LABELS ? RUN_LABEL_MAX : RUN_NAME_MAX);
		memcpy(x->key, k, len);
		x->key[len] = '\0';
		return 1;
	}
}

/* A region object is complete: its name (and the path's last name), its
 * key unique in the run, and a first-level region's energy kept aside. */
static int region_finish(struct sax *x)
{
	const char *key = x->rdepth ? x->rpath : x->rname;

	if (!x->rname[0]) {
		x->rfield = R_NAME;
		return fail(x, "regions[%zu] needs a name", x->region);
	}
	if (x->rdepth && strcmp(x->rpath + x->rlast, x->rname)) {
		x->rfield = R_PATH;
		return fail(x, "regions[%zu].path must end with the region's own name '%.64s'",
			    x->region, x->rname);
	}
	if (!rname_add(x, (const unsigned char *)key, strlen(key))) {
		char text[160];

		x->rfield = x->rdepth ? R_PATH : R_NAME;
		run_path_text(key, text, sizeof(text));
		return fail(x, "region '%s' appears twice in one run", text);
	}
	if (!isnan(x->renergy) && x->rdepth <= 1 && x->cur.nenergies < RUN_ENERGIES_KEPT) {
		if (!x->cur.energies)
			x->cur.energies = xmalloc(RUN_ENERGIES_KEPT * sizeof(*x->cur.energies));
		x->cur.energies[x->cur.nenergies++] = (struct run_energy){xstrdup(x->rname), x->renergy};
	}
	x->level = L_REGIONS;
	x->region++;
	return 1;
}

/* A run object is complete: the checks that need all of its fields. */
static int run_finish(struct sax *x)
{
	struct run *r = &x->cur;
	int f;

	x->field = F_NONE;
	for (f = F_SYSTEM; f <= F_TAU; f++)
		if (f != F_VARIANT && !(x->seen & (1u << f))) {
			x->field = (enum fld)f;
			return fail(x, "%s is required", fld_names[f]);
		}
	r->parsed = true;
	r->p = (int64_t)x->num[F_P];
	r->n = x->num[F_N];
	r->tau = x->num[F_TAU];
	r->chi = x->num[F_CHI];
	r->gamma = x->num[F_GAMMA];
	for (f = F_N; f <= F_ENERGY; f++) {
		bool gt0 = f == F_N || f == F_TAU || f == F_FREQ || f == F_CAP;

		if (!(x->seen & (1u << f)))
			continue;
		x->field = (enum fld)f;
		if (gt0 && !(x->num[f] > 0))
			return fail(x, "%s must be greater than 0 (got %g)", fld_names[f], x->num[f]);
		if (!gt0 && !(x->num[f] >= 0))
			return fail(x, "%s must be 0 or more (got %g)", fld_names[f], x->num[f]);
	}
	if ((x->seen & (1u << F_CHI)) && r->chi > r->tau) {
		x->field = F_CHI;
		return fail(x, "chi (%g) must not exceed tau (%g)", r->chi, r->tau);
	}
	if ((x->seen & (1u << F_GAMMA)) && r->gamma > r->tau) {
		x->field = F_GAMMA;
		return fail(x, "gamma (%g) must not exceed tau (%g)", r->gamma, r->tau);
	}
	if ((x->seen & (1u << F_CHI)) && (x->seen & (1u << F_GAMMA))) {
		if (fabs(r->chi + r->gamma - r->tau) > 1e-6 * r->tau) {
			x->field = F_GAMMA;
			return fail(x, "chi + gamma must equal tau (%g + %g != %g); post one of them",
				    r->chi, r->gamma, r->tau);
		}
	} else if (x->seen & (1u << F_CHI)) {
		r->gamma = r->tau - r->chi;
	} else if (x->seen & (1u << F_GAMMA)) {
		r->chi = r->tau - r->gamma;
	} else {
		r->chi = r->gamma = NAN;	/* tau alone: the analyses that need chi skip it */
	}
	r->has = ((x->seen & (1u << F_CHI | 1u << F_GAMMA)) ? RUN_HAS_CHI : 0) |
		 ((x->seen >> F_FREQ) & 1 ? RUN_HAS_FREQ : 0) |
		 ((x->seen >> F_CAP) & 1 ? RUN_HAS_CAP : 0) |
		 ((x->seen >> F_ENERGY) & 1 ? RUN_HAS_ENERGY : 0);
	r->frequency_mhz = x->num[F_FREQ];
	r->power_cap_w = x->num[F_CAP];
	r->energy_j = x->num[F_ENERGY];
	if (!r->variant)
		r->variant = xstrdup("");
	if (x->batch->count == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 1;	/* one run: a small allocation */
		x->batch->runs = xrealloc(x->batch->runs, x->cap * sizeof(*x->batch->runs));
	}
	x->batch->runs[x->batch->count++] = *r;
	memset(r, 0, sizeof(*r));
	x->index++;
	x->level = x->top_array ? L_BATCH : L_TOP;
	return 1;
}

static void names_free(struct sax *x)
{
	size_t i;

	for (i = 0; i < x->nrnames; i++)
		free(x->rnames[i]);
	x->nrnames = 0;
	if (x->rhash)
		memset(x->rhash, 0, x->rhcap * sizeof(*x->rhash));
}

static int ev_end_map(void *ctx)
{
	struct sax *x = ctx;

	switch (x->level) {
	case L_RUN:
		names_free(x);
		if (!x->top_array)
			x->value_end = here(x);
		return run_finish(x);
	case L_LABELS:
		x->cur.labels = compact_copy(x->body, x->raw_start, here(x));
		x->level = L_RUN;
		x->seen |= 1u << F_LABELS;
		return 1;
	case L_REGION:
		return region_finish(x);
	default:		/* L_COUNTERS */
		x->level = L_REGION;
		return 1;
	}
}

static int ev_start_array(void *ctx)
{
	struct sax *x = ctx;

	if (x->level == L_TOP && x->kind == BODY_JSON && !x->top_array) {
		x->top_array = true;
		x->level = L_BATCH;
		return 1;
	}
	if (x->level == L_REGION && x->rfield == R_PATH) {
		x->level = L_PATH;
		return 1;
	}
	if (x->level == L_RUN && x->field == F_REGIONS) {
		x->level = L_REGIONS;
		x->region = 0;
		x->raw_start = here(x) - 1;
		return 1;
	}
	return type_error(x, "an array");
}

static int ev_end_array(void *ctx)
{
	struct sax *x = ctx;

	if (x->level == L_BATCH) {
		x->level = L_TOP;
		x->value_end = here(x);
		return 1;
	}
	if (x->level == L_PATH) {
		if (!x->rdepth)
			return fail(x, "%s must list 1 to %d names, the last the region's own", cur_name(x),
				    RUN_PATH_MAX);
		x->level = L_REGION;
		return 1;
	}
	/* L_REGIONS */
	if (x->region > RUN_REGIONS_MAX)
		return fail(x, "a run may have at most %d regions", RUN_REGIONS_MAX);
	x->cur.regions = compact_copy(x->body, x->raw_start, here(x));
	x->level = L_RUN;
	x->seen |= 1u << F_REGIONS;
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = ev_null,
	.yajl_boolean = ev_bool,
	.yajl_number = ev_number,
	.yajl_string = ev_string,
	.yajl_start_map = ev_start_map,
	.yajl_map_key = ev_map_key,
	.yajl_end_map = ev_end_map,
	.yajl_start_array = ev_start_array,
	.yajl_end_array = ev_end_array,
};

/* run_region_energies' reading: the region object at depth 2 of the array. */
struct re_scan {
	int depth;
	enum { RK_OTHER, RK_NAME, RK_ENERGY, RK_PATH } key;
	char name[RUN_NAME_MAX + 1];
	bool has_name, has_energy;
	size_t path;		/* names in the region's path: past 1 it is not first-level */
	double energy;
	size_t n, max;
	void (*each)(const char *name, double energy_j, void *ctx);
	void *ctx;
};

static int re_value(void *ctx)
{
	(void)ctx;
	return 1;
}

static int re_bool(void *ctx, int b)
{
	(void)b;
	return re_value(ctx);
}

static int re_number(void *ctx, const char *s, size_t len)
{
	struct re_scan *c = ctx;

	if (c->depth == 2 && c->key == RK_ENERGY)
		c->has_energy = run_number(s, len, &c->energy) == 0;
	return 1;
}

static int re_string(void *ctx, const unsigned char *s, size_t len)
{
	struct re_scan *c = ctx;

	if (c->depth == 3 && c->key == RK_PATH)
		c->path++;
	if (c->depth == 2 && c->key == RK_NAME && len <= RUN_NAME_MAX) {
		memcpy(c->name, s, len);
		c->name[len] = '\0';
		c->has_name = true;
	}
	return 1;
}

static int re_start(void *ctx)
{
	struct re_scan *c = ctx;

	if (++c->depth == 2)
		c->has_name = c->has_energy = false, c->path = 0;
	return 1;
}

static int re_key(void *ctx, const unsigned char *s, size_t len)
{
	struct re_scan *c = ctx;

	if (c->depth == 2)
		c->key = len == 4 && !memcmp(s, "name", 4) ? RK_NAME :
			 len == 8 && !memcmp(s, "energy_j", 8) ? RK_ENERGY :
			 len == 4 && !memcmp(s, "path", 4) ? RK_PATH : RK_OTHER;
	return 1;
}

static int re_end_map(void *ctx)
{
	struct re_scan *c = ctx;

	if (c->depth-- == 2 && c->has_name && c->has_energy && c->path <= 1) {
		c->each(c->name, c->energy, c->ctx);
		if (++c->n == c->max)
			return 0;	/* enough: stop */
	}
	return 1;
}

static int re_end_array(void *ctx)
{
	((struct re_scan *)ctx)->depth--;
	return 1;
}

static const yajl_callbacks re_callbacks = {
	.yajl_null = re_value,
	.yajl_boolean = re_bool,
	.yajl_number = re_number,
	.yajl_string = re_string,
	.yajl_start_map = re_start,
	.yajl_map_key = re_key,
	.yajl_end_map = re_end_map,
	.yajl_start_array = re_start,
	.yajl_end_array = re_end_array,
};

int run_region_energies(const char *regions, size_t max,
			void (*each)(const char *name, double energy_j, void *ctx), void *ctx)
{
	struct re_scan c = {.max = max, .each = each, .ctx = ctx};
	size_t len = strlen(regions);
	struct arena arena;	/* yajl's own allocations on the stack: a baseline
				 * reads this for each of up to 100 earlier runs */
	yajl_alloc_funcs funcs = {arena_malloc, arena_realloc, arena_free, &arena};
	yajl_handle h;
	yajl_status st;

	if (!max)
		return 0;
	if (!len || regions[0] != '[')
		return -1;
	arena.used = 0;
	h = yajl_alloc(&re_callbacks, &funcs, &c);
	st = yajl_parse(h, (const unsigned char *)regions, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(h);
	yajl_free(h);
	return st == yajl_status_ok || st == yajl_status_client_canceled ? (int)c.n : -1;
}

/* at_end: the error came from yajl_complete_parse (the body ended early). */
static void syntax_error(struct sax *x, const char *body, size_t len, bool at_end)
{
	unsigned char *msg = yajl_get_error(x->h, 0, (const unsigned char *)body, len);
	size_t at = at_end ? len : yajl_get_bytes_consumed(x->h);
	char *nl;

	nl = strchr((char *)msg, '\n');
	if (nl)
		*nl = '\0';
	if (x->kind == BODY_NDJSON) {
		/* inside a run, name the line the run starts on */
		kerr_set(x->err, KERR_INVALID, "line %ld is not valid JSON (%s)",
			 line_of(body, x->level == L_TOP ? at : x->run_at), (char *)msg);
		x->err->index = x->index;
	} else {
		kerr_set(x->err, KERR_INVALID, "the body is not valid JSON (%s, near byte %zu)", (char *)msg, at);
	}
	yajl_free_error(x->h, msg);
}

/* A control character JSON's blanks do not allow? As bits, not branches. */
static inline unsigned json_control(unsigned char c)
{
	return (c < 0x20) & (c != '\t') & (c != '\n') & (c != '\r');
}

int run_json_controls(const char *body, size_t len, struct kerr *err)
{
	size_t i = 0, k;
	unsigned bad;

	/* 64 bytes at a time without a branch a byte, which the compiler
	 * makes a few vector instructions (a 200 kB body in 27 us, not 170),
	 * then byte by byte from the block where one is found */
	for (; i + 64 <= len; i += 64) {
		for (k = 0, bad = 0; k < 64; k++)
			bad |= json_control((unsigned char)body[i + k]);
		if (bad)
			break;
	}
	for (; i < len; i++)
		if (json_control((unsigned char)body[i]))
			return kerr_set(err, KERR_INVALID, "line %ld: the control character 0x%02x is "
					"not JSON (escape it in a string, \\u%04x)", line_of(body, i),
					(unsigned char)body[i], (unsigned char)body[i]);
	return 0;
}

int run_parse_body(const char *body, size_t len, enum body_kind kind, struct run_batch *batch,
		   struct kerr *err)
{
	struct sax x = {0};
	struct arena arena;	/* not zeroed: only arena.used needs a value */
	yajl_alloc_funcs funcs = {arena_malloc, arena_realloc, arena_free, &arena};
	yajl_status st;
	bool at_end;

	batch->runs = NULL;
	batch->count = 0;
	kerr_clear(err);
	while (len && (body[len - 1] == ' ' || body[len - 1] == '\t' || body[len - 1] == '\n' ||
		       body[len - 1] == '\r'))	/* JSON's blanks, no others */
		len--;
	if (!len)
		return kerr_set(err, KERR_INVALID, "the body is empty: post a run object%s",
				kind == BODY_NDJSON ? " per line" : " or an array of runs");
	if (run_json_controls(body, len, err))
		return -1;
	x.batch = batch;
	x.err = err;
	x.body = body;
	x.kind = kind;
	x.field = F_NONE;
	x.bad_escape = utf8_lone_surrogate_escape(body, len);
	arena.used = 0;
	x.h = yajl_alloc(&callbacks, &funcs, &x);
	/* text_ok() checks every string strictly and names its field; yajl's
	 * own check is looser (overlong forms pass) and names nothing */
	yajl_config(x.h, yajl_dont_validate_strings, 1);
	if (kind == BODY_NDJSON)
		yajl_config(x.h, yajl_allow_multiple_values, 1);
	st = yajl_parse(x.h, (const unsigned char *)body, len);
	at_end = st == yajl_status_ok;
	if (at_end)
		st = yajl_complete_parse(x.h);
	if (st == yajl_status_ok && !err->code) {
		/* yajl stops at the end of the (last) value and lets a token cut
		 * short after it pass ("{...} \"x"): nothing but blanks may follow */
		size_t used = x.value_end;

		while (used < len && (body[used] == ' ' || body[used] == '\t' || body[used] == '\n' ||
				      body[used] == '\r'))
			used++;
		if (used < len)
			kerr_set(err, KERR_INVALID, "line %ld: the body is not valid JSON: something "
				 "follows the value", line_of(body, used));
	}
	if (st != yajl_status_ok && !err->code)
		syntax_error(&x, body, len, at_end);
	if (!err->code && batch->count == 0)
		kerr_set(err, KERR_INVALID, kind == BODY_NDJSON ? "the NDJSON body holds no runs" :
			 "the body is an empty array: post at least one run");
	if (err->code && kind == BODY_NDJSON && st != yajl_status_ok && strncmp(err->msg, "line ", 5)) {
		size_t n = strlen(err->msg);

		snprintf(err->msg + n, sizeof(err->msg) - n, " (line %ld)", line_of(body, x.run_at));
	}
	yajl_free(x.h);
	names_free(&x);
	free(x.rnames);
	free(x.rhash);
	run_clear(&x.cur);
	if (err->code) {
		run_batch_free(batch);
		return -1;
	}
	return 0;
}

void run_clear(struct run *r)
{
	size_t i;

	for (i = 0; i < r->nenergies; i++)
		free(r->energies[i].name);
	free(r->energies);
	free(r->system);
	free(r->application);
	free(r->variant);
	free(r->measured_at);
	free(r->idempotency_key);
	free(r->regions);
	free(r->labels);
	free(r->created_at);
	memset(r, 0, sizeof(*r));
}

void run_batch_free(struct run_batch *batch)
{
	size_t i;

	for (i = 0; i < batch->count; i++)
		run_clear(&batch->runs[i]);
	free(batch->runs);
	batch->runs = NULL;
	batch->count = 0;
}

static void set_text(json_t *o, const char *key, const char *text)
{
	json_error_t je;
	json_t *v;

	if (!text)
		return;
	v = json_loads(text, 0, &je);
	if (v)
		json_object_set_new(o, key, v);
}

json_t *run_to_json(const struct run *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_integer(r->id));
	json_object_set_new(o, "system", json_string(r->system));
	json_object_set_new(o, "application", json_string(r->application));
	json_object_set_new(o, "variant", json_string(r->variant ? r->variant : ""));
	json_object_set_new(o, "p", json_integer(r->p));
	json_object_set_new(o, "n", json_real(r->n));
	json_object_set_new(o, "tau", json_real(r->tau));
	if (r->has & RUN_HAS_CHI) {
		json_object_set_new(o, "chi", json_real(r->chi));
		json_object_set_new(o, "gamma", json_real(r->gamma));
		json_object_set_new(o, "efficiency", json_real(1.0 - r->chi / r->tau));
	}
	if (r->has & RUN_HAS_FREQ)
		json_object_set_new(o, "frequency_mhz", json_real(r->frequency_mhz));
	if (r->has & RUN_HAS_CAP)
		json_object_set_new(o, "power_cap_w", json_real(r->power_cap_w));
	if (r->has & RUN_HAS_ENERGY)
		json_object_set_new(o, "energy_j", json_real(r->energy_j));
	set_text(o, "regions", r->regions);
	set_text(o, "labels", r->labels);
	if (r->measured_at)
		json_object_set_new(o, "measured_at", json_string(r->measured_at));
	if (r->idempotency_key)
		json_object_set_new(o, "idempotency_key", json_string(r->idempotency_key));
	if (r->created_at)
		json_object_set_new(o, "created_at", json_string(r->created_at));
	return o;
}
