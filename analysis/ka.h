/*
 * libkarte_analysis: the formulas and procedures of karte's five papers, on
 * plain arrays and structs. Pure C: no I/O, no global state, deterministic.
 * Functions return 0 or a negative KA_E* code; they never print or exit.
 * Where a procedure needs scratch memory, the caller passes it (the *_work()
 * functions say how much), so most of the core allocates nothing; the
 * exceptions say so: the scaling models' fits (pmnf.c: GSL's matrices, and
 * ka_pmnf_multi's scratch) allocate, and report -KA_ESPACE when they cannot.
 */
#ifndef KARTE_KA_H
#define KARTE_KA_H

enum ka_error {
	KA_EDOM = 1,	/* an input is out of its domain (not finite, p < 1, ...) */
	KA_ESPACE = 2,	/* the scratch space given is too small */
	KA_ENODATA = 3,	/* too few points for the fit asked for */
};

#endif
