/*
 * Writes an OTF2 archive of a power trace through libotf2's writer, for the
 * tests of karte's OTF2 reader: regions main > {solve, io, solve}, a power
 * metric (unit W) sampled every 10 ms. With "instrumented" the segments run
 * 2x, 1.5x and 2x longer (the gap between io and the second solve 1.5x) and
 * every sample reads 30 W high, as a heavy profiler would leave it.
 * usage: otf2_trace DIR NAME reference|instrumented
 */
#include <math.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <string.h>

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc, void *cb, bool final)
{
	(void)u, (void)ft, (void)loc, (void)cb, (void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)u, (void)ft, (void)loc;
	return 0;
}

static OTF2_FlushCallbacks flush = {pre_flush, post_flush};

/* Reference time -> the instrumented run's time. */
static double stretch(double t)
{
	if (t <= 0.10)
		return t;
	if (t <= 0.50)
		return 0.10 + (t - 0.10) * 2;
	if (t <= 0.90)
		return 0.90 + (t - 0.50) * 1.5;
	if (t <= 1.00)
		return 1.50 + (t - 0.90) * 1.5;
	if (t <= 1.30)
		return 1.65 + (t - 1.00) * 2;
	return 2.25 + (t - 1.30);
}

int main(int argc, char **argv)
{
	/* events in reference time: region changes, then samples between */
	static const struct {
		double t;
		int enter;	/* 1 enter, 0 leave */
		int region;	/* 0 main, 1 solve, 2 io */
	} marks[] = {{0.0, 1, 0}, {0.10, 1, 1}, {0.50, 0, 1}, {0.50, 1, 2}, {0.90, 0, 2},
		     {1.00, 1, 1}, {1.30, 0, 1}, {1.41, 0, 0}};
	OTF2_Archive *a;
	OTF2_EvtWriter *w;
	OTF2_GlobalDefWriter *g;
	int inst, j = 0;
	size_t k = 0;
	uint64_t events = 0;

	if (argc != 4)
		return 2;
	inst = !strcmp(argv[3], "instrumented");
	a = OTF2_Archive_Open(argv[1], argv[2], OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
			      OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!a)
		return 1;
	OTF2_Archive_SetFlushCallbacks(a, &flush, NULL);
	OTF2_Archive_SetSerialCollectiveCallbacks(a);
	OTF2_Archive_OpenEvtFiles(a);
	w = OTF2_Archive_GetEvtWriter(a, 0);
	for (j = 0; j <= 140; j++) {
		double t = j * 0.01, p = 100 + 50 * sin(7 * t) + (inst ? 30 : 0);
		OTF2_Type type = OTF2_TYPE_DOUBLE;
		OTF2_MetricValue v;

		while (k < sizeof(marks) / sizeof(marks[0]) && marks[k].t <= t + 1e-12) {
			double tm = inst ? stretch(marks[k].t) : marks[k].t;
			OTF2_TimeStamp ts = (OTF2_TimeStamp)llround(tm * 1e9);

			if (marks[k].enter)
				OTF2_EvtWriter_Enter(w, NULL, ts, (OTF2_RegionRef)marks[k].region);
			else
				OTF2_EvtWriter_Leave(w, NULL, ts, (OTF2_RegionRef)marks[k].region);
			events++;
			k++;
		}
		v.floating_point = p;
		OTF2_EvtWriter_Metric(w, NULL, (OTF2_TimeStamp)llround((inst ? stretch(t) : t) * 1e9), 0, 1,
				      &type, &v);
		events++;
	}
	for (; k < sizeof(marks) / sizeof(marks[0]); k++, events++)
		OTF2_EvtWriter_Leave(w, NULL, (OTF2_TimeStamp)llround((inst ? stretch(marks[k].t) : marks[k].t) * 1e9),
				     (OTF2_RegionRef)marks[k].region);
	OTF2_Archive_CloseEvtWriter(a, w);
	OTF2_Archive_CloseEvtFiles(a);
	OTF2_Archive_OpenDefFiles(a);
	OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, 0));
	OTF2_Archive_CloseDefFiles(a);
	g = OTF2_Archive_GetGlobalDefWriter(a);
	OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, 3000000000u, 0);
	OTF2_GlobalDefWriter_WriteString(g, 0, "");
	OTF2_GlobalDefWriter_WriteString(g, 1, "main");
	OTF2_GlobalDefWriter_WriteString(g, 2, "solve");
	OTF2_GlobalDefWriter_WriteString(g, 3, "io");
	OTF2_GlobalDefWriter_WriteString(g, 4, "node");
	OTF2_GlobalDefWriter_WriteString(g, 5, "rank 0");
	OTF2_GlobalDefWriter_WriteString(g, 6, "package power");
	OTF2_GlobalDefWriter_WriteString(g, 7, "W");
	OTF2_GlobalDefWriter_WriteRegion(g, 0, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
					 OTF2_REGION_FLAG_NONE, 0, 0, 0);
	OTF2_GlobalDefWriter_WriteRegion(g, 1, 2, 2, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
					 OTF2_REGION_FLAG_NONE, 0, 0, 0);
	OTF2_GlobalDefWriter_WriteRegion(g, 2, 3, 3, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
					 OTF2_REGION_FLAG_NONE, 0, 0, 0);
	OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 4, 4, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 5, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
						OTF2_UNDEFINED_LOCATION_GROUP);
	OTF2_GlobalDefWriter_WriteLocation(g, 0, 5, OTF2_LOCATION_TYPE_CPU_THREAD, events, 0);
	OTF2_GlobalDefWriter_WriteMetricMember(g, 0, 6, 0, OTF2_METRIC_TYPE_OTHER,
					       OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_DOUBLE,
					       OTF2_BASE_DECIMAL, 0, 7);
	OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 1, (OTF2_MetricMemberRef[]){0},
					      OTF2_METRIC_SYNCHRONOUS_STRICT, OTF2_RECORDER_KIND_ABSTRACT);
	OTF2_Archive_Close(a);
	return 0;
}
