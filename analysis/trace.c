#include "trace.h"

#include <math.h>
#include <stdbool.h>

/* The first segment whose end is at or after t, or k: segments are sorted
 * and disjoint, so their ends strictly increase. O(log k). */
static size_t first_ending_after(const struct ka_segment *seg, size_t k, double t)
{
	size_t lo = 0, hi = k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (seg[mid].end >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

double ka_segment_ratio(const struct ka_segment *s)
{
	return (s->ref_end - s->ref_start) / (s->end - s->start);
}

double ka_trace_map_time(const struct ka_segment *seg, size_t k, double t)
{
	size_t i = first_ending_after(seg, k, t);
	double x0 = i ? seg[i - 1].end : 0, y0 = i ? seg[i - 1].ref_end : 0;

	if (i == k)
		return y0 + (t - x0);	/* after the last segment: slope 1 */
	if (t < seg[i].start)		/* between the previous boundary and this segment */
		return y0 + (t - x0) * (seg[i].ref_start - y0) / (seg[i].start - x0);
	return seg[i].ref_start + (t - seg[i].start) * (seg[i].ref_end - seg[i].ref_start) /
					  (seg[i].end - seg[i].start);
}

static bool sorted(const struct ka_sample *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(s[i].t) || !isfinite(s[i].p) || (i && s[i].t < s[i - 1].t))
			return false;
	return true;
}

static bool segments_ok(const struct ka_segment *seg, size_t k)
{
	size_t i;

	for (i = 0; i < k; i++) {
		if (!isfinite(seg[i].start) || !isfinite(seg[i].end) || !isfinite(seg[i].ref_start) ||
		    !isfinite(seg[i].ref_end))
			return false;
		if (!(seg[i].end > seg[i].start) || !(seg[i].ref_end > seg[i].ref_start) ||
		    seg[i].start < 0 || seg[i].ref_start < 0)
			return false;
		if (i && (seg[i].start < seg[i - 1].end || seg[i].ref_start < seg[i - 1].ref_end))
			return false;
	}
	return true;
}

/* The segment holding t (the earlier of two that touch at t), or k. */
static size_t segment_of(const struct ka_segment *seg, size_t k, double t)
{
	size_t i = first_ending_after(seg, k, t);

	return i < k && t >= seg[i].start ? i : k;
}

/* A reference sample's relative position in segment s: monotone in its time. */
static double rel(const struct ka_segment *s, double t)
{
	return (t - s->ref_start) / (s->ref_end - s->ref_start);
}

/* The first index in [lo, hi) of ref whose key is not below x: key 0 is the
 * time, key 1 the relative position in s (both non-decreasing). */
static size_t lower_bound(const struct ka_sample *ref, size_t lo, size_t hi,
			  const struct ka_segment *s, double x, bool by_rel)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((by_rel ? rel(s, ref[mid].t) : ref[mid].t) < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The reference sample of segment s nearest to relative position u, the
 * earlier on a tie, or m when the segment holds none. The samples in
 * [ref_start, ref_end] are a contiguous, sorted run of ref, so two binary
 * searches find the candidates either side of u: O(log m). */
static size_t nearest(const struct ka_sample *ref, size_t m, const struct ka_segment *s, double u)
{
	size_t lo = lower_bound(ref, 0, m, s, s->ref_start, false), hi = lo, j, prev;

	/* hi: past the last sample at or before ref_end */
	{
		size_t a = lo, b = m;

		while (a < b) {
			size_t mid = a + (b - a) / 2;

			if (ref[mid].t <= s->ref_end)
				a = mid + 1;
			else
				b = mid;
		}
		hi = a;
	}
	if (lo == hi)
		return m;
	j = lower_bound(ref, lo, hi, s, u, true);	/* the first at or after u */
	if (j == lo)
		return j;
	/* the earliest sample at the position of the one just before u */
	prev = lower_bound(ref, lo, j, s, rel(s, ref[j - 1].t), true);
	if (j == hi || fabs(rel(s, ref[prev].t) - u) <= fabs(rel(s, ref[j].t) - u))
		return prev;
	return j;
}

int ka_trace_correct(const struct ka_sample *inst, size_t n, const struct ka_sample *ref, size_t m,
		     const struct ka_segment *seg, size_t k, struct ka_sample *out,
		     struct ka_trace_origin *origin)
{
	size_t i, s, pick;

	if (!sorted(inst, n) || !sorted(ref, m) || !segments_ok(seg, k))
		return -KA_EDOM;
	for (i = 0; i < n; i++) {
		double u;

		out[i].t = ka_trace_map_time(seg, k, inst[i].t);
		out[i].p = inst[i].p;
		s = segment_of(seg, k, inst[i].t);
		pick = m;
		if (s < k) {
			u = (inst[i].t - seg[s].start) / (seg[s].end - seg[s].start);
			pick = nearest(ref, m, &seg[s], u);
			if (pick < m)
				out[i].p = ref[pick].p;
		}
		if (origin)
			origin[i] = (struct ka_trace_origin){s, pick};
	}
	return 0;
}

int ka_trace_rms(const struct ka_sample *a, size_t n, const struct ka_sample *ref, size_t m,
		 double *rms)
{
	double sum = 0;
	size_t i = 0, j;

	if (!n || !m || !sorted(a, n) || !sorted(ref, m))
		return -KA_EDOM;
	for (j = 0; j < m; j++) {
		size_t best;

		/* a is sorted: advance to the last sample at or before ref[j].t */
		while (i + 1 < n && a[i + 1].t <= ref[j].t)
			i++;
		best = i;
		if (i + 1 < n && fabs(a[i + 1].t - ref[j].t) < fabs(a[i].t - ref[j].t))
			best = i + 1;
		sum += (a[best].p - ref[j].p) * (a[best].p - ref[j].p);
	}
	*rms = sqrt(sum / (double)m);
	return 0;
}
