#include "karte_region.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef KARTE_MPI
#include <mpi.h>
#endif

#include "rapl.h"
#include "core/mono.h"

/*
 * One process measures itself, so the state is the process's: a fixed table
 * of regions found by hashing their names (open addressing), so a begin or
 * an end after the first is a hash, a clock read and (with RAPL) a pread.
 */
struct region {
	char name[KARTE_REGION_NAME_MAX + 1];
	uint32_t hash;		/* 0: slot free */
	bool overhead;
	bool open;
	double t0, time;	/* seconds */
	uint64_t e0[RAPL_MAX_DOMAINS];
	double energy;		/* joules, every domain */
	uint64_t calls;
};

static struct {
	bool started, finished, use_rapl;
	double t0;
	struct rapl rapl;
	uint64_t e0[RAPL_MAX_DOMAINS];
	struct region r[KARTE_REGIONS_MAX];
	size_t used;
	pthread_t sampler;
	bool sampling;
	volatile bool stop_sampling;
} K;

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h ? h : 1;
}

/* The slot of name, created when new (the only time a name is copied). */
static struct region *slot(const char *name)
{
	uint32_t h;
	size_t i, k;

	if (!name || !*name || strlen(name) > KARTE_REGION_NAME_MAX)
		return NULL;
	h = fnv1a(name);
	for (k = 0; k < KARTE_REGIONS_MAX; k++) {
		i = (h + k) % KARTE_REGIONS_MAX;
		if (K.r[i].hash == h && !strcmp(K.r[i].name, name))
			return &K.r[i];
		if (K.r[i].hash == 0) {
			K.r[i].hash = h;
			strcpy(K.r[i].name, name);
			K.used++;
			return &K.r[i];
		}
	}
	return NULL;	/* table full */
}

static double rapl_total(const uint64_t *before, const uint64_t *after)
{
	double j = 0;
	size_t d;

	for (d = 0; d < K.rapl.n; d++)
		j += rapl_joules(before[d], after[d], K.rapl.d[d].max_range_uj);
	return j;
}

static void *sample(void *arg)
{
	const char *path = getenv("KARTE_TRACE");
	double interval = atof(getenv("KARTE_SAMPLE_MS")) / 1000.0, t, tprev;
	uint64_t prev[RAPL_MAX_DOMAINS], cur[RAPL_MAX_DOMAINS];
	FILE *f = fopen(path && *path ? path : "karte-trace.csv", "w");

	(void)arg;
	if (!f)
		return NULL;
	fprintf(f, "t_s,power_w\n");
	rapl_read(&K.rapl, prev);
	tprev = mono_s();
	while (!K.stop_sampling) {
		struct timespec ts = {(time_t)interval, (long)((interval - floor(interval)) * 1e9)};

		nanosleep(&ts, NULL);
		t = mono_s();
		if (rapl_read(&K.rapl, cur))
			break;
		fprintf(f, "%.6f,%.3f\n", t - K.t0, rapl_total(prev, cur) / (t - tprev));
		memcpy(prev, cur, sizeof(prev));
		tprev = t;
	}
	fclose(f);
	return NULL;
}

static void at_exit(void)
{
	karte_finish();
}

/* Whether this process is the first of its job (or of no MPI job): the one
 * that says what all would say. */
static bool first_rank(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]) && *getenv(vars[i]))
			return !strcmp(getenv(vars[i]), "0");
	return true;
}

void karte_init(void)
{
	const char *ms = getenv("KARTE_SAMPLE_MS"), *use = getenv("KARTE_REGION_RAPL");

	if (K.started)
		return;
	K.started = true;
	rapl_open(&K.rapl, NULL);
	K.use_rapl = K.rapl.n > 0 && !(use && !strcmp(use, "0"));
	if (!K.rapl.n && !(use && !strcmp(use, "0")) && first_rank())
		fprintf(stderr, "karte_region: no energy: %s\n", K.rapl.why);
	if (K.rapl.n)
		rapl_read(&K.rapl, K.e0);
	K.t0 = mono_s();
	if (K.rapl.n && ms && atof(ms) > 0 && pthread_create(&K.sampler, NULL, sample, NULL) == 0)
		K.sampling = true;
	atexit(at_exit);
}

int karte_region_begin(const char *name)
{
	struct region *r;

	if (!K.started)
		karte_init();
	r = slot(name);
	if (!r || r->open)
		return -1;
	r->open = true;
	r->calls++;
	if (K.use_rapl)
		rapl_read(&K.rapl, r->e0);
	r->t0 = mono_s();
	return 0;
}

int karte_region_end(const char *name)
{
	double t = mono_s();
	struct region *r = slot(name);
	uint64_t e[RAPL_MAX_DOMAINS];

	if (!r || !r->open)
		return -1;
	r->open = false;
	r->time += t - r->t0;
	if (K.use_rapl && rapl_read(&K.rapl, e) == 0)
		r->energy += rapl_total(r->e0, e);
	return 0;
}

int karte_region_overhead(const char *name)
{
	struct region *r = slot(name);

	if (!r)
		return -1;
	r->overhead = true;
	return 0;
}

/* JSON string of s (names are short and printable, but quote anyway). */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void write_env_str(FILE *f, const char *key, const char *env)
{
	const char *v = getenv(env);

	if (v && *v) {
		fprintf(f, "\"%s\":", key);
		json_str(f, v);
		fputc(',', f);
	}
}

/* Region figures gathered over ranks (or this process's alone). */
struct totals {
	double tau, energy;
	double time[KARTE_REGIONS_MAX], renergy[KARTE_REGIONS_MAX];
	int ranks;
	bool writer;
};

static void gather(struct totals *t, double tau, double energy)
{
	size_t i;

	t->tau = tau;
	t->energy = energy;
	t->ranks = 1;
	t->writer = true;
	for (i = 0; i < KARTE_REGIONS_MAX; i++) {
		t->time[i] = K.r[i].time;
		t->renergy[i] = K.r[i].energy;
	}
#ifdef KARTE_MPI
	{
		int inited = 0, fin = 0, rank, node_rank;
		MPI_Comm node;
		double e_mine, re_mine[KARTE_REGIONS_MAX];

		MPI_Initialized(&inited);
		MPI_Finalized(&fin);
		if (!inited || fin)
			return;
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		MPI_Comm_size(MPI_COMM_WORLD, &t->ranks);
		/* ranks of one node read the same counters: count them once */
		MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
		MPI_Comm_rank(node, &node_rank);
		MPI_Comm_free(&node);
		e_mine = node_rank == 0 ? energy : 0;
		for (i = 0; i < KARTE_REGIONS_MAX; i++)
			re_mine[i] = node_rank == 0 ? K.r[i].energy : 0;
		MPI_Reduce(&tau, &t->tau, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
		MPI_Reduce(&e_mine, &t->energy, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
		/* the table layout is the same on every rank only if every rank
		 * marked the same regions in the same order: ranks are SPMD */
		for (i = 0; i < KARTE_REGIONS_MAX; i++)
			t->time[i] = K.r[i].time;
		MPI_Reduce(rank == 0 ? MPI_IN_PLACE : t->time, t->time, KARTE_REGIONS_MAX, MPI_DOUBLE,
			   MPI_MAX, 0, MPI_COMM_WORLD);
		MPI_Reduce(re_mine, t->renergy, KARTE_REGIONS_MAX, MPI_DOUBLE, MPI_SUM, 0,
			   MPI_COMM_WORLD);
		t->writer = rank == 0;
	}
#endif
}

int karte_finish(void)
{
	double tau, gamma = 0, energy = 0;
	uint64_t e[RAPL_MAX_DOMAINS];
	const char *path = getenv("KARTE_RESULTS");
	struct totals t;
	bool first = true;
	size_t i;
	FILE *f;

	if (!K.started || K.finished)
		return 0;
	K.finished = true;
	tau = mono_s() - K.t0;
	if (K.rapl.n && rapl_read(&K.rapl, e) == 0)
		energy = rapl_total(K.e0, e);
	if (K.sampling) {
		K.stop_sampling = true;
		pthread_join(K.sampler, NULL);
	}
	gather(&t, tau, energy);
	rapl_close(&K.rapl);
	if (!t.writer)
		return 0;
	f = fopen(path && *path ? path : "karte-run.json", "w");
	if (!f)
		return -1;
	for (i = 0; i < KARTE_REGIONS_MAX; i++)
		if (K.r[i].hash && !K.r[i].overhead)
			gamma += t.time[i];
	if (gamma > t.tau)
		gamma = t.tau;	/* nested computation regions counted twice: see the README */
	fputc('{', f);
	write_env_str(f, "system", "KARTE_SYSTEM");
	write_env_str(f, "application", "KARTE_APPLICATION");
	write_env_str(f, "variant", "KARTE_VARIANT");
	if (getenv("KARTE_N") && atof(getenv("KARTE_N")) > 0)
		fprintf(f, "\"n\":%.17g,", atof(getenv("KARTE_N")));
	fprintf(f, "\"p\":%d,\"tau\":%.17g,\"gamma\":%.17g,", getenv("KARTE_P") ?
		atoi(getenv("KARTE_P")) : t.ranks, t.tau, gamma);
	if (K.rapl.n || t.energy > 0)
		fprintf(f, "\"energy_j\":%.17g,", t.energy);
	fprintf(f, "\"regions\":[");
	for (i = 0; i < KARTE_REGIONS_MAX; i++) {
		if (!K.r[i].hash)
			continue;
		fprintf(f, "%s{\"name\":", first ? "" : ",");
		json_str(f, K.r[i].name);
		fprintf(f, ",\"time_s\":%.17g", t.time[i]);
		if (K.use_rapl)
			fprintf(f, ",\"energy_j\":%.17g", t.renergy[i]);
		fprintf(f, ",\"counters\":{\"calls\":%llu}}", (unsigned long long)K.r[i].calls);
		first = false;
	}
	fprintf(f, "],\"labels\":{\"collector\":\"karte_region\"}}\n");
	return fclose(f) ? -1 : 0;
}

/* ---- Fortran ------------------------------------------------------------ */

static int with_name(const char *name, int len, int (*fn)(const char *))
{
	char buf[KARTE_REGION_NAME_MAX + 1];

	while (len > 0 && name[len - 1] == ' ')
		len--;	/* Fortran pads with blanks */
	if (len <= 0 || len > KARTE_REGION_NAME_MAX)
		return -1;
	memcpy(buf, name, (size_t)len);
	buf[len] = '\0';
	return fn(buf);
}

int karte_region_begin_f(const char *name, int len)
{
	return with_name(name, len, karte_region_begin);
}

int karte_region_end_f(const char *name, int len)
{
	return with_name(name, len, karte_region_end);
}

int karte_region_overhead_f(const char *name, int len)
{
	return with_name(name, len, karte_region_overhead);
}

int karte_finish_f(void)
{
	return karte_finish();
}

#ifdef KARTE_MPI
/* PMPI: finish while MPI still works (atexit runs after MPI_Finalize). */
int MPI_Finalize(void)
{
	karte_finish();
	return PMPI_Finalize();
}
#endif
