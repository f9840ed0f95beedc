/*
 * rng.h — a small seeded generator (xoshiro256**, seeded through splitmix64)
 * so that every modeled figure is reproducible from its seed. No global
 * state: each model, pipeline and engine owns its generator.
 */
#ifndef TS_RNG_H
#define TS_RNG_H

#include <stdint.h>

struct ts_rng {
	uint64_t s[4];
};

void ts_rng_seed(struct ts_rng *r, uint64_t seed);
uint64_t ts_rng_u64(struct ts_rng *r);
/* Uniform in [0, 1). */
double ts_rng_double(struct ts_rng *r);
/* Uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t ts_rng_below(struct ts_rng *r, uint64_t n);
/* Standard normal N(0, 1). */
double ts_rng_normal(struct ts_rng *r);
/*
 * Lognormal with the given median and 99th percentile (p99 >= p50 > 0):
 * sigma = ln(p99/p50) / z(0.99), z(0.99) = 2.3263478740408408.
 */
double ts_rng_lognormal(struct ts_rng *r, double p50, double p99);
/* The same with sigma given (a caller drawing many from one distribution). */
double ts_rng_lognormal_sigma(struct ts_rng *r, double p50, double sigma);
/* Fisher–Yates shuffle of n 32-bit indices. */
void ts_rng_shuffle_u32(struct ts_rng *r, uint32_t *v, uint64_t n);

#define TS_Z99 2.3263478740408408

#endif
