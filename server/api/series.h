/*
 * series: from stored runs to the inputs of libkarte_analysis. Loads one
 * series (system, application, variant) for the analysis endpoints, picks
 * the runs of one frequency for Orii's analysis, pools them into points,
 * the history of one point, the strong scaling from tau alone, and the
 * lane a read of series belongs in.
 */
#ifndef KARTE_SERIES_H
#define KARTE_SERIES_H

#include <jansson.h>
#include <stddef.h>

#include "analysis/energy.h"
#include "analysis/history.h"
#include "analysis/isoeff.h"
#include "karted.h"
#include "query.h"

/* Limits on what one analysis may load and walk (documented in the README):
 * the runs of one series, and the (p, n, n') pairs Orii's analysis walks
 * (about 50 ns each: 2e7 is about a second). */
#define SERIES_RUNS_MAX LIMIT_SERIES_RUNS
#define ISO_PAIRS_MAX 20000000.0

/* "system:application:variant [k=v, ...]": the names and room for the
 * label filters (cut short beyond it). */
#define SERIES_LABEL_SIZE (3 * RUN_NAME_MAX + 3 + 160)

enum series_flags {
	SERIES_ONE_FREQUENCY = 1 << 0,	/* runs[] holds the runs of one frequency */
	SERIES_WITH_REGIONS = 1 << 1,	/* all[] holds every run with its regions */
	SERIES_ALL_RUNS = 1 << 2,	/* all[] holds every run, regions and labels NULL */
	/* with SERIES_WITH_REGIONS: all[].regions holds the whole call tree;
	 * without, the first-level regions alone (what the energy analyses
	 * sum: a nested region's time and energy are inside its parent's) */
	SERIES_WITH_TREE = 1 << 3,
	/* with SERIES_WITH_REGIONS: all[].regions_text holds each run's
	 * regions unparsed (regions NULL), for a caller that parses them on
	 * several threads */
	SERIES_REGIONS_TEXT = 1 << 4,
};

/* A stored run with what the energy analysis needs. */
struct series_run {
	int64_t id;
	int64_t p;
	double n;
	double tau;
	double chi, gamma;	/* NAN when the run carries tau alone */
	double energy_j;	/* NAN when not posted */
	json_t *labels;		/* parsed, owned; NULL when none */
	double freq;		/* run-level frequency_mhz, NAN when not posted */
	json_t *regions;	/* parsed, owned; NULL when none */
	char *regions_text;	/* SERIES_REGIONS_TEXT: the stored text, owned; NULL when none */
};

struct series_data {
	char system[RUN_NAME_MAX + 1];
	char application[RUN_NAME_MAX + 1];
	char variant[RUN_NAME_MAX + 1];
	char label[SERIES_LABEL_SIZE];	/* series_label() */
	json_t *labels;		/* the label filters {K: V}, or NULL */
	double frequency_mhz;	/* the frequency runs[] were taken at; NAN: runs without one */
	struct ka_run *runs;	/* SERIES_ONE_FREQUENCY: the runs with chi */
	size_t nruns;
	size_t no_chi;		/* SERIES_ONE_FREQUENCY: runs left out for carrying tau alone */
	struct series_run *all;	/* SERIES_WITH_REGIONS */
	size_t nall;
	json_t *others;		/* [{frequency_mhz, runs}] of the frequencies left out */
	/* what the runs carry, counted where all[] is loaded (SERIES_WITH_REGIONS,
	 * SERIES_ALL_RUNS; otherwise the runs' texts are not read, regions among
	 * them, and only with_chi counts) */
	size_t with_chi;	/* runs loaded that carry chi (or gamma) */
	size_t with_energy;	/* ... energy: the run's energy_j, or a region's energy or power */
	size_t with_regions;	/* ... regions */
	size_t with_frequency;	/* ... a frequency_mhz, the run's or a region's */
};

/* Load the series named by the query (system and application required,
 * variant "" when absent). 400 naming the field, 404 when it has no runs.
 * SERIES_ONE_FREQUENCY keeps only runs with chi (Orii's analyses need it) and
 * counts the others in no_chi; 400 when no run has chi; 413 naming "series"
 * when its points make more than ISO_PAIRS_MAX pairs. Any load: 413 when
 * the series has more than SERIES_RUNS_MAX runs.
 * On success the caller frees with series_free (also safe after failure). */
int series_load(struct karted *k, struct req *rq, unsigned flags, struct series_data *sd,
		struct kerr *err);

/* The same with the names given (frequency: the frequency_mhz parameter,
 * NULL for the default; labels: the runs with these labels, NULL for all). */
int series_load_named(struct karted *k, const char *system, const char *application,
		      const char *variant, const char *frequency, const struct label_set *labels,
		      unsigned flags, struct series_data *sd, struct kerr *err);
void series_free(struct series_data *sd);

/* series_load_named with the query's frequency_mhz and the label filters
 * ls (NULL: the query's label.K=V). */
int series_load_in(struct karted *k, struct req *rq, const char *system,
		   const char *application, const char *variant, const struct label_set *ls,
		   unsigned flags, struct series_data *sd, struct kerr *err);

/* "system:application[:variant]" for messages and legends. */
const char *series_label(const struct series_data *sd);

/* {"system", "application", "variant"}; a new reference. */
json_t *series_json(const struct series_data *sd);

/* The frequency most of all[] was run at (ties: the highest; NAN stands for
 * runs without one, as a group); with frequency (the frequency_mhz
 * parameter) that one, 400 naming it when it is not a number above 0. */
int series_frequency(const struct series_data *sd, const char *frequency, double *out,
		     struct kerr *err);

/* Whether a run's frequency (NAN: none) is f. */
bool series_same_frequency(double run_freq, double f);

/* The frequencies SERIES_ONE_FREQUENCY left out; a new reference. */
json_t *series_other_frequencies(const struct series_data *sd);

/* The series' runs[] pooled into (p, n) points, into *obs (malloc'd; the
 * caller frees it) and the work space Orii's analysis needs (*work, *wsize). */
int series_pool(const struct series_data *sd, struct ka_obs **obs, size_t *nobs, void **work,
		size_t *wsize, struct kerr *err);

/* One (p, n) point of a series over time (GET /api/v1/analysis/history
 * and the history report): its runs in (measured_at, id) order, each held
 * against the latest HISTORY_WINDOW runs before it. */
#define HISTORY_RUNS_MAX 100000	/* runs of one point read */
#define HISTORY_WINDOW 100	/* previous runs a baseline takes, the latest */

struct history_run {
	int64_t id;
	char *when;		/* measured_at, or created_at without one */
	bool measured;
	double v;		/* the metric; NAN when the run lacks it */
	char *group;		/* by=KEY: the run's value of label KEY, or NULL */
	size_t gi;		/* its index in groups[] (SIZE_MAX: none) */
	double freq, cap;	/* frequency_mhz, power_cap_w; NAN: the run has none */
	size_t si;		/* its setting's index in settings[] */
	struct ka_baseline b;	/* of the runs before at its setting (b.runs 0: none) */
	enum ka_verdict verdict;
};

/* A setting of a point: a frequency and a power cap (NAN: none), each its
 * own baseline and its own line. */
struct history_setting {
	double freq, cap;
	size_t runs;		/* of the runs answered */
	char name[64];		/* "3000 MHz", "3000 MHz, cap 100 W", "no frequency" */
};

struct history {
	const char *system, *application, *variant;	/* borrowed from the query */
	const char *metric;	/* "tau" or "energy_j" */
	const char *by;		/* a label key, or NULL for time order */
	bool energy;
	int64_t p;
	double n;
	struct ka_thresholds t;	/* the series' own, then the query's */
	struct history_run *runs;
	size_t nruns, cap;
	size_t first;		/* runs before it are left out of the answer (limit) */
	size_t counts[3];	/* verdicts of the runs answered, by enum ka_verdict */
	const char **groups;	/* by: the label's values in the order of their first run */
	size_t ngroups;
	struct history_setting *settings;	/* in the order of their first run */
	size_t nsettings;
};

/* The history the query asks for: system, application, variant, p, n,
 * metric, by, min_runs, rel, noise, limit, label.K=V. 400 naming the field,
 * 404 for a point without runs, 413 past HISTORY_RUNS_MAX. history_free
 * after, also after a failure. */
int history_load(struct karted *k, struct req *rq, struct history *h, struct kerr *err);
void history_free(struct history *h);

/* The labels of a series' runs: {"series", "runs", "labels": [{"key",
 * "values": [{"value", "runs", "first", "last"}] in the order of first
 * (measured_at, else created_at), "more"}], "more_keys"}; at most 64 keys and
 * the 1000 most recent values of each. only: that key alone, or NULL. 404
 * for a series without runs. */
int series_labels(struct karted *k, const char *system, const char *application,
		  const char *variant, const char *only, json_t **out, struct kerr *err);

/* Strong scaling of a series from tau alone (GET /api/v1/analysis/scaling
 * and the scaling report): its runs at one frequency (frequency_mhz=, else
 * the one most runs have) pooled per (p, n), tau the median, and at each n
 * the speedup and efficiency relative to its smallest p (ka_strong_scaling).
 * chi is never needed. 400/404/413 as series_load. */
struct scaling_data {
	struct series_data sd;
	double frequency;	/* NAN: runs without one */
	struct ka_obs *obs;	/* sorted by (n, p) */
	size_t nobs;
	double *speedup, *efficiency;
	int64_t *base_p;
};

int scaling_load(struct karted *k, struct req *rq, const char *system, const char *application,
		 const char *variant, const struct label_set *ls, struct scaling_data *sc,
		 struct kerr *err);
void scaling_free(struct scaling_data *sc);

/* The lane (http.h) of a read of stored series: the quick one while the
 * series it names (system, application, variant; and every series=S:A:V)
 * hold LANE_QUICK_RUNS runs or fewer together, else the slow one. One
 * catalogue lookup per series, on a quick worker. */
#define LANE_QUICK_RUNS 20000
enum http_lane series_lane(void *app, struct req *rq);

#endif
