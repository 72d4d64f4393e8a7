#include "karte_region.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
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
 * One process measures itself, its threads alike. The names are the
 * process's: a fixed table found by hashing them (open addressing), read
 * without a lock (a slot's hash is stored last, with release) and written
 * under one, the first time a name is seen. The figures are each thread's
 * own (a table by the same slots, made at its first region), merged when the
 * run is written: a region's time is the longest any thread spent in it
 * (threads run a parallel region side by side; the slowest sets the pace),
 * its calls the sum, its energy what the thread that started the clock
 * measured (the counters are the package's, not a thread's: read by several
 * threads they would be counted once per thread). After the first call of a
 * thread for a name, begin and end are a hash, a clock read and, in that one
 * thread, a pread of each counter; no lock, no allocation.
 */
struct region {
	char name[KARTE_REGION_NAME_MAX + 1];
	int parent;		/* the slot of the region it was opened in, -1: none */
	_Atomic uint32_t hash;	/* 0: slot free; stored after name and parent */
};

/* One thread's figures for one region. */
struct figures {
	bool open;
	double t0, time;	/* seconds */
	uint64_t e0[RAPL_MAX_DOMAINS];
	double energy;		/* joules, every domain */
	uint64_t calls;
};

/* One thread's figures for every slot; linked for karte_finish. */
struct thread_figures {
	struct figures f[KARTE_REGIONS_MAX];
	int open[KARTE_REGION_DEPTH_MAX];	/* the slots this thread has open, outermost first */
	int nopen;
	bool energy;		/* the thread that started the clock: it reads RAPL */
	struct thread_figures *next;
};

static struct {
	atomic_bool started, finished;
	bool use_rapl;
	pthread_once_t once;
	pthread_t first;	/* the thread that started the clock */
	pthread_mutex_t lock;	/* new names, the list of threads */
	double t0;
	struct rapl rapl;
	uint64_t e0[RAPL_MAX_DOMAINS];
	struct region r[KARTE_REGIONS_MAX];
	size_t used;
	char overhead[KARTE_REGIONS_MAX][KARTE_REGION_NAME_MAX + 1];	/* names marked overhead */
	size_t noverhead;
	struct thread_figures *threads;
	pthread_t sampler;
	bool sampling;
	atomic_bool stop_sampling;
} K = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

static _Thread_local struct thread_figures *T;

/* The hash of (parent, name): a call path's node. */
static uint32_t fnv1a(int parent, const char *s)
{
	uint32_t h = 2166136261u ^ (uint32_t)(parent + 1) * 0x9e3779b1u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h ? h : 1;
}

static bool bad_name(const char *name)
{
	return !name || !*name || strlen(name) > KARTE_REGION_NAME_MAX;
}

/* The slot of name opened inside slot parent (-1: at the top), made when
 * new (the only time a name is copied, under the lock); -1 for a bad name
 * or a full table. */
static int slot(int parent, const char *name)
{
	uint32_t h, have;
	size_t i, k;

	if (bad_name(name))
		return -1;
	h = fnv1a(parent, name);
	for (k = 0; k < KARTE_REGIONS_MAX; k++) {
		i = (h + k) % KARTE_REGIONS_MAX;
		have = atomic_load_explicit(&K.r[i].hash, memory_order_acquire);
		if (have == h && K.r[i].parent == parent && !strcmp(K.r[i].name, name))
			return (int)i;
		if (have == 0)
			break;
	}
	if (k == KARTE_REGIONS_MAX)
		return -1;
	pthread_mutex_lock(&K.lock);	/* look again from there: another may have come first */
	for (; k < KARTE_REGIONS_MAX; k++) {
		i = (h + k) % KARTE_REGIONS_MAX;
		have = atomic_load_explicit(&K.r[i].hash, memory_order_relaxed);
		if (have == h && K.r[i].parent == parent && !strcmp(K.r[i].name, name))
			break;
		if (have == 0) {
			strcpy(K.r[i].name, name);
			K.r[i].parent = parent;
			atomic_store_explicit(&K.r[i].hash, h, memory_order_release);
			K.used++;
			break;
		}
	}
	pthread_mutex_unlock(&K.lock);
	return k < KARTE_REGIONS_MAX ? (int)i : -1;
}

/* This thread's figures, made at its first region. */
static struct thread_figures *mine(void)
{
	if (T)
		return T;
	T = calloc(1, sizeof(*T));
	if (!T)
		return NULL;
	T->energy = pthread_equal(pthread_self(), K.first);
	pthread_mutex_lock(&K.lock);
	T->next = K.threads;
	K.threads = T;
	pthread_mutex_unlock(&K.lock);
	return T;
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
	while (!atomic_load(&K.stop_sampling)) {
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

static void init_once(void)
{
	const char *ms = getenv("KARTE_SAMPLE_MS"), *use = getenv("KARTE_REGION_RAPL");

	K.first = pthread_self();
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
	atomic_store(&K.started, true);
}

void karte_init(void)
{
	pthread_once(&K.once, init_once);
}

/* Where name is open in this thread's stack (innermost), or -1. */
static int open_at(const struct thread_figures *t, const char *name)
{
	int d;

	for (d = t->nopen - 1; d >= 0; d--)
		if (!strcmp(K.r[t->open[d]].name, name))
			return d;
	return -1;
}

int karte_region_begin(const char *name)
{
	struct thread_figures *t;
	struct figures *f;
	int i;

	if (!atomic_load_explicit(&K.started, memory_order_acquire))
		karte_init();
	t = mine();
	if (bad_name(name) || !t || t->nopen == KARTE_REGION_DEPTH_MAX || open_at(t, name) >= 0)
		return -1;	/* a region open already is not re-entered */
	i = slot(t->nopen ? t->open[t->nopen - 1] : -1, name);
	if (i < 0)
		return -1;
	t->open[t->nopen++] = i;
	f = &t->f[i];
	f->open = true;
	f->calls++;
	if (K.use_rapl && t->energy)
		rapl_read(&K.rapl, f->e0);
	f->t0 = mono_s();
	return 0;
}

int karte_region_end(const char *name)
{
	double now = mono_s();
	uint64_t e[RAPL_MAX_DOMAINS];
	int d = T && !bad_name(name) ? open_at(T, name) : -1, i;
	struct figures *f;

	if (d < 0)
		return -1;
	i = T->open[d];
	memmove(T->open + d, T->open + d + 1, (size_t)(T->nopen - d - 1) * sizeof(*T->open));
	T->nopen--;	/* closed out of order: the ones opened inside it stay open */
	f = &T->f[i];
	f->open = false;
	f->time += now - f->t0;
	if (K.use_rapl && T->energy && rapl_read(&K.rapl, e) == 0)
		f->energy += rapl_total(f->e0, e);
	return 0;
}

int karte_region_overhead(const char *name)
{
	size_t i;
	int rc = -1;

	if (bad_name(name))
		return -1;
	pthread_mutex_lock(&K.lock);
	for (i = 0; i < K.noverhead && strcmp(K.overhead[i], name); i++)
		;
	if (i < K.noverhead || K.noverhead < KARTE_REGIONS_MAX) {
		if (i == K.noverhead)
			strcpy(K.overhead[K.noverhead++], name);
		rc = 0;
	}
	pthread_mutex_unlock(&K.lock);
	return rc;
}

/* Whether slot i's name was marked overhead (every path of that name is). */
static bool is_overhead(size_t i)
{
	size_t k;

	for (k = 0; k < K.noverhead; k++)
		if (!strcmp(K.overhead[k], K.r[i].name))
			return true;
	return false;
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

/* Region figures gathered over threads and ranks. */
struct totals {
	double tau, energy;
	double time[KARTE_REGIONS_MAX], renergy[KARTE_REGIONS_MAX];
	uint64_t calls[KARTE_REGIONS_MAX];
	int ranks;
	bool writer;
};

/* This process's threads merged into t: a region's time the longest of a
 * thread's, calls their sum, energy what the clock's thread measured. */
static void merge_threads(struct totals *t)
{
	const struct thread_figures *th;
	size_t i;

	memset(t, 0, sizeof(*t));
	pthread_mutex_lock(&K.lock);
	for (th = K.threads; th; th = th->next)
		for (i = 0; i < KARTE_REGIONS_MAX; i++) {
			if (th->f[i].time > t->time[i])
				t->time[i] = th->f[i].time;
			t->calls[i] += th->f[i].calls;
			t->renergy[i] += th->f[i].energy;
		}
	pthread_mutex_unlock(&K.lock);
}

static void gather(struct totals *t, double tau, double energy)
{
	merge_threads(t);
	t->tau = tau;
	t->energy = energy;
	t->ranks = 1;
	t->writer = true;
#ifdef KARTE_MPI
	{
		int inited = 0, fin = 0, rank, node_rank;
		MPI_Comm node;
		double e_mine, re_mine[KARTE_REGIONS_MAX], time_mine[KARTE_REGIONS_MAX];
		size_t i;

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
			re_mine[i] = node_rank == 0 ? t->renergy[i] : 0;
		MPI_Reduce(&tau, &t->tau, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
		MPI_Reduce(&e_mine, &t->energy, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
		/* the table layout is the same on every rank only if every rank
		 * marked the same regions in the same order: ranks are SPMD */
		memcpy(time_mine, t->time, sizeof(time_mine));
		MPI_Reduce(time_mine, t->time, KARTE_REGIONS_MAX, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
		MPI_Reduce(re_mine, t->renergy, KARTE_REGIONS_MAX, MPI_DOUBLE, MPI_SUM, 0,
			   MPI_COMM_WORLD);
		t->writer = rank == 0;
	}
#endif
}

/* gamma: the time in computation regions, a computation region counted
 * where it starts (at the top, or inside an overhead one) and an overhead
 * region inside a computation one taken out again: nested regions once. */
static double computation(const struct totals *t)
{
	double gamma = 0;
	size_t i;

	for (i = 0; i < KARTE_REGIONS_MAX; i++) {
		int up = K.r[i].parent;

		if (!atomic_load_explicit(&K.r[i].hash, memory_order_acquire))
			continue;
		if (!is_overhead(i) && (up < 0 || is_overhead((size_t)up)))
			gamma += t->time[i];
		else if (is_overhead(i) && up >= 0 && !is_overhead((size_t)up))
			gamma -= t->time[i];
	}
	return gamma < 0 ? 0 : gamma;
}

/* Slot i's path written as a JSON array of names, outermost first. */
static void write_path(FILE *f, size_t i)
{
	int chain[KARTE_REGION_DEPTH_MAX], n = 0, up;

	for (up = (int)i; up >= 0 && n < KARTE_REGION_DEPTH_MAX; up = K.r[up].parent)
		chain[n++] = up;
	fputc('[', f);
	while (n--) {
		json_str(f, K.r[chain[n]].name);
		if (n)
			fputc(',', f);
	}
	fputc(']', f);
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

	if (!atomic_load(&K.started) || atomic_exchange(&K.finished, true))
		return 0;
	tau = mono_s() - K.t0;
	if (K.rapl.n && rapl_read(&K.rapl, e) == 0)
		energy = rapl_total(K.e0, e);
	if (K.sampling) {
		atomic_store(&K.stop_sampling, true);
		pthread_join(K.sampler, NULL);
	}
	gather(&t, tau, energy);
	rapl_close(&K.rapl);
	if (!t.writer)
		return 0;
	f = fopen(path && *path ? path : "karte-run.json", "w");
	if (!f)
		return -1;
	gamma = computation(&t);
	if (gamma > t.tau)
		gamma = t.tau;
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
		if (!atomic_load_explicit(&K.r[i].hash, memory_order_acquire))
			continue;
		fprintf(f, "%s{\"name\":", first ? "" : ",");
		json_str(f, K.r[i].name);
		if (K.r[i].parent >= 0) {
			fprintf(f, ",\"path\":");
			write_path(f, i);
		}
		fprintf(f, ",\"time_s\":%.17g", t.time[i]);
		if (K.use_rapl)
			fprintf(f, ",\"energy_j\":%.17g", t.renergy[i]);
		fprintf(f, ",\"counters\":{\"calls\":%llu}}", (unsigned long long)t.calls[i]);
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
