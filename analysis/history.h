/*
 * history: a run held against the runs of its point before it, as
 * continuous-benchmarking tools do: the baseline is their median and MAD
 * (median absolute deviation), and a run is a regression when it exceeds
 * the median by more than both a relative threshold and a noise threshold
 * (k * 1.4826 * MAD, the MAD scaled to a normal sigma); an improvement,
 * symmetrically, below; otherwise ok.
 */
#ifndef KARTE_HISTORY_H
#define KARTE_HISTORY_H

#include <stddef.h>

#include "ka.h"

#define KA_MAD_SIGMA 1.4826	/* MAD to a normal distribution's sigma */

struct ka_baseline {
	double median, mad;	/* of the previous values */
	size_t runs;		/* how many */
};

enum ka_verdict { KA_OK, KA_REGRESSION, KA_IMPROVEMENT };

struct ka_thresholds {
	double rel;		/* relative to the median (0.05) */
	double noise;		/* multiples of 1.4826 MAD (3) */
	size_t min_runs;	/* fewer previous runs: always ok (5) */
};

#define KA_THRESHOLDS_DEFAULT {0.05, 3.0, 5}

/* The median and MAD of v[0..n) (n >= 1); work: room for n doubles (v is
 * left as it is). -KA_ENODATA for n = 0, -KA_EDOM for a value that is not
 * finite. */
int ka_baseline(const double *v, size_t n, double *work, struct ka_baseline *out);

/* The same of v[0..n) already sorted ascending (n >= 1, all finite), with
 * no copy and no selection: the median from the middle, the MAD by walking
 * out from it (the deviations on each side are sorted), O(n / 2). Equal,
 * to the last bit, to ka_baseline of the same values. */
void ka_baseline_sorted(const double *v, size_t n, struct ka_baseline *out);

/* The verdict on x against the sorted values v[0..n) (as ka_verdict of
 * their ka_baseline, the same in every case), computing the MAD only when
 * x lies beyond rel of the median: within it a run is ok whatever the MAD.
 * *b gets the baseline when it was computed, else b->runs = 0. */
enum ka_verdict ka_verdict_sorted(double x, const double *v, size_t n,
				  const struct ka_thresholds *t, struct ka_baseline *b);

/* The verdict on x against b: a regression when x - median exceeds both
 * rel * |median| and noise * 1.4826 * mad (a larger value is worse, as
 * time and energy are); an improvement when median - x does; ok otherwise
 * and whenever b->runs < min_runs. */
enum ka_verdict ka_verdict(double x, const struct ka_baseline *b, const struct ka_thresholds *t);

/* "ok", "regression", "improvement". */
const char *ka_verdict_name(enum ka_verdict v);

#endif
