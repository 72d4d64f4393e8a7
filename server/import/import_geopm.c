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

int xp_read_geopm(struct xp *x, const char *body, size_t len, const struct import_opts *o,
		  struct kerr *err)
{
	size_t pos = 0, n, hosts = 0, nregions = 0, i;
	const char *line;
	char key[128], region[NAME_MAX_LEN], lb[8192];
	enum { NONE, REGION, APP, OTHER } sect = NONE;
	double v, tau = 0, energy = 0;
	struct {
		char *name;
		double time, energy;
	} *regs = NULL;
	uint32_t root, r = XP_NONE, tm, em, pt;
	struct globals g = {0};
	double pn[2];
	bool has_n, yaml_hosts = false;
	int rc = -1;

	root = xp_child(x, XP_NONE, "application", 11, err);
	while (xp_next_line(body, len, &pos, &line, &n)) {
		size_t ind = 0;

		/* each line as a string of its own: the body need not end in NUL */
		if (n >= sizeof(lb)) {
			xp_warn(x, "a line of %zu bytes was left out (at most %zu)", n, sizeof(lb) - 1);
			continue;
		}
		memcpy(lb, line, n);
		lb[n] = '\0';
		line = lb;

		while (ind < n && line[ind] == ' ')
			ind++;
		if (n > 6 && !strncmp(line, "Host: ", 6)) {
			hosts++;
			sect = NONE;
			continue;
		}
		if (!strncmp(line, "Hosts:", 6) && ind == 0) {
			yaml_hosts = true;
			continue;
		}
		if (yaml_hosts && ind == 2 && n > 3 && line[n - 1] == ':') {
			hosts++;
			sect = NONE;
			continue;
		}
		if (!strncmp(line + ind, "Unmarked Totals:", 16)) {
			/* YAML's name for what the text report calls a region */
			snprintf(region, sizeof(region), "unmarked-region");
			goto region_found;
		}
		if (!strncmp(line + ind, "Region ", 7) || !strncmp(line + ind, "region:", 7)) {
			/* "Region NAME (0xHASH):" in the text report, "region: \"NAME\"" in YAML */
			const char *s = line + ind + 7, *e = line + n;
			size_t k;

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
			k = (size_t)(e - s) < sizeof(region) - 1 ? (size_t)(e - s) : sizeof(region) - 1;
			memcpy(region, s, k);
			region[k] = '\0';
region_found:
			for (i = 0; i < nregions && strcmp(regs[i].name, region); i++)
				;
			if (i == nregions) {
				if (nregions == IMPORT_PATHS_MAX) {
					kerr_field(err, KERR_TOO_LARGE, "body", "the report has more than %d regions",
						   IMPORT_PATHS_MAX);
					goto out;
				}
				regs = xrealloc(regs, (nregions + 1) * sizeof(*regs));
				regs[nregions].name = xstrdup(region);
				regs[nregions].time = 0;
				regs[nregions].energy = 0;
				nregions++;
			}
			r = (uint32_t)i;
			sect = REGION;
			continue;
		}
		if (!strncmp(line + ind, "Application Totals:", 19)) {
			sect = APP;
			continue;
		}
		if (!strncmp(line + ind, "Epoch Totals:", 13)) {
			sect = OTHER;
			continue;
		}
		if (!report_pair(line, n, key, sizeof(key), &v)) {
			if (ind == 0 && hosts == 0 && memchr(line, ':', n)) {
				/* a header line "Profile: name" */
				const char *colon = memchr(line, ':', n);
				char name[128], val[256];
				size_t kl = (size_t)(colon - line), vl = n - kl - 1;

				if (kl < sizeof(name) && vl < sizeof(val)) {
					memcpy(name, line, kl);
					name[kl] = '\0';
					memcpy(val, colon + 1, vl);
					val[vl] = '\0';
					globals_add(&g, name, val[0] == ' ' ? val + 1 : val);
				}
			}
			continue;
		}
		if (ind == 0 && hosts == 0) {
			char num[40];

			snprintf(num, sizeof(num), "%.17g", v);
			globals_add(&g, key, num);
		}
		if (sect == REGION && r != XP_NONE) {
			if (!strncmp(key, "runtime", 7) && v > regs[r].time)
				regs[r].time = v;	/* the slowest host's */
			else if (strstr(key, "energy"))
				regs[r].energy += v;	/* every host's */
		} else if (sect == APP) {
			if (!strncmp(key, "runtime", 7) && v > tau)
				tau = v;
			else if (strstr(key, "energy") && (!strncmp(key, "package-energy", 14) ||
							   !strncmp(key, "dram-energy", 11) ||
							   !strncmp(key, "energy", 6))) {
				energy += v;
			}
		}
	}
	if (!hosts) {
		rc = kerr_field(err, KERR_INVALID, "body", "not a GEOPM report: no 'Host:' section");
		goto out;
	}
	if (!(tau > 0)) {
		rc = kerr_field(err, KERR_INVALID, "body", "the report has no 'Application Totals' runtime");
		goto out;
	}
	{
		char num[32];

		snprintf(num, sizeof(num), "%zu", hosts);
		globals_add(&g, "jobsize", num);
	}
	if (globals_point(x, &g, hosts, o, pn, &has_n, err))
		goto out;
	if ((pt = xp_point(x, pn, err)) == XP_NONE || (tm = xp_metric(x, "time", 4, err)) == XP_NONE ||
	    (em = xp_metric(x, "energy", 6, err)) == XP_NONE)
		goto out;
	if (xp_value(x, root, tm, pt, tau, err) || (energy > 0 && xp_value(x, root, em, pt, energy, err)))
		goto out;
	for (i = 0; i < nregions; i++) {
		uint32_t c = xp_child(x, root, regs[i].name, strlen(regs[i].name), err);

		if (c == XP_NONE)
			goto out;
		if (xp_value(x, c, tm, pt, regs[i].time, err) ||
		    (regs[i].energy > 0 && xp_value(x, c, em, pt, regs[i].energy, err)))
			goto out;
	}
	rc = 0;
out:
	for (i = 0; i < nregions; i++)
		free(regs[i].name);
	free(regs);
	globals_free(&g);
	return rc;
}
