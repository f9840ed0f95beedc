/* rng.c — xoshiro256** (Blackman & Vigna, public domain algorithm). */
#include <math.h>

#include "core/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void ts_rng_seed(struct ts_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

/* The generator's step and the draws built on it, inlined here: the
 * exported functions are interposable symbols of a PIC archive, so each
 * called the next (a lognormal draw went four calls deep). */
static inline uint64_t next_u64(struct ts_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

static inline double next_double(struct ts_rng *r)
{
	return (double)(next_u64(r) >> 11) * 0x1.0p-53;
}

static inline double next_normal(struct ts_rng *r)
{
	double u1, u2;
	do
		u1 = next_double(r);
	while (u1 <= 0.0);
	u2 = next_double(r);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

uint64_t ts_rng_u64(struct ts_rng *r)
{
	return next_u64(r);
}

double ts_rng_double(struct ts_rng *r)
{
	return next_double(r);
}

uint64_t ts_rng_below(struct ts_rng *r, uint64_t n)
{
	uint64_t x = next_u64(r);
	/* Rejects x < 2^64 mod n, which is under n: a draw of n or more
	 * passes without that division. */
	if (x < n) {
		uint64_t lim = -n % n;
		while (x < lim)
			x = next_u64(r);
	}
	return x % n;
}

double ts_rng_normal(struct ts_rng *r)
{
	return next_normal(r);
}

double ts_rng_lognormal(struct ts_rng *r, double p50, double p99)
{
	if (p99 <= p50)
		return p50;
	return ts_rng_lognormal_sigma(r, p50, log(p99 / p50) / TS_Z99);
}

double ts_rng_lognormal_sigma(struct ts_rng *r, double p50, double sigma)
{
	return p50 * exp(sigma * next_normal(r));
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
