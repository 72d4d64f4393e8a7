#include "iso_oracle.h"

#include <math.h>

/* The measured point with the same n and the largest p below q's. */
static size_t predecessor(const struct ka_obs *obs, size_t nobs, size_t q)
{
	size_t i, best = q;

	for (i = 0; i < nobs; i++)
		if (obs[i].n == obs[q].n && obs[i].p < obs[q].p &&
		    (best == q || obs[i].p > obs[best].p))
			best = i;
	return best;
}

void iso_oracle(const struct ka_obs *obs, size_t nobs, const struct ka_iso_opts *o,
		const struct ka_iso_visitor *v)
{
	size_t b, g, q;

	for (b = 0; b < nobs; b++) {
		for (g = 0; g < nobs; g++) {
			double lim = obs[b].eps + o->tol;
			size_t gp = nobs, early = nobs;

			if (obs[g].p != obs[b].p || !(obs[g].n > obs[b].n))
				continue;
			if (!(obs[g].eps > lim)) {
				struct ka_pair pr = {b, g, obs[g].eps_hi > obs[b].eps_lo + o->tol};

				v->not_sps(&pr, v->ctx);
				continue;
			}
			for (q = 0; q < nobs; q++) {
				if (obs[q].n != obs[g].n || obs[q].p <= obs[g].p)
					continue;
				if (obs[q].eps <= lim && (gp == nobs || obs[q].p < obs[gp].p))
					gp = q;
				if (obs[q].eps_lo <= obs[b].eps_hi + o->tol &&
				    (early == nobs || obs[q].p < obs[early].p))
					early = q;
			}
			if (gp == nobs) {
				struct ka_pair pr = {b, g, obs[g].eps_lo <= obs[b].eps_hi + o->tol ||
							       early != nobs};

				v->candidate(&pr, v->ctx);
			} else {
				size_t prev = predecessor(obs, nobs, gp);
				struct ka_sps s = {0};

				s.base = b;
				s.grown_n = g;
				s.grown_p = gp;
				s.efficiency = obs[b].eps;
				s.equal = fabs(obs[gp].eps - obs[b].eps) <= o->tol;
				s.arrow = ka_classify_step(obs[g].tau, obs[gp].tau, o->c2_rtol);
				s.step = ka_classify_step(obs[prev].tau, obs[gp].tau, o->c2_rtol);
				s.uncertain = obs[g].eps_lo <= obs[b].eps_hi + o->tol ||
					      obs[early].p < obs[gp].p ||
					      obs[gp].eps_hi > obs[b].eps_lo + o->tol;
				v->sps(&s, v->ctx);
			}
		}
	}
}
