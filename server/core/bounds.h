/*
 * bounds: the sizes karte takes from anyone, in one place, so that karted
 * and the command line tools (karte, karte-collect) refuse the same input
 * with the same words. karted's options can raise the first two; the tools
 * read the same environment variables.
 */
#ifndef KARTE_BOUNDS_H
#define KARTE_BOUNDS_H

#define LIMIT_BODY (8u << 20)		/* a request body (POST of runs): --max-body, KARTE_MAX_BODY */
#define LIMIT_IMPORT_BODY (128u << 20)	/* a file to import: --max-import-body, KARTE_MAX_IMPORT_BODY */
#define LIMIT_ANALYSIS_BODY (2u << 20)	/* the body of a what-if analysis (no token needed) */
#define LIMIT_SERIES_RUNS 1000000	/* runs of one series an analysis reads */
#define LIMIT_TRACE_SAMPLES 100000	/* samples of one power trace */
#define LIMIT_SEGMENTS 100000		/* segments of a trace correction */

#endif
