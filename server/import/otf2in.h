/*
 * otf2in: a power trace from an OTF2 archive (Debian's libotf2): the samples
 * of its power metric (a metric member whose unit is "W" or whose name says
 * power) and its segments, from the Enter/Leave events of the first
 * location. Segments are the regions at the outermost level that has more
 * than one (so a main() around everything is looked through). Times are
 * seconds: (timestamp - global offset) / timer resolution.
 */
#ifndef KARTE_OTF2IN_H
#define KARTE_OTF2IN_H

#include <stddef.h>

#include "core/kerr.h"
#include "analysis/trace.h"

struct otf2_segment {
	char name[128];
	double start, end;	/* seconds */
};

struct otf2_trace {
	struct ka_sample *samples;
	size_t nsamples;
	struct otf2_segment *segments;
	size_t nsegments;
	char metric[128];	/* the metric read */
};

/* Read anchor (the .otf2 file). -1 with err when it cannot be read or has
 * no power metric. Free with otf2_trace_free. */
int otf2_trace_read(const char *anchor, struct otf2_trace *t, struct kerr *err);
void otf2_trace_free(struct otf2_trace *t);

#endif
