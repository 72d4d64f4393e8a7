/*
 * rapl: energy counters of the Linux powercap tree (Intel RAPL and AMD's
 * equivalent): the package and DRAM domains, read as microjoules and
 * differenced with the counter's wrap-around (max_energy_range_uj) handled.
 * The tree is /sys/class/powercap unless KARTE_POWERCAP_ROOT names another
 * (the tests use a fake one).
 */
#ifndef KARTE_RAPL_H
#define KARTE_RAPL_H

#include <stddef.h>
#include <stdint.h>

#define RAPL_MAX_DOMAINS 16

struct rapl_domain {
	char name[64];		/* "package-0", "dram", ... */
	char zone[256];		/* "intel-rapl:0", "intel-rapl:0:1" */
	int fd;			/* energy_uj, kept open; read with pread */
	uint64_t max_range_uj;	/* the counter wraps to 0 after this */
};

struct rapl {
	struct rapl_domain d[RAPL_MAX_DOMAINS];
	size_t n;
	char why[1024];		/* with n == 0: which file and why no energy */
};

/* The file a site installs (systemd-tmpfiles) to let a group read the
 * counters, as the messages name it. */
#define RAPL_RULE "deploy/karte-rapl.conf"

/* Find the package and DRAM domains under root (NULL: the environment or
 * /sys/class/powercap). Returns how many were found; 0 is not an error (no
 * RAPL here, or no permission), it only means no energy, and r->why says
 * which file and why (absent, or not readable: energy_uj is root-only
 * since Linux 5.10). */
size_t rapl_open(struct rapl *r, const char *root);
void rapl_close(struct rapl *r);

/* Read every domain's counter into uj[r->n]. 0, or -1 if a read failed. */
int rapl_read(const struct rapl *r, uint64_t *uj);

/* Joules between two readings of one counter that wraps after max_range. */
double rapl_joules(uint64_t before, uint64_t after, uint64_t max_range);

/* The root in use: KARTE_POWERCAP_ROOT or /sys/class/powercap. */
const char *rapl_root(void);

#endif
