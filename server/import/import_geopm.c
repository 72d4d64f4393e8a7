/*
 * GEOPM's reports (format=geopm-report), text and YAML: one run a report.
 * p is the number of hosts, tau the largest host's "Application Totals"
 * runtime, energy_j every host's package and DRAM energy; each region
 * (and unmarked-region) a run region with the slowest host's runtime and
 * every host's energy.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_globals.h"
#include "import_xp.h"
#include "core/xalloc.h"

#define NAME_MAX_LEN 4096

/* ---- GEOPM report ------------------------------------------------------------- */

/* "key (unit): value" of a report line; false when the line is not that. */
static bool report_pair(const char *line, size_t n, char *key, size_t ksize, double *v)
{
	const char *colon = memchr(line, ':', n);
	size_t a = 0, k;

	if (!colon)
		return false;
	while (a < n && (line[a] == ' ' || line[a] == '\t' || line[a] == '-'))
		a++;
	k = (size_t)(colon - line) - a;
	if (k >= ksize)
		return false;
	memcpy(key, line + a, k);
	key[k] = '\0';
	return xp_number(colon + 1, n - (size_t)(colon + 1 - line), v);
}

/* What a report has said so far. */
struct geopm {
	size_t hosts, nregions;
	enum { NONE, REGION, APP, OTHER } sect;	/* the section lines are in */
	uint32_t r;		/* the region of a REGION section */
	bool yaml_hosts;	/* past YAML's "Hosts:" */
	double tau, energy;	/* the slowest host's runtime, every host's energy */
	struct {
		char *name;
		double time, energy;
	} *regs;
	struct globals g;
};

/* A region's name from its heading into name: "Region NAME (0xHASH):" in
 * the text report, "region: \"NAME\"" in YAML, whose "Unmarked Totals:" is
 * the text report's unmarked-region. False when the line is no heading. */
static bool region_heading(const char *line, size_t n, size_t ind, char *name, size_t size)
{
	const char *s = line + ind + 7, *e = line + n;
	size_t k;

	if (!strncmp(line + ind, "Unmarked Totals:", 16)) {
		snprintf(name, size, "unmarked-region");
		return true;
	}
	if (strncmp(line + ind, "Region ", 7) && strncmp(line + ind, "region:", 7))
		return false;
	while (s < e && (*s == ' ' || *s == '"'))
		s++;
	if (!strncmp(line + ind, "Region ", 7)) {
		const char *paren = e;

		while (paren > s && *paren != '(')
			paren--;
		e = paren > s ? paren : e;
	}
	while (e > s && (e[-1] == ' ' || e[-1] == '"' || e[-1] == ':'))
		e--;
	k = (size_t)(e - s) < size - 1 ? (size_t)(e - s) : size - 1;
	memcpy(name, s, k);
	name[k] = '\0';
	return true;
}

/* The region called name, added when new: its index, or -1 past the limit. */
static int region_of(struct geopm *s, const char *name, struct kerr *err)
{
	size_t i;

	for (i = 0; i < s->nregions && strcmp(s->regs[i].name, name); i++)
		;
	if (i == s->nregions) {
		if (s->nregions == IMPORT_PATHS_MAX)
			return kerr_field(err, KERR_TOO_LARGE, "body", "the report has more than %d regions",
					  IMPORT_PATHS_MAX);
		s->regs = xrealloc(s->regs, (s->nregions + 1) * sizeof(*s->regs));
		s->regs[i].name = xstrdup(name);
		s->regs[i].time = 0;
		s->regs[i].energy = 0;
		s->nregions++;
	}
	s->r = (uint32_t)i;
	return 0;
}

/* A header line before the first host, "Profile: name", as a global. */
static void header_text(struct geopm *s, const char *line, size_t n)
{
	const char *colon = memchr(line, ':', n);
	char name[128], val[256];
	size_t kl, vl;

	if (!colon)
		return;
	kl = (size_t)(colon - line);
	vl = n - kl - 1;
	if (kl < sizeof(name) && vl < sizeof(val)) {
		memcpy(name, line, kl);
		name[kl] = '\0';
		memcpy(val, colon + 1, vl);
		val[vl] = '\0';
		globals_add(&s->g, name, val[0] == ' ' ? val + 1 : val);
	}
}

/* "key: v" of the section the report is in. */
static void section_value(struct geopm *s, const char *key, double v)
{
	if (s->sect == REGION && s->r != XP_NONE) {
		if (!strncmp(key, "runtime", 7) && v > s->regs[s->r].time)
			s->regs[s->r].time = v;	/* the slowest host's */
		else if (strstr(key, "energy"))
			s->regs[s->r].energy += v;	/* every host's */
	} else if (s->sect == APP) {
		if (!strncmp(key, "runtime", 7) && v > s->tau)
			s->tau = v;
		else if (!strncmp(key, "package-energy", 14) || !strncmp(key, "dram-energy", 11) ||
			 !strncmp(key, "energy", 6))
			s->energy += v;
	}
}

/* One line of the report (NUL-ended, n bytes): 0, or -1 with err set. */
static int report_line(struct geopm *s, const char *line, size_t n, struct kerr *err)
{
	char key[128], region[NAME_MAX_LEN];
	size_t ind = 0;
	double v;

	while (ind < n && line[ind] == ' ')
		ind++;
	if ((n > 6 && !strncmp(line, "Host: ", 6)) ||
	    (s->yaml_hosts && ind == 2 && n > 3 && line[n - 1] == ':')) {
		s->hosts++;
		s->sect = NONE;
	} else if (!strncmp(line, "Hosts:", 6) && ind == 0) {
		s->yaml_hosts = true;
	} else if (region_heading(line, n, ind, region, sizeof(region))) {
		if (region_of(s, region, err))
			return -1;
		s->sect = REGION;
	} else if (!strncmp(line + ind, "Application Totals:", 19)) {
		s->sect = APP;
	} else if (!strncmp(line + ind, "Epoch Totals:", 13)) {
		s->sect = OTHER;
	} else if (!report_pair(line, n, key, sizeof(key), &v)) {
		if (ind == 0 && s->hosts == 0)
			header_text(s, line, n);
	} else {
		if (ind == 0 && s->hosts == 0) {
			char num[40];

			snprintf(num, sizeof(num), "%.17g", v);
			globals_add(&s->g, key, num);
		}
		section_value(s, key, v);
	}
	return 0;
}

/* The report's run into x: the application's time and energy, each
 * region's beneath it. */
static int report_store(struct xp *x, struct geopm *s, const struct import_opts *o, struct kerr *err)
{
	uint32_t root, tm, em, pt, c;
	double pn[2];
	bool has_n;
	char num[32];
	size_t i;

	if (!s->hosts)
		return kerr_field(err, KERR_INVALID, "body", "not a GEOPM report: no 'Host:' section");
	if (!(s->tau > 0))
		return kerr_field(err, KERR_INVALID, "body", "the report has no 'Application Totals' runtime");
	snprintf(num, sizeof(num), "%zu", s->hosts);
	globals_add(&s->g, "jobsize", num);
	if (globals_point(x, &s->g, s->hosts, o, pn, &has_n, err))
		return -1;
	if ((root = xp_child(x, XP_NONE, "application", 11, err)) == XP_NONE ||
	    (pt = xp_point(x, pn, err)) == XP_NONE || (tm = xp_metric(x, "time", 4, err)) == XP_NONE ||
	    (em = xp_metric(x, "energy", 6, err)) == XP_NONE)
		return -1;
	if (xp_value(x, root, tm, pt, s->tau, err) ||
	    (s->energy > 0 && xp_value(x, root, em, pt, s->energy, err)))
		return -1;
	for (i = 0; i < s->nregions; i++) {
		if ((c = xp_child(x, root, s->regs[i].name, strlen(s->regs[i].name), err)) == XP_NONE)
			return -1;
		if (xp_value(x, c, tm, pt, s->regs[i].time, err) ||
		    (s->regs[i].energy > 0 && xp_value(x, c, em, pt, s->regs[i].energy, err)))
			return -1;
	}
	return 0;
}

int xp_read_geopm(struct xp *x, const char *body, size_t len, const struct import_opts *o,
		  struct kerr *err)
{
	struct geopm s = {.r = XP_NONE};
	size_t pos = 0, n, i;
	const char *line;
	char lb[8192];
	int rc = 0;

	while (rc == 0 && xp_next_line(body, len, &pos, &line, &n)) {
		/* each line as a string of its own: the body need not end in NUL */
		if (n >= sizeof(lb)) {
			xp_warn(x, "a line of %zu bytes was left out (at most %zu)", n, sizeof(lb) - 1);
			continue;
		}
		memcpy(lb, line, n);
		lb[n] = '\0';
		rc = report_line(&s, lb, n, err);
	}
	if (rc == 0)
		rc = report_store(x, &s, o, err);
	for (i = 0; i < s.nregions; i++)
		free(s.regs[i].name);
	free(s.regs);
	globals_free(&s.g);
	return rc;
}
