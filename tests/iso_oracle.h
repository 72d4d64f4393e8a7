/*
 * The naive all-triples SPS identification, kept as the oracle that
 * ka_iso_analyze is checked against (tests/test_isoeff.c) and timed beside
 * (make bench). It reads docs/methods.md's reading literally: for every base, every
 * larger n at the same p, the smallest p' whose eps is at most eps(p,n)+tol.
 */
#ifndef KARTE_ISO_ORACLE_H
#define KARTE_ISO_ORACLE_H

#include "analysis/isoeff.h"

void iso_oracle(const struct ka_obs *obs, size_t nobs, const struct ka_iso_opts *o,
		const struct ka_iso_visitor *v);

#endif
