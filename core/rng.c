/* rng.c — xoshiro256** (Blackman & Vigna, public domain algorithm): the
 * draws too large to inline (core/rng.h has the generator itself). */
#include <math.h>
#include <pthread.h>

#include "core/rng.h"
#include "core/ts.h"

double ts_rng_lognormal(struct ts_rng *r, double p50, double p99)
{
	if (p99 <= p50)
		return p50;
	return ts_rng_lognormal_sigma(r, p50, log(p99 / p50) / TS_Z99);
}

/* The ziggurat's layers: r and the layers' area v close the top layer
 * at x[256] = 0 (to 4e-15), v being the base layer's rectangle r f(r)
 * and the tail past r. */
#define ZIG_R 3.6541528853610088
static struct ts_rng_zig zig;
static pthread_once_t zig_once = PTHREAD_ONCE_INIT;

static void zig_build(void)
{
	double fr = exp(-0.5 * ZIG_R * ZIG_R);
	double v = ZIG_R * fr + sqrt(M_PI / 2) * erfc(ZIG_R / M_SQRT2);
	zig.x[0] = v / fr;
	zig.x[1] = ZIG_R;
	zig.f[0] = 0;
	zig.f[1] = fr;
	for (int i = 1; i < 255; i++) {
		zig.x[i + 1] = sqrt(-2 * log(v / zig.x[i] + zig.f[i]));
		zig.f[i + 1] = exp(-0.5 * zig.x[i + 1] * zig.x[i + 1]);
	}
	zig.x[256] = 0;
	zig.f[256] = 1;
	/* k[i]: the least m (0 .. 2^53) whose x, as ts_rng_normal_zig
	 * computes it, is not under x[i + 1] (2^53 where none is) */
	for (int i = 0; i < 256; i++) {
		uint64_t lo = 0, hi = 1ull << 53;
		while (lo < hi) {
			uint64_t m = lo + (hi - lo) / 2;
			if ((double)m * 0x1.0p-53 * zig.x[i] < zig.x[i + 1])
				lo = m + 1;
			else
				hi = m;
		}
		zig.k[i] = lo;
	}
}

const struct ts_rng_zig *ts_rng_zig(void)
{
	pthread_once(&zig_once, zig_build);
	return &zig;
}

double ts_rng_zig_edge_(struct ts_rng *r, const struct ts_rng_zig *z, unsigned i, double x)
{
	if (i == 0) { /* the tail past r: an exponential accepted under the curve */
		double a, b;
		do {
			a = -log((double)((ts_rng_u64(r) >> 11) + 1) * 0x1.0p-53) / ZIG_R;
			b = -log((double)((ts_rng_u64(r) >> 11) + 1) * 0x1.0p-53);
		} while (b + b < a * a);
		return ZIG_R + a;
	}
	/* the wedge: a height uniform in the layer, under the curve or not */
	double y = z->f[i] + ts_rng_double(r) * (z->f[i + 1] - z->f[i]);
	return y < exp(-0.5 * x * x) ? x : -1;
}

/* Fisher-Yates from the back. The draws do not depend on v, so they are
 * made SHUFFLE_AHEAD swaps early and each swap's far element prefetched: a
 * shuffle of 156.8M samples (627 MB) waits on memory, not on the draws.
 * The same draws in the same order as one ts_rng_below per swap. 64 ahead
 * keeps more misses in flight than 16: about a tenth less CPU for that
 * shuffle on a 2-vCPU EPYC guest (16, 32, 64, 128, 256 tried). */
#define SHUFFLE_AHEAD 64u /* a power of two */
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

/* ts_rng_perm's halves for @n: b = 2^*k, a (1 for n = 0). */
static uint64_t perm_halves(uint64_t n, unsigned *k)
{
	unsigned bits = n > 1 ? 64 - (unsigned)__builtin_clzll(n - 1) : 0;
	*k = (bits + 1) / 2;
	return n ? (n + (1ull << *k) - 1) >> *k : 1;
}

uint64_t ts_rng_perm_entries(uint64_t n)
{
	unsigned k;
	uint64_t a = perm_halves(n, &k);
	return n > (1ull << 32) ? 0 : TS_RNG_PERM_ROUNDS / 2 * (a + (1ull << k));
}

void ts_rng_perm_init(struct ts_rng_perm *p, struct ts_rng *r, uint64_t n, uint16_t *tab)
{
	unsigned k;
	uint64_t a = perm_halves(n, &k), b = 1ull << k;
	*p = (struct ts_rng_perm){ .n = n, .k = k, .a = (uint32_t)a };
	for (int j = 0; j < TS_RNG_PERM_ROUNDS; j++) {
		uint64_t len = j % 2 ? a : b, below = j % 2 ? b : a;
		for (uint64_t e = 0; e < len; e++)
			tab[e] = (uint16_t)ts_rng_below(r, below);
		p->f[j] = tab;
		tab += len;
	}
}

void ts_rng_perm_fill(const struct ts_rng_perm *p, uint64_t from, uint64_t len, uint32_t *out)
{
	enum { LANES = 4 };
	uint32_t k = p->k, a = p->a, mb = (uint32_t)((1ull << k) - 1);
	uint64_t i = 0;
	for (; i + LANES <= len; i += LANES) {
		uint32_t l[LANES], r[LANES];
		for (int c = 0; c < LANES; c++) {
			l[c] = (uint32_t)((from + i + c) >> k);
			r[c] = (uint32_t)(from + i + c) & mb;
		}
		for (int j = 0; j < TS_RNG_PERM_ROUNDS; j += 2) {
			for (int c = 0; c < LANES; c++) {
				uint32_t t = l[c] + p->f[j][r[c]];
				l[c] = r[c];
				r[c] = t - (a & -(uint32_t)(t >= a));
			}
			for (int c = 0; c < LANES; c++) {
				uint32_t t = l[c] + p->f[j + 1][r[c]];
				l[c] = r[c];
				r[c] = t & mb;
			}
		}
		for (int c = 0; c < LANES; c++) {
			uint64_t x = (uint64_t)l[c] << k | r[c];
			/* past n (under b of ab): walked on from there */
			out[i + c] = (uint32_t)(x < p->n ? x : ts_rng_perm_at(p, x));
		}
	}
	for (; i < len; i++)
		out[i] = (uint32_t)ts_rng_perm_at(p, from + i);
}

void ts_rng_perm_pos_fill(const struct ts_rng_perm *p, uint64_t from, uint64_t len, uint32_t *out)
{
	enum { BLOCK = 256, TOP = TS_RNG_PERM_ROUNDS - 2 };
	uint32_t k = p->k, a = p->a, mb = (uint32_t)((1ull << k) - 1), b = mb + 1;
	const uint16_t *fa = p->f[TOP + 1], *fb = p->f[TOP];
	uint32_t l[BLOCK], r[BLOCK];
	while (len) {
		uint32_t m = (uint32_t)TS_MIN(len, (uint64_t)BLOCK);
		/* rounds TOP + 1 and TOP: (hi, lo) -> (hi - F'(s) mod a, s),
		 * s = (lo - F(hi)) mod b, one run per stretch of one hi
		 * where s does not wrap past b */
		for (uint32_t q = 0; q < m;) {
			uint64_t x = from + q;
			uint32_t hi = (uint32_t)(x >> k), lo = (uint32_t)x & mb;
			uint32_t s = (lo - fa[hi]) & mb;
			uint32_t run = TS_MIN(m - q, TS_MIN(b - lo, b - s));
			const uint16_t *g = fb + s;
			for (uint32_t e = 0; e < run; e++) {
				uint32_t t = hi - g[e];
				r[q + e] = s + e;
				l[q + e] = t + (a & -(uint32_t)(t >= a));
			}
			q += run;
		}
		/* the rest, in pairs: loads at random places, each element's
		 * independent of the others' (their misses overlap) */
		for (int j = TOP - 2; j >= 0; j -= 2) {
			const uint16_t *f1 = p->f[j + 1], *f0 = p->f[j];
			for (uint32_t q = 0; q < m; q++) {
				uint32_t s = (r[q] - f1[l[q]]) & mb;
				uint32_t t = l[q] - f0[s];
				r[q] = s;
				l[q] = t + (a & -(uint32_t)(t >= a));
			}
		}
		for (uint32_t q = 0; q < m; q++) {
			uint64_t x = (uint64_t)l[q] << k | r[q];
			/* past n (under b of ab): walked on from there */
			out[q] = (uint32_t)(x < p->n ? x : ts_rng_perm_pos(p, x));
		}
		from += m;
		out += m;
		len -= m;
	}
}
