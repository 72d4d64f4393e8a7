/*
 * import_xp: the experiment model every importer fills, as Extra-P has it:
 * parameters, points (one value per parameter), call paths (a tree),
 * metrics, and for each (call path, metric, point) the repetitions
 * measured. Internal to import*.c; readers add through xp_* and report
 * problems as warnings (xp_warn) or as the error of their read function.
 */
#ifndef KARTE_IMPORT_XP_H
#define KARTE_IMPORT_XP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "import.h"
#include "core/kerr.h"

#define XP_NONE UINT32_MAX

/* A string -> index table (open addressing over indices into a caller's array). */
struct xp_map {
	uint32_t *slot;		/* index + 1, 0 empty */
	size_t cap;		/* a power of two, 0 before the first insertion */
};

/* A call path is a node of a tree: its own name (the last segment of
 * "main->solve", "solve") under its parent. No path copies its parent's
 * names, so a file's paths cost memory linear in the file (a chain of
 * 40,000 segments was 2.48 GB when every "->" prefix was a string). */
#define XP_DEPTH_MAX 256	/* levels of a call path */
#define XP_PATH_TEXT_MAX 65536	/* bytes of a call path written out, "a->b->c" */

struct xp_path {
	char *name;		/* its own name: the segment after its parent's */
	uint32_t parent;	/* XP_NONE for a root */
	int indent;		/* leading blanks in an Extra-P text REGION line, else -1 */
	uint32_t depth;		/* 1 for a root */
	uint32_t text;		/* bytes of the whole path written out with "->" */
};

struct xp_meas {
	uint32_t path, metric, point;
	uint32_t first, last, count;	/* repetitions: a list through xp.next */
};

struct xp {
	char *params[IMPORT_PARAMS_MAX];
	size_t nparams;
	double *coords;		/* npoints x nparams */
	size_t npoints, cpoints;
	struct xp_map point_map;
	struct xp_path *paths;
	size_t npaths, cpaths;
	struct xp_map path_map;	/* by (parent, own name) */
	char **metrics;
	size_t nmetrics, cmetrics;
	struct xp_map metric_map;
	struct xp_meas *meas;
	size_t nmeas, cmeas;
	struct xp_map meas_map;
	double *vals;		/* repetitions of every measurement */
	uint32_t *next;
	size_t nvals, cvals;
	json_t *warnings;	/* at most IMPORT_WARNINGS_MAX strings */
	size_t nwarnings;	/* all of them, listed or not */
	double time_scale;	/* readers scale times by this when set (> 0) */
	/* the file's own names of what a reader made "p", "n" and "time" (Caliper's
	 * mpi.world.size, problem_size, max#inclusive#sum#time.duration): p=,
	 * n= and metric= may name either */
	char p_from[128], n_from[128], metric_from[256];
	/* metadata that become run labels (Thicket's per profile, Caliper's
	 * globals): sets of labels, each point in one (or none); a point is
	 * its coordinates and its set, so profiles of other builds at the same
	 * (p, n) stay apart */
	json_t *sets;		/* label objects */
	json_t *set_index;	/* their compact text -> index */
	uint32_t *point_set;	/* per point: its set, XP_NONE for none */
	uint32_t cur_set;	/* the set of the points added next (XP_NONE: none) */
	bool params_as_labels;	/* parameters that are neither p nor n become labels (Cube) */
	const struct import_opts *opts;	/* its cancel flag: xp_value looks at it now and then */
	struct kerr *stop_err;	/* where a stop is said */
};

void xp_init(struct xp *x);
void xp_free(struct xp *x);

/* A warning for the answer (printf format); past IMPORT_WARNINGS_MAX only counted. */
void xp_warn(struct xp *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Add a parameter; -1 with err past IMPORT_PARAMS_MAX or when it is there already. */
int xp_param(struct xp *x, const char *name, size_t len, struct kerr *err);

/* Labels from metadata (within the runs API's label limits): a key of 1
 * to XP_LABEL_KEY_MAX printable bytes, a string, number or boolean value
 * of at most XP_LABEL_VALUE_MAX printable bytes; anything else is left
 * out as bulky: lists and objects, text with ',' or ';' (library and
 * metric lists), paths and URLs (beginning with '/' or '~', or holding
 * ":/"). */
#define XP_LABEL_KEY_MAX 64
#define XP_LABEL_VALUE_MAX 128
#define XP_LABELS_MAX 64	/* labels one set takes, the first met */

/* The label value of v as text into out, or false when v is not one. */
bool xp_label_value(const char *key, json_t *v, char *out, size_t size);

/* The set of labels obj's members make (those of skip[0..nskip) left
 * out): its index, or XP_NONE when none is a label. The points added next
 * belong to it (x->cur_set). */
uint32_t xp_label_set(struct xp *x, json_t *obj, const char *const *skip, size_t nskip);

/* The index of the point with these nparams values (and x->cur_set),
 * added when new; XP_NONE with err past the limits. */
uint32_t xp_point(struct xp *x, const double *v, struct kerr *err);

/* The call path name[0, len) as a file writes it ("main->solve": each
 * segment a node under the one before), added when new; XP_NONE with err
 * past the limits (IMPORT_PATHS_MAX paths, XP_DEPTH_MAX levels,
 * XP_PATH_TEXT_MAX bytes). */
uint32_t xp_path(struct xp *x, const char *name, size_t len, struct kerr *err);

/* The path named seg[0, len) under parent (XP_NONE: a root), added when
 * new: a segment is never split, whatever it holds. */
uint32_t xp_child(struct xp *x, uint32_t parent, const char *seg, size_t len, struct kerr *err);

/* Path i written out, "main->solve", into buf (NUL-terminated; cut short
 * only when size is less than its text + 1). Returns buf. */
char *xp_path_text(const struct xp *x, uint32_t i, char *buf, size_t size);

/* The index of the metric called name[0, len), added when new. */
uint32_t xp_metric(struct xp *x, const char *name, size_t len, struct kerr *err);

/* Append a repetition to (path, metric, point); -1 with err past the limits. */
int xp_value(struct xp *x, uint32_t path, uint32_t metric, uint32_t point, double v,
	     struct kerr *err);

/* Set parents of the call paths an Extra-P text file nests by indentation
 * (a path is under the nearest one before it indented less); paths named
 * with "->" have theirs already. */
int xp_tree(struct xp *x, struct kerr *err);

/* The measurement (path, metric, point), or NULL. */
const struct xp_meas *xp_find(const struct xp *x, uint32_t path, uint32_t metric, uint32_t point);

/* strtod on the whole of s[0, len) (blanks around allowed, NaN and inf
 * taken as numbers); false when it is not a number. */
bool xp_number(const char *s, size_t len, double *out);

/* The readers: fill x from body; -1 with err (400 naming the line). */
int xp_read_extrap_text(struct xp *x, const char *body, size_t len, struct kerr *err);
int xp_read_extrap_jsonl(struct xp *x, const char *body, size_t len, bool talpas,
			 struct kerr *err);
int xp_read_extrap_json(struct xp *x, const char *body, size_t len, struct kerr *err);
int xp_read_cali(struct xp *x, const char *body, size_t len, const struct import_opts *o,
		 struct kerr *err);
int xp_read_caliper_json(struct xp *x, const char *body, size_t len,
			 const struct import_opts *o, struct kerr *err);
int xp_read_geopm(struct xp *x, const char *body, size_t len, const struct import_opts *o,
		  struct kerr *err);
/* Extra-P's saved experiment: a ZIP holding experiment.json */
int xp_read_extrap_experiment(struct xp *x, const char *body, size_t len, struct kerr *err);
/* Thicket's serialized ensemble (Thicket.to_json()) */
int xp_read_thicket(struct xp *x, const char *body, size_t len, const struct import_opts *o,
		    struct kerr *err);
/* Score-P Cube 4: a tar or zip of experiment directories (or one .cubex) */
int xp_read_cube(struct xp *x, const char *body, size_t len, const struct import_opts *o,
		 struct kerr *err);
int xp_read_cube_profile(struct xp *x, const char *body, size_t len, const struct import_opts *o,
			 struct kerr *err);

/* Lines of a body: *line and *n for the next one (without its end, a
 * trailing \r dropped); false at the end. *pos starts at 0. */
bool xp_next_line(const char *body, size_t len, size_t *pos, const char **line, size_t *n);

#endif
