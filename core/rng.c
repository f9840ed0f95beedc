/* rng.c — xoshiro256** (Blackman & Vigna, public domain algorithm): the
 * draws too large to inline (core/rng.h has the generator itself). */
#include <math.h>

#include "core/rng.h"

double ts_rng_lognormal(struct ts_rng *r, double p50, double p99)
{
	if (p99 <= p50)
		return p50;
	return ts_rng_lognormal_sigma(r, p50, log(p99 / p50) / TS_Z99);
}

/* Fisher-Yates from the back. The draws do not depend on v, so they are
 * made SHUFFLE_AHEAD swaps early and each swap's far element prefetched: a
 * shuffle of 156.8M samples (627 MB) waits on memory, not on the draws.
 * The same draws in the same order as one ts_rng_below per swap. */
#define SHUFFLE_AHEAD 16u /* a power of two */
void ts_rng_shuffle_u32(struct ts_rng *r, uint32_t *v, uint64_t n)
{
	uint64_t ahead[SHUFFLE_AHEAD];
	uint64_t next = n; /* the next i to draw for */
	for (; next > 1 && n - next < SHUFFLE_AHEAD; next--) {
		ahead[next % SHUFFLE_AHEAD] = ts_rng_below(r, next);
		__builtin_prefetch(&v[ahead[next % SHUFFLE_AHEAD]], 1);
	}
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = ahead[i % SHUFFLE_AHEAD];
		if (next > 1) { /* next = i - SHUFFLE_AHEAD: the slot just read */
			ahead[next % SHUFFLE_AHEAD] = ts_rng_below(r, next);
			__builtin_prefetch(&v[ahead[next % SHUFFLE_AHEAD]], 1);
			next--;
		}
		uint32_t t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}
