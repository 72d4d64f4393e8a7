#include "trace.h"

#include <math.h>
#include <stdbool.h>

double ka_trace_map_time(const struct ka_segment *seg, size_t k, double t)
{
	double x0 = 0, y0 = 0;
	size_t i;

	for (i = 0; i < k; i++) {
		const struct ka_segment *s = &seg[i];

		if (t < s->start)	/* between the previous boundary and this segment */
			return y0 + (t - x0) * (s->ref_start - y0) / (s->start - x0);
		if (t <= s->end)
			return s->ref_start + (t - s->start) * (s->ref_end - s->ref_start) /
						      (s->end - s->start);
		x0 = s->end;
		y0 = s->ref_end;
	}
	return y0 + (t - x0);	/* after the last segment: slope 1 */
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
		if (!(seg[i].end > seg[i].start) || !(seg[i].ref_end > seg[i].ref_start) ||
		    seg[i].start < 0 || seg[i].ref_start < 0)
			return false;
		if (i && (seg[i].start < seg[i - 1].end || seg[i].ref_start < seg[i - 1].ref_end))
			return false;
	}
	return true;
}

/* The segment holding t, or k. */
static size_t segment_of(const struct ka_segment *seg, size_t k, double t)
{
	size_t i;

	for (i = 0; i < k; i++)
		if (t >= seg[i].start && t <= seg[i].end)
			return i;
	return k;
}

int ka_trace_correct(const struct ka_sample *inst, size_t n, const struct ka_sample *ref, size_t m,
		     const struct ka_segment *seg, size_t k, struct ka_sample *out)
{
	size_t i, j, s;

	if (!sorted(inst, n) || !sorted(ref, m) || !segments_ok(seg, k))
		return -KA_EDOM;
	for (i = 0; i < n; i++) {
		double u, best = INFINITY;
		size_t pick = m;

		out[i].t = ka_trace_map_time(seg, k, inst[i].t);
		out[i].p = inst[i].p;
		s = segment_of(seg, k, inst[i].t);
		if (s == k)
			continue;	/* outside every segment: the power stays */
		u = (inst[i].t - seg[s].start) / (seg[s].end - seg[s].start);
		for (j = 0; j < m; j++) {
			double v, d;

			if (ref[j].t < seg[s].ref_start || ref[j].t > seg[s].ref_end)
				continue;
			v = (ref[j].t - seg[s].ref_start) / (seg[s].ref_end - seg[s].ref_start);
			d = fabs(v - u);
			if (d < best) {	/* strictly: on a tie the earlier sample stays */
				best = d;
				pick = j;
			}
		}
		if (pick < m)
			out[i].p = ref[pick].p;
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
