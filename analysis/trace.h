/*
 * trace: Osaka et al.'s correction of a power trace taken under a heavy
 * profiler against a light reference run of the same program (docs/methods.md).
 * Segments (e.g. functions) are known in both runs. Time: inside a segment
 * an instrumented time maps linearly onto the reference segment; outside,
 * piecewise-linearly through (0,0) and every boundary pair, with slope 1
 * after the last segment. Power: a sample inside a segment takes the
 * reference sample of the same segment at the nearest relative position
 * (the earlier on a tie); samples outside segments keep their power.
 */
#ifndef KARTE_TRACE_H
#define KARTE_TRACE_H

#include <stddef.h>

#include "ka.h"

struct ka_sample {
	double t;		/* seconds from the start of the run */
	double p;		/* watts */
};

struct ka_segment {
	double start, end;		/* in the instrumented run */
	double ref_start, ref_end;	/* the same segment in the reference run */
};

/* A segment's duration in the reference run over its duration in the
 * instrumented one (Osaka Fig. 7). */
double ka_segment_ratio(const struct ka_segment *s);

/* The reference time of instrumented time t. Segments sorted, disjoint.
 * O(log k). */
double ka_trace_map_time(const struct ka_segment *seg, size_t k, double t);

/* Where a corrected sample's power came from. */
struct ka_trace_origin {
	size_t segment;		/* index of the segment holding it, k when outside every one */
	size_t source;		/* index of the reference sample whose power it took, m when none */
};

/* Correct inst[0..n) (sorted by t) against ref[0..m) into out[0..n), and
 * when origin is not NULL say where each sample came from (origin[0..n)).
 * O(n (log k + log m)): each sample finds its segment and its reference
 * sample by binary search. -KA_EDOM for unsorted or non-finite samples or
 * segments, or a segment with end <= start. */
int ka_trace_correct(const struct ka_sample *inst, size_t n, const struct ka_sample *ref, size_t m,
		     const struct ka_segment *seg, size_t k, struct ka_sample *out,
		     struct ka_trace_origin *origin);

/* RMS of the difference between a's power and ref's at ref's sample times
 * (a's nearest sample in time, the earlier on a tie). */
int ka_trace_rms(const struct ka_sample *a, size_t n, const struct ka_sample *ref, size_t m,
		 double *rms);

#endif
