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

uint64_t ts_rng_u64(struct ts_rng *r)
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

double ts_rng_double(struct ts_rng *r)
{
	return (double)(ts_rng_u64(r) >> 11) * 0x1.0p-53;
}

uint64_t ts_rng_below(struct ts_rng *r, uint64_t n)
{
	uint64_t lim = -n % n; /* 2^64 mod n */
	uint64_t x;
	do
		x = ts_rng_u64(r);
	while (x < lim);
	return x % n;
}

double ts_rng_normal(struct ts_rng *r)
{
	double u1, u2;
	do
		u1 = ts_rng_double(r);
	while (u1 <= 0.0);
	u2 = ts_rng_double(r);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double ts_rng_lognormal(struct ts_rng *r, double p50, double p99)
{
	if (p99 <= p50)
		return p50;
	return ts_rng_lognormal_sigma(r, p50, log(p99 / p50) / TS_Z99);
}

double ts_rng_lognormal_sigma(struct ts_rng *r, double p50, double sigma)
{
	return p50 * exp(sigma * ts_rng_normal(r));
}

void ts_rng_shuffle_u32(struct ts_rng *r, uint32_t *v, uint64_t n)
{
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = ts_rng_below(r, i);
		uint32_t t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}
