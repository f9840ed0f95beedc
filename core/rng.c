/* rng.c — xoshiro256** (Blackman & Vigna, public domain algorithm): the
 * draws too large to inline (core/rng.h has the generator itself). */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

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

/* A shuffle of SHUFFLE_SPLIT indices or more takes its draws from a
 * thread of its own: the draws (a generator step and a 64-bit division a
 * swap) were about a third of a large shuffle's time, the swaps' misses
 * the rest, and they run on one CPU each. The draws go through a ring of
 * SPLIT_CHUNKS chunks of SPLIT_CHUNK, made in the generator's order and
 * used in it; the swaps are the one-thread loop's, in its order, so the
 * permutation and the generator's state at the end are the same. */
#define SHUFFLE_AHEAD 64u /* a power of two (ts_rng_shuffle_u32) */
#define SHUFFLE_SPLIT (1u << 22)
#define SPLIT_CHUNK (1u << 16)
#define SPLIT_CHUNKS 16u

struct shuffle_draws {
	struct ts_rng r;
	uint64_t n;
	uint32_t *ring; /* SPLIT_CHUNKS x SPLIT_CHUNK draws */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t made, used; /* chunks */
};

/* The draws for i = n, n - 1, ..., 2: chunk c holds those of the swaps
 * c SPLIT_CHUNK .. (c + 1) SPLIT_CHUNK - 1 from the top. */
static void *shuffle_draw(void *arg)
{
	struct shuffle_draws *d = arg;
	uint64_t swaps = d->n - 1, chunks = (swaps + SPLIT_CHUNK - 1) / SPLIT_CHUNK;
	for (uint64_t c = 0; c < chunks; c++) {
		pthread_mutex_lock(&d->mu);
		while (c - d->used >= SPLIT_CHUNKS)
			pthread_cond_wait(&d->cv, &d->mu);
		pthread_mutex_unlock(&d->mu);
		uint32_t *o = d->ring + c % SPLIT_CHUNKS * SPLIT_CHUNK;
		uint64_t i = d->n - c * SPLIT_CHUNK, end = i > SPLIT_CHUNK + 1 ? i - SPLIT_CHUNK : 1;
		for (uint64_t k = 0; i > end; i--, k++)
			o[k] = (uint32_t)ts_rng_below(&d->r, i);
		pthread_mutex_lock(&d->mu);
		d->made = c + 1;
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
	}
	return NULL;
}

/* The swaps of a chunk's draws @o, i from @i down to @end + 1, far
 * elements prefetched SHUFFLE_AHEAD ahead, into the next chunk's @n2
 * draws @o2 at the end (none: 0) */
static void shuffle_swaps(uint32_t *v, uint64_t i, uint64_t end, const uint32_t *o,
			  const uint32_t *o2, uint64_t n2)
{
	uint64_t len = i - end;
	for (uint64_t k = 0; k < len && k < SHUFFLE_AHEAD; k++)
		__builtin_prefetch(&v[o[k]], 1);
	for (uint64_t k = 0; k < len; k++, i--) {
		uint64_t a = k + SHUFFLE_AHEAD;
		if (a < len)
			__builtin_prefetch(&v[o[a]], 1);
		else if (a - len < n2)
			__builtin_prefetch(&v[o2[a - len]], 1);
		uint32_t j = o[k], t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

static bool shuffle_split(struct ts_rng *r, uint32_t *v, uint64_t n)
{
	struct shuffle_draws d = { .r = *r, .n = n };
	if (!(d.ring = malloc((size_t)SPLIT_CHUNKS * SPLIT_CHUNK * sizeof(*d.ring))))
		return false;
	pthread_t th;
	if (pthread_mutex_init(&d.mu, NULL)) {
		free(d.ring);
		return false;
	}
	if (pthread_cond_init(&d.cv, NULL)) {
		pthread_mutex_destroy(&d.mu);
		free(d.ring);
		return false;
	}
	if (pthread_create(&th, NULL, shuffle_draw, &d)) {
		pthread_cond_destroy(&d.cv);
		pthread_mutex_destroy(&d.mu);
		free(d.ring);
		return false;
	}
	uint64_t swaps = n - 1, chunks = (swaps + SPLIT_CHUNK - 1) / SPLIT_CHUNK;
	for (uint64_t c = 0; c < chunks; c++) {
		/* this chunk and, where there is one, the next (its first
		 * draws prefetched at this one's end) */
		uint64_t want = TS_MIN(c + 2, chunks);
		pthread_mutex_lock(&d.mu);
		while (d.made < c + 1)
			pthread_cond_wait(&d.cv, &d.mu);
		bool next = d.made >= want && want > c + 1;
		pthread_mutex_unlock(&d.mu);
		uint64_t i = n - c * SPLIT_CHUNK, end = i > SPLIT_CHUNK + 1 ? i - SPLIT_CHUNK : 1;
		uint64_t n2 = next ? TS_MIN(end - 1, SPLIT_CHUNK) : 0; /* the next chunk's */
		shuffle_swaps(v, i, end, d.ring + c % SPLIT_CHUNKS * SPLIT_CHUNK,
			      d.ring + (c + 1) % SPLIT_CHUNKS * SPLIT_CHUNK, n2);
		pthread_mutex_lock(&d.mu);
		d.used = c + 1;
		pthread_cond_broadcast(&d.cv);
		pthread_mutex_unlock(&d.mu);
	}
	pthread_join(th, NULL);
	*r = d.r;
	pthread_cond_destroy(&d.cv);
	pthread_mutex_destroy(&d.mu);
	free(d.ring);
	return true;
}

/* Fisher-Yates from the back: the same draws in the same order as one
 * ts_rng_below per swap, and the same swaps. The draws do not depend on
 * v, so they are made SHUFFLE_AHEAD swaps early (on a thread of their own
 * from SHUFFLE_SPLIT on) and each swap's far element is prefetched
 * then: a shuffle of 156.8M samples (627 MB) waits
 * on memory, not on the draws. 64 ahead keeps more misses in flight than
 * 16: about a tenth less CPU for that shuffle on a 2-vCPU EPYC guest (16,
 * 32, 64, 128, 256 tried; SHUFFLE_AHEAD, above). */
void ts_rng_shuffle_u32(struct ts_rng *r, uint32_t *v, uint64_t n)
{
	if (n >= SHUFFLE_SPLIT && shuffle_split(r, v, n))
		return;
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
