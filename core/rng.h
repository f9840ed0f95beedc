/*
 * rng.h — a small seeded generator (xoshiro256**, seeded through splitmix64)
 * so that every modeled figure is reproducible from its seed. No global
 * state: each model, pipeline and engine owns its generator.
 */
#ifndef TS_RNG_H
#define TS_RNG_H

#include <math.h>
#include <stdint.h>

struct ts_rng {
	uint64_t s[4];
};

/*
 * The generator's step and the draws built on it are defined here, inline:
 * as functions of the library (interposable symbols of a PIC archive) each
 * draw was a call, and the page-cache model's device and the dataset's
 * describe make one or more per request and per image. Whoever includes
 * this header gets the same operations in the same order, so the same
 * figures.
 */
static inline uint64_t ts_rng_splitmix64_(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void ts_rng_seed(struct ts_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = ts_rng_splitmix64_(&seed);
}

static inline uint64_t ts_rng_rotl_(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t ts_rng_u64(struct ts_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = ts_rng_rotl_(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = ts_rng_rotl_(s[3], 45);
	return result;
}

/* Uniform in [0, 1). */
static inline double ts_rng_double(struct ts_rng *r)
{
	return (double)(ts_rng_u64(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n > 0, without modulo bias. */
static inline uint64_t ts_rng_below(struct ts_rng *r, uint64_t n)
{
	uint64_t x = ts_rng_u64(r);
	/* Rejects x < 2^64 mod n, which is under n: a draw of n or more
	 * passes without that division. */
	if (x < n) {
		uint64_t lim = -n % n;
		while (x < lim)
			x = ts_rng_u64(r);
	}
	return x % n;
}

/* Standard normal N(0, 1) (Box-Muller, the cosine branch). */
static inline double ts_rng_normal(struct ts_rng *r)
{
	double u1, u2;
	do
		u1 = ts_rng_double(r);
	while (u1 <= 0.0);
	u2 = ts_rng_double(r);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/*
 * Standard normal N(0, 1) by Marsaglia and Tsang's ziggurat (J. Stat.
 * Softw. 5(8), 2000) over 256 layers of equal area: one 64-bit draw gives
 * the layer (8 bits), the sign (1) and the position in the layer (53); a
 * point inside the layer's rectangle under the curve (98.5% of draws) is
 * the answer, with no log, square root or cosine. The rest take the slow
 * path (rng.c): the layer's wedge against exp(-x^2/2), or the tail past r
 * (Marsaglia's 1964 exponential method), or a new draw. The same
 * distribution as ts_rng_normal, a different stream of draws: a model
 * that draws many normals from its own generator (the tier's device) uses
 * it, with its table from ts_rng_zig().
 */
struct ts_rng_zig {
	double x[257]; /* layer i spans [0, x[i]]; x[0] = v / f(r), x[1] = r, x[256] = 0 */
	double f[257]; /* exp(-x[i]^2 / 2) */
	/* a draw u in layer i (u & 255) is inside its rectangle (the fast
	 * path's x < x[i + 1]) exactly when u >> 11 < k[i]: that x rises
	 * (never falls) with u >> 11, rounding included, so the draws it
	 * takes are those below the first it does not (rng.c's zig_build
	 * finds it with the same operations) */
	uint64_t k[256];
};
const struct ts_rng_zig *ts_rng_zig(void);
/* The slow path of ts_rng_normal_zig for a draw in layer @i at @x, past
 * the layer's rectangle under the curve: |z|, or -1 for a new draw. */
double ts_rng_zig_edge_(struct ts_rng *r, const struct ts_rng_zig *z, unsigned i, double x);
/* The most |z| ts_rng_normal_zig returns: a layer's rectangle or wedge
 * gives less than x[0] (3.91); the tail gives r + a, where a draw is
 * accepted only with 2b >= a^2 and b = -ln(k 2^-53) <= 53 ln 2 for k >= 1,
 * so a <= sqrt(106 ln 2) = 8.5717 and r + a <= 12.2259, rounded up. */
#define TS_RNG_ZIG_MAX 12.23
static inline double ts_rng_normal_zig(struct ts_rng *r, const struct ts_rng_zig *z)
{
	for (;;) {
		uint64_t u = ts_rng_u64(r);
		unsigned i = (unsigned)(u & 255);
		double x = (double)(u >> 11) * 0x1.0p-53 * z->x[i];
		if (!(x < z->x[i + 1])) {
			/* the slow path on a copy: @r's address never leaves,
			 * so a caller's local generator stays in registers
			 * (spilled and reloaded every draw otherwise) */
			struct ts_rng e = *r;
			x = ts_rng_zig_edge_(&e, z, i, x);
			*r = e;
			if (x < 0)
				continue;
		}
		/* u & 256 ? -x : x without a branch (a coin flip each
		 * draw): x >= 0, so -x is x with its sign bit set */
		union { double d; uint64_t b; } c = { .d = x };
		c.b ^= (u & 256) << 55;
		return c.d;
	}
}

/*
 * The largest of @x and @n draws of ts_rng_normal_zig from @r, @r left
 * where those n draws leave it. A draw inside its layer's rectangle is
 * under x[1] (its x < x[i + 1] <= x[1]), and so is one the wedge takes
 * (under x[i] <= x[1], i >= 1): once the largest is x[1] or more, only
 * the tail can raise it, so a draw is tested against its rectangle on
 * its integer bits alone (k) and is converted only on the slow path. The
 * same draws, the same stream, the same largest as a loop of
 * TS_MAX(x, ts_rng_normal_zig(r, z)).
 */
static inline double ts_rng_normal_zig_max(struct ts_rng *r, const struct ts_rng_zig *z, uint64_t n,
					   double x)
{
	struct ts_rng s = *r;
	uint64_t q = 0;
	for (; q < n && !(x >= z->x[1]); q++) {
		double y = ts_rng_normal_zig(&s, z);
		x = x > y ? x : y;
	}
	for (; q < n; q++) {
		for (;;) {
			uint64_t u = ts_rng_u64(&s);
			unsigned i = (unsigned)(u & 255);
			if (u >> 11 < z->k[i]) /* inside the rectangle: under x[1] */
				break;
			struct ts_rng e = s;
			double y = ts_rng_zig_edge_(&e, z, i, (double)(u >> 11) * 0x1.0p-53 * z->x[i]);
			s = e;
			if (y < 0)
				continue;
			union { double d; uint64_t b; } c = { .d = y };
			c.b ^= (u & 256) << 55;
			x = x > c.d ? x : c.d;
			break;
		}
	}
	*r = s;
	return x;
}

/*
 * Lognormal with the given median and 99th percentile (p99 >= p50 > 0):
 * sigma = ln(p99/p50) / z(0.99), z(0.99) = 2.3263478740408408.
 */
double ts_rng_lognormal(struct ts_rng *r, double p50, double p99);
/* The same with sigma given (a caller drawing many from one distribution). */
static inline double ts_rng_lognormal_sigma(struct ts_rng *r, double p50, double sigma)
{
	return p50 * exp(sigma * ts_rng_normal(r));
}
/*
 * Counter-based draws: a generator whose draws are a function of a seed
 * and a key alone, never of how many draws were made before it (a
 * replay's device latency tied to the request, not to the order requests
 * are served in: tier/device.c). ts_rng_mix64 is splitmix64's output
 * function (Stafford's Mix13: a bijection of 64 bits, every input bit
 * flipping each output bit with probability about 1/2); ts_rng_key folds
 * one more part into a key (for a fixed key, a bijection of the part, and
 * for a fixed part, of the key); ts_rng_keyed seeds @out from (seed, key)
 * as ts_rng_seed seeds from a seed, so the draws made from it are the
 * distributions above (ts_rng_normal_zig, ts_rng_double...) as they are.
 */
static inline uint64_t ts_rng_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t ts_rng_key(uint64_t key, uint64_t part)
{
	return ts_rng_mix64(key ^ ts_rng_mix64(part + 0x9e3779b97f4a7c15ULL));
}

/* A domain of its own for keyed draws: ts_rng_keyed(seed, key) shares no
 * state with ts_rng_seed(seed)'s stream. */
#define TS_RNG_KEYED_DOMAIN 0x6b65796564647261ULL
static inline void ts_rng_keyed(struct ts_rng *out, uint64_t seed, uint64_t key)
{
	ts_rng_seed(out, ts_rng_key(ts_rng_key(TS_RNG_KEYED_DOMAIN, seed), key));
}

/* Fisher–Yates shuffle of n 32-bit indices. */
void ts_rng_shuffle_u32(struct ts_rng *r, uint32_t *v, uint64_t n);

/*
 * A pseudo-random permutation of [0, n), n <= 2^32, computed an element
 * at a time: ts_rng_perm_at(p, i) is the i-th element, in a few dozen
 * instructions and no memory, where a shuffled array of n indices must be
 * written whole first (156.8M indices: 627 MB, about 2 s of page clearing
 * and Fisher–Yates) before its first element is known.
 *
 * A Feistel network over Z_a x Z_b (Black and Rogaway, "Ciphers with
 * Arbitrary Finite Domains", CT-RSA 2002, their generalized Feistel):
 * b = 2^k with k half of n's bits (rounded up) and a = ceil(n / b) <= b,
 * i = L b + R. A round maps (L, R) to (R, (L + F(R)) mod m), m the
 * modulus of L's half, so the halves' moduli alternate and two rounds
 * come back to Z_a x Z_b; each F is a table of random values below m,
 * drawn from the generator (TS_RNG_PERM_ROUNDS tables of b or a
 * entries, at most 64 Ki each). Four rounds of random functions make a
 * pseudo-random permutation (Luby and Rackoff, SIAM J. Comput. 17(2),
 * 1988): for two inputs, the chance that their outputs are any given
 * pair is a uniform permutation's to within O(1/a). An element of
 * [n, ab) (fewer than b of them) is walked on through the network until
 * it lands in [0, n) (cycle walking, Black and Rogaway): a bijection of
 * [0, n). A lookup is a few dozen instructions, four of them loads from
 * the tables (100 KiB for 2^28): where the work between two lookups
 * evicts them, lookups made a block at a time overlap their misses
 * (ts_rng_perm_fill). Tabulated round functions (two bytes' tables, 8
 * KiB) and a hash with no table (splitmix's multiply-xorshifts) took 2-3
 * times as long a lookup.
 *
 * A different permutation from ts_rng_shuffle_u32's for the same
 * generator: a model of a uniformly shuffled order as valid as that one.
 */
#define TS_RNG_PERM_ROUNDS 4 /* even: the rounds come back to Z_a x Z_b */
struct ts_rng_perm {
	uint64_t n;
	uint32_t k, a; /* b = 2^k */
	const uint16_t *f[TS_RNG_PERM_ROUNDS]; /* round j's F: b entries < a (even j), a < b (odd) */
};

/* The table entries ts_rng_perm_init needs for @n (0 for n > 2^32). */
uint64_t ts_rng_perm_entries(uint64_t n);
/* Draws a permutation of [0, @n) from @r into @tab (ts_rng_perm_entries(n)
 * entries, kept by the caller as long as @p is used). */
void ts_rng_perm_init(struct ts_rng_perm *p, struct ts_rng *r, uint64_t n, uint16_t *tab);
/* Elements [@from, @from + @len) of @p into @out, four at a time, their
 * rounds interleaved: their table misses overlap. */
void ts_rng_perm_fill(const struct ts_rng_perm *p, uint64_t from, uint64_t len, uint32_t *out);

static inline uint64_t ts_rng_perm_at(const struct ts_rng_perm *p, uint64_t i)
{
	uint32_t k = p->k, a = p->a, mb = (uint32_t)((1ull << k) - 1);
	uint64_t x = i;
	do {
		uint32_t l = (uint32_t)(x >> k), r = (uint32_t)x & mb;
		for (int j = 0; j < TS_RNG_PERM_ROUNDS; j += 2) {
			uint32_t t = l + p->f[j][r]; /* l in Z_a, r in Z_b */
			l = r;
			r = t - (a & -(uint32_t)(t >= a)); /* no branch: taken half the time */
			t = l + p->f[j + 1][r];	     /* l in Z_b, r in Z_a */
			l = r;
			r = t & mb;
		}
		x = (uint64_t)l << k | r;
	} while (x >= p->n);
	return x;
}

/* One pass of the network backwards: each round (l, r) -> (r, (l + F(r))
 * mod m) undone as (l', r') -> ((r' - F(l')) mod m, l'), the last round
 * first. The halves' moduli alternate as forwards: after an odd round l
 * is in Z_a and r in Z_b. */
static inline uint64_t ts_rng_perm_back_(const struct ts_rng_perm *p, uint64_t x)
{
	uint32_t k = p->k, a = p->a, mb = (uint32_t)((1ull << k) - 1);
	uint32_t l = (uint32_t)(x >> k), r = (uint32_t)x & mb;
	for (int j = TS_RNG_PERM_ROUNDS - 2; j >= 0; j -= 2) {
		uint32_t t = (r - p->f[j + 1][l]) & mb; /* l in Z_a, r in Z_b */
		r = l;
		l = t;
		t = r - p->f[j][l]; /* l in Z_b, r in Z_a: r - F in (-a, a) */
		r = l;
		l = t + (a & -(uint32_t)(t >= a)); /* wrapped below 0: add a back */
	}
	return (uint64_t)l << k | r;
}

/* The position of @x in @p: the i with ts_rng_perm_at(p, i) == x, x < n.
 * Cycle walking backwards: the network's inverse from x until it lands
 * in [0, n), through the same elements of [n, ab) the forward walk
 * crossed (the network is a bijection of [0, ab)). */
static inline uint64_t ts_rng_perm_pos(const struct ts_rng_perm *p, uint64_t x)
{
	do
		x = ts_rng_perm_back_(p, x);
	while (x >= p->n);
	return x;
}

/* ts_rng_perm_pos of elements [@from, @from + @len) into @out, each
 * ts_rng_perm_back_'s operations on its element, so each is
 * ts_rng_perm_pos's (tests/core/test_order.c), in another order: the
 * first two backward rounds for a block of elements, then the others.
 * Consecutive elements of one high half l share the first round's
 * load F(l), and its results (r - F(l)) mod b are consecutive too, so
 * the second round reads its table in one run: of the four loads per
 * element, two are left at random places (rng.c). Half the samples of
 * bert_v100's 156.8M in 256-element blocks (GCC 12 -O2, beside a busy
 * build): 0.388 s (0.362-0.599) against 0.679 s (0.675-0.774) for eight
 * elements' four rounds interleaved. */
void ts_rng_perm_pos_fill(const struct ts_rng_perm *p, uint64_t from, uint64_t len, uint32_t *out);

#define TS_Z99 2.3263478740408408

#endif
