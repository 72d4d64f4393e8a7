#include "rapl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *rapl_root(void)
{
	const char *r = getenv("KARTE_POWERCAP_ROOT");

	return r && *r ? r : "/sys/class/powercap";
}

/* The first line of root/zone/file into buf, without the newline. */
static int read_line(const char *root, const char *zone, const char *file, char *buf, size_t size)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", root, zone, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int cmp_zone(const void *a, const void *b)
{
	return strcmp(((const struct rapl_domain *)a)->zone, ((const struct rapl_domain *)b)->zone);
}

size_t rapl_open(struct rapl *r, const char *root)
{
	char name[64], range[64], path[512];
	struct dirent *e;
	DIR *dir;

	memset(r, 0, sizeof(*r));
	if (!root)
		root = rapl_root();
	dir = opendir(root);
	if (!dir) {
		snprintf(r->why, sizeof(r->why), "%s: %s (no powercap driver: no RAPL on this machine, "
			 "or a virtual machine that does not pass it on)", root, strerror(errno));
		return 0;
	}
	while ((e = readdir(dir)) && r->n < RAPL_MAX_DOMAINS) {
		struct rapl_domain *d = &r->d[r->n];

		if (strncmp(e->d_name, "intel-rapl:", 11) && strncmp(e->d_name, "amd-rapl:", 9))
			continue;
		if (read_line(root, e->d_name, "name", name, sizeof(name)))
			continue;
		if (strncmp(name, "package", 7) && strcmp(name, "dram"))
			continue;	/* core, uncore, psys: inside the package or the whole box */
		if (read_line(root, e->d_name, "max_energy_range_uj", range, sizeof(range)))
			continue;
		snprintf(path, sizeof(path), "%s/%s/energy_uj", root, e->d_name);
		d->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (d->fd < 0) {	/* root only since Linux 5.10 (CVE-2020-8694) */
			if (!r->why[0])
				snprintf(r->why, sizeof(r->why), "%s: %s%s", path, strerror(errno),
					 errno == EACCES ? " (root only since Linux 5.10; a site lets a group read "
					 "it with " RAPL_RULE ", see docs/guide.md \"Energy without root\")" : "");
			continue;
		}
		snprintf(d->name, sizeof(d->name), "%s", name);
		snprintf(d->zone, sizeof(d->zone), "%s", e->d_name);
		d->max_range_uj = strtoull(range, NULL, 10);
		r->n++;
	}
	closedir(dir);
	qsort(r->d, r->n, sizeof(r->d[0]), cmp_zone);
	if (r->n)
		r->why[0] = '\0';
	else if (!r->why[0])
		snprintf(r->why, sizeof(r->why), "%s: no package or DRAM domain (intel-rapl:N, amd-rapl:N)", root);
	return r->n;
}

void rapl_close(struct rapl *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		close(r->d[i].fd);
	r->n = 0;
}

int rapl_read(const struct rapl *r, uint64_t *uj)
{
	char buf[32];
	ssize_t got;
	size_t i;

	for (i = 0; i < r->n; i++) {
		got = pread(r->d[i].fd, buf, sizeof(buf) - 1, 0);
		if (got <= 0)
			return -1;
		buf[got] = '\0';
		uj[i] = strtoull(buf, NULL, 10);
	}
	return 0;
}

double rapl_joules(uint64_t before, uint64_t after, uint64_t max_range)
{
	/* the counter runs from 0 to max_range and starts again at 0 */
	uint64_t d = after >= before ? after - before : max_range - before + after + 1;

	return (double)d * 1e-6;
}
