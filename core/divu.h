/*
 * divu.h — quotient and remainder by a divisor fixed in advance, without
 * a divide instruction where both fit 32 bits (a 64-bit divide costs tens
 * of cycles; this is two multiplies).
 *
 * For d in [2, 2^32) and M = ceil(2^64 / d), every n < 2^32 gets
 *     n / d == (n * M) >> 64        n % d == ((n * M mod 2^64) * d) >> 64
 * exactly (Lemire, Kaser and Kurz, "Faster remainder by direct
 * computation", 2019, theorems 1 and 2 with N = 32, F = 64). Any other
 * n or d (d of 1 included, whose M would be 2^64) takes the plain
 * division: the answers are always those of / and %.
 */
#ifndef TS_DIVU_H
#define TS_DIVU_H

#include <stdbool.h>
#include <stdint.h>

struct ts_divu {
	uint64_t d;
	uint64_t m; /* ceil(2^64 / d), or 0: always divide */
};

static inline struct ts_divu ts_divu_init(uint64_t d)
{
	struct ts_divu v = { .d = d, .m = 0 };
	if (d > 1 && d <= UINT32_MAX)
		v.m = UINT64_MAX / d + 1;
	return v;
}

/* @n / v->d into *q and @n % v->d into *r (v->d > 0). */
static inline void ts_divu_divmod(const struct ts_divu *v, uint64_t n, uint64_t *q, uint64_t *r)
{
	if (v->m && n <= UINT32_MAX) {
		uint64_t low = v->m * n;
		*q = (uint64_t)(((unsigned __int128)v->m * n) >> 64);
		*r = (uint64_t)(((unsigned __int128)low * v->d) >> 64);
		return;
	}
	*q = n / v->d;
	*r = n % v->d;
}

static inline uint64_t ts_divu_div(const struct ts_divu *v, uint64_t n)
{
	if (v->m && n <= UINT32_MAX)
		return (uint64_t)(((unsigned __int128)v->m * n) >> 64);
	return n / v->d;
}

#endif
