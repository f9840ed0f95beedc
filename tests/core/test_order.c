/*
 * test_order.c — the epochs' orders (pipeline/scheduler.c, core/rng.c's
 * shuffle): the permutation pinned by hashes of whole orders (values from
 * the code before orders were made ahead of their first claim, so a
 * shuffle that reorders its swaps fails here), and an order made on a
 * thread of its own from its scheduler's start (ts_sched_order_ahead)
 * the same as one made at the first claim, shared by schedulers made
 * before it is done, after it is, and after the scheduler that started
 * it is freed.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tcheck.h"
#include "core/rng.h"
#include "pipeline/scheduler.h"

/* scheduler.c's ORDER_EARLY: orders of this many samples are made ahead */
#define EARLY (1u << 24)

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

static struct ts_sched *sched(uint64_t n, uint64_t seed)
{
	struct ts_sched_cfg c = { .samples = n, .batch = 4, .prefetch = 2, .epochs = 2,
				  .shuffle = true, .seed = seed, .qd = 4, .slots = 8 };
	struct ts_sched *s = NULL;
	char err[256];
	CHECK(ts_sched_new(&c, &s, err, sizeof(err)) == 0);
	if (s)
		ts_sched_order_ahead(s); /* nothing below the threshold */
	return s;
}

/* The scheduler's first epoch's order, made (or waited for) at its first
 * sample's naming. */
static const uint32_t *first_order(struct ts_sched *s)
{
	struct ts_sched_pos pos;
	if (!s || ts_sched_next(s, &pos) != 1)
		return NULL;
	const uint32_t *o = ts_sched_order(s, 0);
	CHECK(o && pos.id == o[0]);
	return o;
}

static void test_ahead(void)
{
	uint64_t n = EARLY;
	uint32_t *ref = malloc(n * sizeof(*ref));
	CHECK(ref);
	if (!ref)
		return;
	/* below the threshold: made at the first claim, as before */
	ref_order(100003, 9, 0, ref);
	struct ts_sched *s = sched(100003, 9);
	const uint32_t *o = first_order(s);
	CHECK(o && !memcmp(o, ref, 100003 * sizeof(*o)));
	ts_sched_free(s);

	/* A and B made at once (the order still being made, most likely), A
	 * freed before it claims anything: B's order is the one */
	ref_order(n, 5, 0, ref);
	struct ts_sched *a = sched(n, 5), *b = sched(n, 5);
	ts_sched_free(a);
	const uint32_t *ob = first_order(b);
	CHECK(ob && !memcmp(ob, ref, n * sizeof(*ob)));
	/* C, made once it is kept: the same memory, not made again */
	struct ts_sched *c = sched(n, 5);
	const uint32_t *oc = first_order(c);
	CHECK(oc == ob);
	/* another seed: its own order, while the first stays */
	struct ts_sched *d = sched(n, 6);
	const uint32_t *od = first_order(d);
	ref_order(n, 6, 0, ref);
	CHECK(od && od != ob && !memcmp(od, ref, n * sizeof(*od)));
	ref_order(n, 5, 0, ref);
	CHECK(ob && !memcmp(ob, ref, n * sizeof(*ob)));
	ts_sched_free(b);
	ts_sched_free(c);
	ts_sched_free(d);
	/* a scheduler freed at once, then the process goes on: another
	 * seed's order started and left to its thread (the test's end
	 * leaves it running or done, either is fine) */
	ts_sched_free(sched(n, 11));
	free(ref);
}

int main(void)
{
	test_pinned();
	test_split();
	test_ahead();
	return tc_exit();
}
