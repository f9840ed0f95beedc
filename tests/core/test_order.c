/*
 * test_order.c — the epochs' orders (pipeline/scheduler.c, core/rng.c's
 * shuffle and keyed permutation): a stored order's permutation pinned by
 * hashes of whole orders (so a shuffle that reorders its swaps fails
 * here); a computed one (ts_rng_perm) a bijection of [0, n) at every
 * size, a function of the seed and the epoch, spread as a uniform
 * permutation's; and the scheduler's three views of its order
 * (ts_sched_next, ts_sched_peek, ts_sched_order) the same, stored or
 * computed, an order kept across schedulers the same memory.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tcheck.h"
#include "core/rng.h"
#include "pipeline/scheduler.h"

static uint64_t hash_u32(const uint32_t *v, uint64_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a over the values */
	for (uint64_t i = 0; i < n; i++) {
		h ^= v[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* The order of @n samples, @seed, @epoch: scheduler.c's fill_order. */
static void ref_order(uint64_t n, uint64_t seed, uint64_t epoch, uint32_t *v)
{
	for (uint64_t i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	struct ts_rng r;
	ts_rng_seed(&r, seed * 0x9E3779B97F4A7C15ULL + epoch + 1);
	ts_rng_shuffle_u32(&r, v, n);
}

static void test_pinned(void)
{
	static const struct {
		uint64_t n, seed, epoch, hash;
	} pins[] = {
		{ 1000, 1, 0, 0x61f882ff5e685415ULL },
		{ 65537, 42, 0, 0x33277e13b9b6537bULL },
		{ 1u << 20, 7, 3, 0x08ae007d1e206f9bULL },
		{ 3000001, 123, 0, 0xe72b0ae94fa0e805ULL },
		/* 2^22 and over: values from the one-thread loop */
		{ 4194304, 3, 0, 0xce1d204d459a3db1ULL },
		{ 4194305, 8, 1, 0x383a8584feebf9e7ULL },
		{ 5000011, 21, 2, 0x75fc6b157239a72eULL },
	};
	uint32_t *v = malloc(5000011 * sizeof(*v));
	CHECK(v);
	for (size_t k = 0; v && k < sizeof(pins) / sizeof(pins[0]); k++) {
		ref_order(pins[k].n, pins[k].seed, pins[k].epoch, v);
		uint64_t h = hash_u32(v, pins[k].n);
		if (h != pins[k].hash)
			fprintf(stderr, "order of %llu samples, seed %llu, epoch %llu: %#llx\n",
				(unsigned long long)pins[k].n, (unsigned long long)pins[k].seed,
				(unsigned long long)pins[k].epoch, (unsigned long long)h);
		CHECK(h == pins[k].hash);
	}
	free(v);
}

/* Fisher-Yates from the back, one draw and one swap at a time: the
 * permutation and the generator's end state ts_rng_shuffle_u32 must give
 * at every size: around 2^22, one chunk of 2^16 over it (n - 1 swaps a
 * multiple of a chunk), a part chunk over, and more than 16 chunks over
 * (what a shuffle whose draws are made in chunks on another thread must
 * get right). */
static void test_split(void)
{
	static const uint64_t ns[] = { 4194303, 4194304, 4194305, 4194306, 4194305 + 65536 * 17 + 99 };
	uint64_t most = ns[4];
	uint32_t *a = malloc(most * sizeof(*a)), *b = malloc(most * sizeof(*b));
	CHECK(a && b);
	for (size_t k = 0; a && b && k < sizeof(ns) / sizeof(ns[0]); k++) {
		uint64_t n = ns[k];
		struct ts_rng ra, rb;
		ts_rng_seed(&ra, 1000 + k);
		rb = ra;
		for (uint64_t i = 0; i < n; i++)
			a[i] = b[i] = (uint32_t)i;
		ts_rng_shuffle_u32(&ra, a, n);
		for (uint64_t i = n; i > 1; i--) {
			uint64_t j = ts_rng_below(&rb, i);
			uint32_t t = b[i - 1];
			b[i - 1] = b[j];
			b[j] = t;
		}
		bool same = !memcmp(a, b, n * sizeof(*a));
		if (!same)
			fprintf(stderr, "shuffle of %llu differs from one swap at a time\n",
				(unsigned long long)n);
		CHECK(same);
		CHECK(!memcmp(ra.s, rb.s, sizeof(ra.s)));
	}
	free(a);
	free(b);
}

static struct ts_sched *sched(uint64_t n, uint64_t seed, bool shuffle, uint32_t batch)
{
	struct ts_sched_cfg c = { .samples = n, .batch = batch, .prefetch = 2, .epochs = 3,
				  .shuffle = shuffle, .seed = seed, .qd = 4, .slots = 8 };
	struct ts_sched *s = NULL;
	char err[256];
	CHECK(ts_sched_new(&c, &s, err, sizeof(err)) == 0);
	return s;
}

/* Is @o a bijection of [0, n)? */
static bool is_perm(const struct ts_sched_order *o, uint64_t n, uint8_t *seen)
{
	memset(seen, 0, n);
	for (uint64_t p = 0; p < n; p++) {
		uint64_t id = ts_sched_order_at(o, p);
		if (id >= n || seen[id])
			return false;
		seen[id] = 1;
	}
	return true;
}

/* ts_rng_perm is a bijection of [0, n): every n below 300, around powers of
 * two and their squares' halves (the network's halves change size
 * there, and the walk is longest just above them), and larger ones;
 * ts_rng_perm_fill gives ts_rng_perm_at's elements, from any start, and
 * ts_rng_perm_pos each element's position. */
static void test_perm_bijection(void)
{
	static const uint64_t big[] = { 4095, 4096, 4097, 65535, 65536, 65537, 1000003,
					(1u << 20) + 1, (1u << 22) - 1 };
	uint64_t most = 1u << 22;
	uint8_t *seen = malloc(most);
	uint16_t *tab = malloc(ts_rng_perm_entries(most) * sizeof(*tab));
	uint32_t *fill = malloc(most * sizeof(*fill)), *pos = malloc(most * sizeof(*pos));
	CHECK(seen && tab && fill && pos);
	if (!seen || !tab || !fill || !pos)
		goto out;
	CHECK(ts_rng_perm_entries(1ull << 32) > 0 && ts_rng_perm_entries((1ull << 32) + 1) == 0);
	struct ts_rng r;
	ts_rng_seed(&r, 77);
	for (uint64_t n = 1; n < 300 + TS_ARRAY_SIZE(big); n++) {
		uint64_t m = n < 300 ? n : big[n - 300];
		struct ts_sched_order o = { 0 };
		CHECK(ts_rng_perm_entries(m) <= ts_rng_perm_entries(most));
		ts_rng_perm_init(&o.perm, &r, m, tab);
		bool ok = is_perm(&o, m, seen);
		if (!ok)
			fprintf(stderr, "ts_rng_perm of %llu: not a bijection\n", (unsigned long long)m);
		CHECK(ok);
		uint64_t from = m / 3, bad = 0;
		ts_rng_perm_fill(&o.perm, 0, from, fill);
		ts_rng_perm_fill(&o.perm, from, m - from, fill + from);
		for (uint64_t p = 0; p < m; p++)
			bad += fill[p] != ts_rng_perm_at(&o.perm, p);
		CHECK_EQ_U64(bad, 0);
		/* ts_rng_perm_pos undoes it: every element's position */
		for (uint64_t p = 0; p < m; p++)
			bad += ts_rng_perm_pos(&o.perm, fill[p]) != p;
		if (bad)
			fprintf(stderr, "ts_rng_perm_pos of %llu: %llu wrong\n", (unsigned long long)m,
				(unsigned long long)bad);
		CHECK_EQ_U64(bad, 0);
		/* ts_rng_perm_pos_fill gives ts_rng_perm_pos's positions:
		 * all of [0, m) in one call (its blocks, each run of one high
		 * half and each wrap of the first round's results), and from
		 * any start, any length, across blocks and high halves */
		ts_rng_perm_pos_fill(&o.perm, 0, m, pos);
		for (uint64_t p = 0; p < m; p++)
			bad += pos[fill[p]] != p;
		uint64_t half = 1ull << o.perm.k;
		for (uint64_t at = 0; at < m; at += 1 + at / 3 + (at & 5)) {
			uint64_t len = TS_MIN(m - at, 1 + (at * 7 + m) % 700);
			ts_rng_perm_pos_fill(&o.perm, at, len, pos);
			for (uint64_t q = 0; q < len; q++)
				bad += pos[q] != ts_rng_perm_pos(&o.perm, at + q);
		}
		for (uint64_t at = half - TS_MIN(half, 5); at < m; at += half) {
			uint64_t len = TS_MIN(m - at, 3 + at % 600);
			ts_rng_perm_pos_fill(&o.perm, at, len, pos);
			for (uint64_t q = 0; q < len; q++)
				bad += pos[q] != ts_rng_perm_pos(&o.perm, at + q);
		}
		if (bad)
			fprintf(stderr, "ts_rng_perm_pos_fill of %llu: %llu wrong\n",
				(unsigned long long)m, (unsigned long long)bad);
		CHECK_EQ_U64(bad, 0);
	}
out:
	free(seen);
	free(tab);
	free(fill);
	free(pos);
}

/* The order a scheduler of @n samples holds for @epoch, read whole
 * through ts_sched_next, checked on the way against ts_sched_peek and
 * ts_sched_order (the same sample at every position, nothing past the
 * epoch's end) into @ids (n per epoch, @epochs of them). */
static void read_orders(struct ts_sched *s, uint64_t n, uint64_t epochs, uint32_t *ids)
{
	enum { AH = 9 };
	struct ts_sched_pos pos;
	struct ts_sched_batch b;
	uint64_t got = 0, bad = 0;
	while (got < n * epochs) {
		int r = ts_sched_next(s, &pos);
		if (r != 1) {
			if (ts_sched_take(s, &b) != 1)
				break;
			ts_sched_release(s, b.seq);
			continue;
		}
		const struct ts_sched_order *o = ts_sched_order(s, pos.epoch);
		uint64_t p = pos.index * 4 + pos.pos;
		bad += !o || p != got % n || ts_sched_order_at(o, p) != pos.id;
		bad += ts_sched_order(s, pos.epoch + 1) != NULL;
		for (uint64_t a = 0; o && a < AH; a++)
			bad += ts_sched_peek(s, a) != (p + a < n ? ts_sched_order_at(o, p + a) : UINT64_MAX);
		ids[got++] = (uint32_t)pos.id;
		CHECK(ts_sched_claim(s, &pos, false) == 1);
		ts_sched_read_done(s, &pos, 0);
	}
	CHECK_EQ_U64(got, n * epochs);
	CHECK_EQ_U64(bad, 0);
}

/* Through the scheduler, the threshold lowered: computed orders are
 * bijections, each epoch's its own, a function of (seed, epoch) (two
 * schedulers agree), another seed's another; below the threshold the
 * stored order (the pinned shuffle); unshuffled, the dataset order. */
static void test_sched_orders(void)
{
	static const uint64_t ns[] = { 1, 2, 3, 17, 1000, 4097, 65539 };
	uint64_t most = 65539;
	uint32_t *a = malloc(3 * most * sizeof(*a)), *b = malloc(3 * most * sizeof(*b));
	uint8_t *seen = malloc(most);
	CHECK(a && b && seen);
	for (size_t k = 0; a && b && seen && k < TS_ARRAY_SIZE(ns); k++) {
		uint64_t n = ns[k];
		ts_sched_set_computed_from(n); /* n and more: computed */
		struct ts_sched *s = sched(n, 5, true, 4), *t = sched(n, 5, true, 4);
		struct ts_sched *u = sched(n, 6, true, 4), *w = sched(n, 5, false, 4);
		ts_sched_set_computed_from(n + 1); /* stored */
		struct ts_sched *x = sched(n, 5, true, 4);
		ts_sched_set_computed_from(0);
		if (!s || !t || !u || !w || !x)
			break;
		read_orders(s, n, 3, a);
		read_orders(t, n, 3, b);
		CHECK(!memcmp(a, b, 3 * n * sizeof(*a)));
		for (uint64_t e = 0; e < 3; e++) {
			struct ts_sched_order o = { .v = a + e * n };
			CHECK(is_perm(&o, n, seen));
		}
		if (n >= 1000) { /* epochs and seeds: other orders */
			uint64_t same01 = 0, same12 = 0, same_seed = 0;
			read_orders(u, n, 3, b);
			for (uint64_t p = 0; p < n; p++) {
				same01 += a[p] == a[n + p];
				same12 += a[n + p] == a[2 * n + p];
				same_seed += a[p] == b[p];
			}
			CHECK(same01 < 10 && same12 < 10 && same_seed < 10);
		}
		read_orders(w, n, 3, b);
		bool ident = true;
		for (uint64_t p = 0; p < 3 * n; p++)
			ident &= b[p] == p % n;
		CHECK(ident);
		/* below the threshold: the stored shuffle, epoch by epoch */
		read_orders(x, n, 3, b);
		for (uint64_t e = 0; e < 3; e++) {
			ref_order(n, 5, e, a);
			CHECK(!memcmp(a, b + e * n, n * sizeof(*a)));
		}
		ts_sched_free(s);
		ts_sched_free(t);
		ts_sched_free(u);
		ts_sched_free(w);
		ts_sched_free(x);
	}
	free(a);
	free(b);
	free(seen);
}

/* Chi-square of @cells counts against a uniform expectation. */
static double chi2(const uint64_t *c, unsigned cells, uint64_t total)
{
	double e = (double)total / cells, x = 0;
	for (unsigned i = 0; i < cells; i++)
		x += ((double)c[i] - e) * ((double)c[i] - e) / e;
	return x;
}

/* A computed order spread as a uniform permutation's, for fixed seeds (so
 * each figure is fixed; the bounds are five standard deviations or more
 * above a uniform permutation's mean):
 *  - position against sample, 32 x 32 buckets over one order: chi-square
 *    with 961 degrees of freedom (mean 961, sd 44), under 1250;
 *  - where samples 0 .. 7 land over 4096 epochs of a 64-sample order, 16
 *    buckets each: chi-square (15 dof, sd 5.5) under 50;
 *  - what the merge count turns on, positions within W = 64 of each
 *    other holding samples i and i + 1: for a uniform permutation of n,
 *    2 W (n - (W + 1) / 2) / n... about 2 W = 128 such pairs, Poisson:
 *    within 128 +- 6 sqrt(128) for each of 8 seeds, and their sum within
 *    1024 +- 6 sqrt(1024). */
static void test_perm_uniform(void)
{
	enum { G = 32, W = 64 };
	uint64_t n = (1u << 20) + 12345; /* walks: a b over n */
	uint16_t *tab = malloc(ts_rng_perm_entries(n) * sizeof(*tab));
	uint32_t *at = malloc(n * sizeof(*at)); /* sample -> position */
	CHECK(tab && at);
	if (!tab || !at)
		goto out;
	struct ts_rng r;
	struct ts_sched_order o = { 0 };
	static uint64_t cell[G * G];
	ts_rng_seed(&r, 2024);
	ts_rng_perm_init(&o.perm, &r, n, tab);
	for (uint64_t p = 0; p < n; p++)
		cell[p * G / n * G + ts_sched_order_at(&o, p) * G / n]++;
	/* the expectation per cell is n / G^2 to within one row's rounding */
	double x = chi2(cell, G * G, n);
	if (!(x < 1250))
		fprintf(stderr, "position x sample: chi-square %.1f\n", x);
	CHECK(x < 1250);

	uint64_t land[8][16] = { { 0 } };
	for (uint64_t e = 0; e < 4096; e++) {
		ts_rng_seed(&r, 0x9E3779B97F4A7C15ULL * 3 + e + 1);
		ts_rng_perm_init(&o.perm, &r, 64, tab);
		for (uint64_t p = 0; p < 64; p++) {
			uint64_t id = ts_sched_order_at(&o, p);
			if (id < 8)
				land[id][p / 4]++;
		}
	}
	for (int i = 0; i < 8; i++) {
		x = chi2(land[i], 16, 4096);
		if (!(x < 50))
			fprintf(stderr, "sample %d's position over epochs: chi-square %.1f\n", i, x);
		CHECK(x < 50);
	}

	uint64_t sum = 0;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		ts_rng_seed(&r, seed);
		ts_rng_perm_init(&o.perm, &r, n, tab);
		for (uint64_t p = 0; p < n; p++)
			at[ts_sched_order_at(&o, p)] = (uint32_t)p;
		uint64_t near = 0;
		for (uint64_t i = 0; i + 1 < n; i++) {
			uint64_t d = at[i] > at[i + 1] ? at[i] - at[i + 1] : at[i + 1] - at[i];
			near += d <= W;
		}
		if (near < 60 || near > 196)
			fprintf(stderr, "seed %llu: %llu neighbours within %d\n",
				(unsigned long long)seed, (unsigned long long)near, W);
		CHECK(near >= 60 && near <= 196);
		sum += near;
	}
	CHECK(sum >= 832 && sum <= 1216);
out:
	free(tab);
	free(at);
}

/* A stored order kept across schedulers: a second scheduler of the same
 * samples and seed reads the same memory; another seed its own. */
static void test_kept(void)
{
	uint64_t n = 100003;
	struct ts_sched *a = sched(n, 9, true, 4), *b = sched(n, 9, true, 4), *c = sched(n, 10, true, 4);
	struct ts_sched_pos pos;
	CHECK(a && b && c && ts_sched_next(a, &pos) == 1 && ts_sched_next(b, &pos) == 1 &&
	      ts_sched_next(c, &pos) == 1);
	const struct ts_sched_order *oa = ts_sched_order(a, 0), *ob = ts_sched_order(b, 0),
				    *oc = ts_sched_order(c, 0);
	CHECK(oa && ob && oc && oa->v && oa->v == ob->v && oc->v && oc->v != oa->v);
	uint32_t *ref = malloc(n * sizeof(*ref));
	CHECK(ref);
	if (ref && oa && oa->v) {
		ref_order(n, 9, 0, ref);
		CHECK(!memcmp(ref, oa->v, n * sizeof(*ref)));
	}
	free(ref);
	ts_sched_free(a);
	ts_sched_free(b);
	ts_sched_free(c);
}

int main(void)
{
	test_pinned();
	test_split();
	test_perm_bijection();
	test_sched_orders();
	test_perm_uniform();
	test_kept();
	return tc_exit();
}
