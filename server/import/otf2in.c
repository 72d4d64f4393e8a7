#include "otf2in.h"

#include <ctype.h>
#include <otf2/otf2.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/bounds.h"
#include "core/xalloc.h"

#define MAX_DEPTH 64

struct interval {
	uint32_t region;
	double start, end;
	int depth;
};

struct ctx {
	uint64_t resolution, offset;
	char **strings;		/* by OTF2_StringRef */
	size_t nstrings;
	uint32_t *region_name;	/* region -> string */
	size_t nregions;
	uint32_t power_member;	/* the metric member read, UINT32_MAX: none yet */
	char power_name[128];
	uint32_t *class_first;	/* metric class -> its first member */
	size_t nclasses;
	OTF2_LocationRef first_location;
	bool have_location;
	bool ids_too_large;	/* a definition id past OTF2_IDS_MAX: refused */
	bool too_many;		/* past LIMIT_TRACE_SAMPLES samples or LIMIT_SEGMENTS intervals */
	/* events */
	struct ka_sample *s;
	size_t ns, caps;
	struct interval *iv;
	size_t niv, capiv;
	size_t stack[MAX_DEPTH];
	int depth;
};

/* Definition ids index arrays here; ids are dense in real archives, and a
 * file that claims more is refused rather than sizing an allocation. */
#define OTF2_IDS_MAX (1u << 20)

static double seconds(const struct ctx *c, OTF2_TimeStamp t)
{
	return (double)(t - c->offset) / (double)(c->resolution ? c->resolution : 1);
}

static void grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return;
	*cap = need * 2;
	*p = xrealloc(*p, *cap * size);
}

static OTF2_CallbackCode def_clock(void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
	struct ctx *c = u;

	(void)len;
	(void)rt;
	c->resolution = res;
	c->offset = off;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *s)
{
	struct ctx *c = u;
	size_t old = c->nstrings;

	if (self >= OTF2_IDS_MAX) {
		c->ids_too_large = true;
		return OTF2_CALLBACK_INTERRUPT;
	}
	if (self >= c->nstrings) {
		c->nstrings = (size_t)self + 1;
		c->strings = xrealloc(c->strings, c->nstrings * sizeof(*c->strings));
		memset(c->strings + old, 0, (c->nstrings - old) * sizeof(*c->strings));
	}
	free(c->strings[self]);
	c->strings[self] = xstrdup(s);
	return OTF2_CALLBACK_SUCCESS;
}

static const char *str(const struct ctx *c, uint32_t ref)
{
	return ref < c->nstrings && c->strings[ref] ? c->strings[ref] : "";
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
				    OTF2_StringRef canon, OTF2_StringRef desc, OTF2_RegionRole role,
				    OTF2_Paradigm par, OTF2_RegionFlag flags, OTF2_StringRef file,
				    uint32_t b, uint32_t e)
{
	struct ctx *c = u;
	size_t old = c->nregions;

	(void)canon, (void)desc, (void)role, (void)par, (void)flags, (void)file, (void)b, (void)e;
	if (self >= OTF2_IDS_MAX) {
		c->ids_too_large = true;
		return OTF2_CALLBACK_INTERRUPT;
	}
	if (self >= c->nregions) {
		c->nregions = (size_t)self + 1;
		c->region_name = xrealloc(c->region_name, c->nregions * sizeof(*c->region_name));
		memset(c->region_name + old, 0xff, (c->nregions - old) * sizeof(*c->region_name));
	}
	c->region_name[self] = name;
	return OTF2_CALLBACK_SUCCESS;
}

static bool says_power(const char *s)
{
	for (; *s; s++)
		if (!strncasecmp(s, "power", 5))
			return true;
	return false;
}

static OTF2_CallbackCode def_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name,
				    OTF2_StringRef desc, OTF2_MetricType type, OTF2_MetricMode mode,
				    OTF2_Type vt, OTF2_Base base, int64_t exp, OTF2_StringRef unit)
{
	struct ctx *c = u;

	(void)desc, (void)type, (void)mode, (void)vt, (void)base, (void)exp;
	if (c->power_member == UINT32_MAX && (!strcmp(str(c, unit), "W") || says_power(str(c, name)))) {
		c->power_member = self;
		snprintf(c->power_name, sizeof(c->power_name), "%s", str(c, name));
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_class(void *u, OTF2_MetricRef self, uint8_t n,
				   const OTF2_MetricMemberRef *members, OTF2_MetricOccurrence occ,
				   OTF2_RecorderKind kind)
{
	struct ctx *c = u;
	size_t old = c->nclasses;

	(void)occ, (void)kind;
	if (self >= OTF2_IDS_MAX) {
		c->ids_too_large = true;
		return OTF2_CALLBACK_INTERRUPT;
	}
	if (self >= c->nclasses) {
		c->nclasses = (size_t)self + 1;
		c->class_first = xrealloc(c->class_first, c->nclasses * sizeof(*c->class_first));
		memset(c->class_first + old, 0xff, (c->nclasses - old) * sizeof(*c->class_first));
	}
	c->class_first[self] = n ? members[0] : UINT32_MAX;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
				      OTF2_LocationType type, uint64_t events,
				      OTF2_LocationGroupRef group)
{
	struct ctx *c = u;

	(void)name, (void)type, (void)events, (void)group;
	if (!c->have_location || self < c->first_location) {
		c->first_location = self;
		c->have_location = true;
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
				  OTF2_AttributeList *a, OTF2_RegionRef region)
{
	struct ctx *c = u;

	(void)a;
	if (loc != c->first_location || c->depth >= MAX_DEPTH)
		return OTF2_CALLBACK_SUCCESS;
	if (c->niv == LIMIT_SEGMENTS) {
		c->too_many = true;
		return OTF2_CALLBACK_INTERRUPT;
	}
	grow((void **)&c->iv, &c->capiv, c->niv + 1, sizeof(*c->iv));
	c->iv[c->niv] = (struct interval){region, seconds(c, t), -1, c->depth};
	c->stack[c->depth++] = c->niv++;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
				  OTF2_AttributeList *a, OTF2_RegionRef region)
{
	struct ctx *c = u;

	(void)a, (void)region;
	if (loc != c->first_location || c->depth == 0)
		return OTF2_CALLBACK_SUCCESS;
	c->iv[c->stack[--c->depth]].end = seconds(c, t);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_metric(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
				   OTF2_AttributeList *a, OTF2_MetricRef metric, uint8_t n,
				   const OTF2_Type *types, const OTF2_MetricValue *values)
{
	struct ctx *c = u;
	double v;

	(void)a;
	if (loc != c->first_location || metric >= c->nclasses || n == 0 ||
	    c->class_first[metric] != c->power_member)
		return OTF2_CALLBACK_SUCCESS;
	v = types[0] == OTF2_TYPE_DOUBLE ? values[0].floating_point :
	    types[0] == OTF2_TYPE_INT64 ? (double)values[0].signed_int :
					  (double)values[0].unsigned_int;
	if (c->ns == LIMIT_TRACE_SAMPLES) {
		c->too_many = true;
		return OTF2_CALLBACK_INTERRUPT;
	}
	grow((void **)&c->s, &c->caps, c->ns + 1, sizeof(*c->s));
	c->s[c->ns++] = (struct ka_sample){seconds(c, t), v};
	return OTF2_CALLBACK_SUCCESS;
}

/* The outermost depth with more than one closed interval; its intervals. */
static void segments(struct ctx *c, struct otf2_trace *t)
{
	int d, best = 0;
	size_t i, count;

	for (d = 0; d < MAX_DEPTH; d++) {
		for (count = 0, i = 0; i < c->niv; i++)
			count += c->iv[i].depth == d && c->iv[i].end >= c->iv[i].start;
		if (count > 1) {
			best = d;
			break;
		}
		if (count == 0)
			break;
	}
	t->segments = xcalloc(c->niv ? c->niv : 1, sizeof(*t->segments));
	for (i = 0; i < c->niv; i++) {
		struct otf2_segment *s;

		if (c->iv[i].depth != best || !(c->iv[i].end >= c->iv[i].start))
			continue;
		s = &t->segments[t->nsegments++];
		snprintf(s->name, sizeof(s->name), "%s",
			 c->iv[i].region < c->nregions ? str(c, c->region_name[c->iv[i].region]) : "");
		s->start = c->iv[i].start;
		s->end = c->iv[i].end;
	}
}

/* The global definitions into c: clock, strings, regions, the metric's
 * members and classes, locations; 0, or -1 with err where the archive
 * lacks what a correction needs. */
static int read_definitions(OTF2_Reader *r, struct ctx *c, const char *anchor, struct kerr *err)
{
	OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r);
	OTF2_GlobalDefReaderCallbacks *dcb = OTF2_GlobalDefReaderCallbacks_New();
	uint64_t nread = 0;

	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(dcb, def_clock);
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(dcb, def_string);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(dcb, def_region);
	OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(dcb, def_member);
	OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(dcb, def_class);
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(dcb, def_location);
	OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, dcb, c);
	OTF2_GlobalDefReaderCallbacks_Delete(dcb);
	OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &nread);
	if (c->ids_too_large)
		return kerr_set(err, KERR_INVALID, "%s has definition ids above %u; karte reads archives with at "
				"most that many strings, regions and metric classes", anchor, OTF2_IDS_MAX);
	if (!c->have_location)
		return kerr_set(err, KERR_INVALID, "%s has no locations", anchor);
	if (c->power_member == UINT32_MAX)
		return kerr_set(err, KERR_INVALID, "%s has no power metric (a member with unit W or 'power' in "
				"its name)", anchor);
	return 0;
}

/* The first location's events into c: regions entered and left, the
 * power samples; 0, or -1 with err past karted's limits or on a sample
 * that is no number or goes back in time (a damaged archive). */
static int read_events(OTF2_Reader *r, struct ctx *c, const char *anchor, struct kerr *err)
{
	OTF2_GlobalEvtReader *ger;
	OTF2_GlobalEvtReaderCallbacks *ecb;
	uint64_t nread = 0;
	size_t i;

	OTF2_Reader_SelectLocation(r, c->first_location);
	OTF2_Reader_OpenEvtFiles(r);
	OTF2_Reader_GetEvtReader(r, c->first_location);	/* mandatory before the global reader */
	ger = OTF2_Reader_GetGlobalEvtReader(r);
	ecb = OTF2_GlobalEvtReaderCallbacks_New();
	OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ecb, ev_enter);
	OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ecb, ev_leave);
	OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(ecb, ev_metric);
	OTF2_Reader_RegisterGlobalEvtCallbacks(r, ger, ecb, c);
	OTF2_GlobalEvtReaderCallbacks_Delete(ecb);
	OTF2_Reader_ReadAllGlobalEvents(r, ger, &nread);
	OTF2_Reader_CloseGlobalEvtReader(r, ger);
	OTF2_Reader_CloseEvtFiles(r);
	if (c->too_many)
		return kerr_set(err, KERR_TOO_LARGE, "%s has more than %d power samples or %d regions entered, "
				"karted's limits of a trace correction", anchor, LIMIT_TRACE_SAMPLES, LIMIT_SEGMENTS);
	for (i = 0; i < c->ns; i++)
		if (!isfinite(c->s[i].t) || !isfinite(c->s[i].p) || (i && c->s[i].t < c->s[i - 1].t))
			return kerr_set(err, KERR_INVALID, "%s: power sample %zu %s (a damaged trace?)", anchor, i,
					isfinite(c->s[i].t) && isfinite(c->s[i].p) ?
					"comes before the one read before it" : "is not a finite number");
	return 0;
}

int otf2_trace_read(const char *anchor, struct otf2_trace *t, struct kerr *err)
{
	struct ctx c;
	OTF2_Reader *r;
	uint64_t nloc = 0;
	size_t i;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	memset(&c, 0, sizeof(c));
	c.power_member = UINT32_MAX;
	c.resolution = 1;
	r = OTF2_Reader_Open(anchor);
	if (!r)
		return kerr_set(err, KERR_INVALID, "cannot open OTF2 archive %s", anchor);
	OTF2_Reader_SetSerialCollectiveCallbacks(r);
	if (OTF2_Reader_GetNumberOfLocations(r, &nloc) != OTF2_SUCCESS) {
		kerr_set(err, KERR_INVALID, "%s is not a readable OTF2 archive", anchor);
		goto out;
	}
	if (read_definitions(r, &c, anchor, err) || read_events(r, &c, anchor, err))
		goto out;
	t->samples = c.s;
	t->nsamples = c.ns;
	c.s = NULL;
	snprintf(t->metric, sizeof(t->metric), "%s", c.power_name);
	segments(&c, t);
	if (!t->nsamples) {
		kerr_set(err, KERR_INVALID, "%s has no samples of metric %s", anchor, c.power_name);
		otf2_trace_free(t);
		goto out;
	}
	rc = 0;
out:
	OTF2_Reader_Close(r);
	for (i = 0; i < c.nstrings; i++)
		free(c.strings[i]);
	free(c.strings);
	free(c.region_name);
	free(c.class_first);
	free(c.s);
	free(c.iv);
	return rc;
}

void otf2_trace_free(struct otf2_trace *t)
{
	free(t->samples);
	free(t->segments);
	memset(t, 0, sizeof(*t));
}
