/*
 * device.c — the bottom layer of the tier model: the device itself, which
 * serves `parallel` requests at once, each taking the base latency of its
 * op drawn from the profile's distribution.
 *
 * Slots are a queue (core/evq.h) of the times each slot becomes free,
 * earliest first: a request starts when it arrives or when the earliest
 * slot frees, whichever is later, so with more requests in flight than
 * slots, queueing emerges by itself (a slot's new free time mostly lands
 * at or near the back of evq's sorted array). A heap of bare times holds
 * the completion times of requests in flight, which gives the queue depth
 * a request sees in either clock without being told when requests end;
 * a model whose queue depth no one reads (a virtual run: cfg no_qd)
 * keeps none: its pushes and pops were a sixth to a fifth of the CPU of
 * a 115-rank DLIO run (bench/speed.sh scale).
 *
 * Draws: by default each request takes the next draws of one generator,
 * in the order requests reach the device (dlio_run.c's early pass draws
 * them ahead: ts_tier_device_rng). Keyed (ts_tier_device_keyed, a replay's
 * choice): each request's draws come from a generator seeded from (seed,
 * the caller's key, the request's op, file and offset, how often that
 * op/file/offset came before under the same key: core/rng.h's
 * ts_rng_keyed), so a request gets the same latency whatever requests
 * are added or removed before it.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/evq.h"
#include "core/fmath.h"
#include "tier/tier_layer.h"

/* A binary min-heap of bare times: of the requests in flight only how
 * many end after now is read (done->qd), so no tie or item rides along,
 * and their ends come in no order (each its own latency draw) for evq's
 * sorted array to take. */
struct keys {
	uint64_t *v;
	size_t n, cap;
};

static int keys_push(struct keys *h, uint64_t k)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		uint64_t *v = realloc(h->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		h->v = v;
		h->cap = cap;
	}
	size_t i = h->n++;
	while (i) {
		size_t up = (i - 1) / 2;
		if (h->v[up] <= k)
			break;
		h->v[i] = h->v[up];
		i = up;
	}
	h->v[i] = k;
	return 0;
}

/* Removes the least; @h must not be empty. Bottom-up (Floyd): the hole
 * at the root goes down the lesser children to a leaf, then the last key
 * rises into it from there. The last key is a recent end, mostly later
 * than most in flight, so it rises a level or two: one compare a level on
 * the way down instead of two. Only the count and the least are read, and
 * any heap of the same keys gives both. */
static void keys_pop(struct keys *h)
{
	size_t n = --h->n, i = 0, c;
	uint64_t k = h->v[n], *v = h->v;
	while ((c = 2 * i + 1) < n) {
		c += c + 1 < n && v[c + 1] < v[c];
		v[i] = v[c];
		i = c;
	}
	while (i) {
		size_t up = (i - 1) / 2;
		if (v[up] <= k)
			break;
		v[i] = v[up];
		i = up;
	}
	v[i] = k;
}

/*
 * The count of a request's sub-key (sub_key) is exact: how many requests
 * before it under the key had its op, file and offset, however many
 * requests the key has (a read the model splits into hundreds of device
 * requests, a path walk of hundreds of metadata reads). A table (open
 * addressing, linear probing, at most half full) holds each sub-key's
 * count: a request costs a probe or two. It starts as the KEY_TAB slots
 * inside the device and doubles when a new sub-key would make it more
 * than half full, rehashing its live slots: amortised O(1) a request, no
 * cap. A slot is live while its generation is the table's; a new key
 * bumps the table's generation, which empties it at once, at whatever
 * size it grew to.
 *
 * Out of memory, the table cannot grow: it falls back, deterministically,
 * to filling its free slots but one (a probe always ends on an empty
 * slot), each sub-key in it still counted exactly; once it is that full,
 * a sub-key not in it draws count 0 and is not remembered (the bound the
 * count had at 32 requests before it grew). The next new sub-key tries
 * to grow the table again. submit has no error to return, so the replay
 * goes on, every latency still drawn from its own generator.
 */
#define KEY_TAB 64 /* the slots inside the device; a power of two */

struct key_slot {
	uint64_t k;
	uint32_t gen;	/* live when the device's key_gen */
	uint32_t count; /* requests of the sub-key so far, saturating */
};

struct device {
	struct ts_tier_layer l;
	const struct ts_tier_profile *p;
	struct ts_evq slots;	/* free time of each of the `parallel` slots */
	struct keys inflight;	/* completion times of requests in flight */
	bool qd;		/* inflight kept: someone reads the queue depth */
	struct ts_rng rng;
	/* keyed draws (ts_tier_device_keyed): the seed, the caller's key and
	 * the requests' sub-keys drawn under it so far, for their count */
	bool keyed;
	uint64_t seed, key;
	struct key_slot *seen;	      /* the table: tab0 or on the heap */
	size_t seen_cap;	      /* its slots, a power of two */
	size_t nseen;		      /* its live slots: sub-keys under the key */
	uint32_t key_gen;	      /* the live slots' generation; 0 marks none */
	struct key_slot tab0[KEY_TAB]; /* the table until it grows */
	const struct ts_rng_zig *zig; /* the normal's table (core/rng.h) */
	const struct ts_fm *fm;	      /* exp's (core/fmath.h) */
	_Atomic uint32_t qd_pub; /* queue depth at the last request, for stats */
	/* Each op's lognormal sigma, kept while its p50 and p99 stay: the
	 * same figure ts_rng_lognormal computes, one log per request less. */
	struct {
		double p50, p99, sigma;
	} sig[TS_TIER_OP_NR];
};

/* The stall on top of a draw: one more uniform draw, only where the
 * distribution has one (so every other tier's stream of draws stays). */
static inline double stall_of(const struct ts_tier_dist *d, struct ts_rng *r)
{
	if (!(d->stall_p > 0))
		return 0;
	double u = ts_rng_double(r);
	if (u >= d->stall_p)
		return 0;
	/* u / p is uniform on [0, 1) given u < p: no second draw */
	return d->stall_lo_ns + (d->stall_hi_ns - d->stall_lo_ns) * (u / d->stall_p);
}

static double dist_base(const struct ts_tier_dist *d, struct ts_rng *r)
{
	switch (d->kind) {
	case TS_TIER_DIST_FIXED:
		return d->p50_ns;
	case TS_TIER_DIST_LOGNORMAL:
		return d->p99_ns > d->p50_ns ? ts_rng_lognormal(r, d->p50_ns, d->p99_ns) : d->p50_ns;
	case TS_TIER_DIST_UNIFORM:
		return d->lo_ns + (d->hi_ns - d->lo_ns) * ts_rng_double(r);
	case TS_TIER_DIST_NONE:
		break;
	}
	return 0;
}

double ts_tier_dist_sample(const struct ts_tier_dist *d, struct ts_rng *r)
{
	double v = dist_base(d, r);
	return v + stall_of(d, r);
}

static const struct ts_tier_dist *dist_of(const struct ts_tier_profile *p, enum ts_tier_op op)
{
	switch (op) {
	case TS_TIER_READ:
		return &p->lat_read;
	case TS_TIER_WRITE:
		return &p->lat_write;
	case TS_TIER_FSYNC:
	case TS_TIER_FDATASYNC:
		return &p->lat_sync;
	case TS_TIER_META:
	case TS_TIER_OP_NR:
		break;
	}
	return &p->lat_meta;
}

/* llround(@x) without the call: below 2^52 a double's fraction is exact
 * as x - trunc(x), and llround rounds half away from zero. */
static inline uint64_t round_ns(double x)
{
	if (!(x >= 0 && x < 0x1p52))
		return (uint64_t)llround(x);
	uint64_t i = (uint64_t)x;
	return i + (x - (double)i >= 0.5);
}

/* One request's latency from @r: the next draws of the device's stream,
 * or a keyed generator's. */
static inline double draw(struct device *d, const struct ts_tier_dist *dist, enum ts_tier_op op,
			  struct ts_rng *r)
{
	double lat;
	if (dist->kind == TS_TIER_DIST_LOGNORMAL && dist->p99_ns > dist->p50_ns) {
		__typeof__(d->sig[0]) *g = &d->sig[op < TS_TIER_OP_NR ? op : TS_TIER_META];
		if (g->p50 != dist->p50_ns || g->p99 != dist->p99_ns) {
			g->p50 = dist->p50_ns;
			g->p99 = dist->p99_ns;
			g->sigma = log(dist->p99_ns / dist->p50_ns) / TS_Z99;
		}
		/* ts_rng_lognormal_sigma's distribution, its normal from the
		 * ziggurat: no log, square root or cosine per request; exp
		 * from core/fmath.h's table where the rounding below gives
		 * libm's answer (not within TS_FM_GUARD of a half
		 * nanosecond), else libm's */
		double x = g->sigma * ts_rng_normal_zig(r, d->zig);
		double stall = stall_of(dist, r);
		lat = fabs(x) < 700 ? dist->p50_ns * ts_fm_exp(d->fm, x) + stall : 0;
		if (!(lat > 0 && lat < 0x1p52) || ts_fm_near_half(lat))
			lat = dist->p50_ns * exp(x) + stall;
	} else {
		lat = ts_tier_dist_sample(dist, r);
	}
	return lat;
}

/* The table at twice its size, its live slots rehashed; -ENOMEM leaves
 * it as it was. */
static int seen_grow(struct device *d)
{
	size_t cap = 2 * d->seen_cap, mask = cap - 1;
	if (cap > SIZE_MAX / sizeof(struct key_slot))
		return -ENOMEM;
	struct key_slot *t = calloc(cap, sizeof(*t)); /* generation 0: empty */
	if (!t)
		return -ENOMEM;
	for (size_t j = 0; j < d->seen_cap; j++) {
		const struct key_slot *e = &d->seen[j];
		if (e->gen != d->key_gen)
			continue;
		size_t i = (size_t)e->k & mask;
		while (t[i].gen)
			i = (i + 1) & mask;
		t[i] = *e;
	}
	if (d->seen != d->tab0)
		free(d->seen);
	d->seen = t;
	d->seen_cap = cap;
	return 0;
}

/* The key of a request's draws (keyed): the caller's key, the request's
 * op, file and offset, and how many times these came before under that
 * key (two flushes of one commit, a block read twice). */
static uint64_t sub_key(struct device *d, const struct ts_tier_req *req)
{
	uint64_t k = ts_rng_key(ts_rng_key(ts_rng_key(d->key, req->op), req->file), req->off);
	/* k is mixed (core/rng.h): its low bits serve as the slot */
	size_t mask = d->seen_cap - 1, i = (size_t)k & mask;
	while (d->seen[i].gen == d->key_gen && d->seen[i].k != k)
		i = (i + 1) & mask;
	struct key_slot *e = &d->seen[i];
	if (e->gen == d->key_gen) {
		uint64_t again = e->count;
		e->count += e->count < UINT32_MAX;
		return ts_rng_key(k, again);
	}
	/* a new sub-key: at most half full, else grow (then probe again);
	 * out of memory, all but one slot (the comment above KEY_TAB) */
	if (2 * (d->nseen + 1) > d->seen_cap) {
		if (!seen_grow(d)) {
			mask = d->seen_cap - 1;
			i = (size_t)k & mask;
			while (d->seen[i].gen == d->key_gen)
				i = (i + 1) & mask;
			e = &d->seen[i];
		} else if (d->nseen + 2 > d->seen_cap) {
			return ts_rng_key(k, 0); /* not remembered */
		}
	}
	d->nseen++;
	*e = (struct key_slot){.k = k, .gen = d->key_gen, .count = 1};
	return ts_rng_key(k, 0);
}

static uint64_t device_submit(struct ts_tier_layer *l, uint64_t now,
			      const struct ts_tier_req *req, struct ts_tier_done *done)
{
	struct device *d = (struct device *)l;
	if (d->qd) {
		while (d->inflight.n && d->inflight.v[0] <= now)
			keys_pop(&d->inflight);
		done->qd = (uint32_t)d->inflight.n;
		atomic_store_explicit(&d->qd_pub, done->qd, memory_order_relaxed);
	}

	const struct ts_tier_dist *dist = dist_of(d->p, req->op);
	double lat;
	if (d->keyed) {
		struct ts_rng r;
		ts_rng_keyed(&r, d->seed, sub_key(d, req));
		lat = draw(d, dist, req->op, &r);
	} else {
		lat = draw(d, dist, req->op, &d->rng);
	}
	uint64_t start = now;
	if (ts_evq_len(&d->slots) && ts_evq_top(&d->slots)->key > start) {
		start = ts_evq_top(&d->slots)->key;
		done->bound = TS_TIER_BOUND_SLOTS;
	}
	uint64_t end = start + round_ns(lat);
	if (ts_evq_len(&d->slots)) {
		(void)ts_evq_pop(&d->slots);
		(void)!ts_evq_push(&d->slots, end, 0, NULL); /* reserved: cannot fail */
	}
	/* On ENOMEM the queue depth is under-reported; the timing stays right. */
	if (d->qd) {
		int lost = keys_push(&d->inflight, end);
		(void)lost;
	}
	return end;
}

static void device_reconfigure(struct ts_tier_layer *l, const struct ts_tier_profile *p,
			       const struct ts_tier_limits *lim)
{
	struct device *d = (struct device *)l;
	d->p = p;
	/* Slots change count: requests in flight keep their times. Fewer
	 * slots keep the ones that free first; new ones are free at once. */
	size_t n = lim->parallel;
	struct ts_evq nh = { 0 };
	if (n && ts_evq_reserve(&nh, 2 * n + 16))
		return; /* keep the old slot count */
	for (size_t i = 0; i < n; i++) {
		uint64_t free_at = ts_evq_len(&d->slots) ? ts_evq_pop(&d->slots).key : 0;
		if (ts_evq_push(&nh, free_at, 0, NULL)) /* reserved: cannot fail */
			break;
	}
	ts_evq_free(&d->slots);
	d->slots = nh;
}

static void device_stats(struct ts_tier_layer *l, struct ts_tier_stats *out)
{
	struct device *d = (struct device *)l;
	out->queue_depth = atomic_load_explicit(&d->qd_pub, memory_order_relaxed);
}

static void device_free(struct ts_tier_layer *l)
{
	struct device *d = (struct device *)l;
	ts_evq_free(&d->slots);
	free(d->inflight.v);
	if (d->seen != d->tab0)
		free(d->seen);
	free(d);
}

void ts_tier_device_keyed(struct ts_tier_layer *l, bool on)
{
	((struct device *)l)->keyed = on;
}

void ts_tier_device_key(struct ts_tier_layer *l, uint64_t key)
{
	struct device *d = (struct device *)l;
	if (key != d->key) {
		d->nseen = 0;
		if (++d->key_gen == 0) { /* wrapped: every slot's stamp is old */
			memset(d->seen, 0, d->seen_cap * sizeof(*d->seen));
			d->key_gen = 1;
		}
	}
	d->key = key;
}

/* Not an op: no other layer has a generator. */
void ts_tier_device_rng(const struct ts_tier_layer *l, struct ts_rng *out)
{
	*out = ((const struct device *)l)->rng;
}

static const struct ts_tier_layer_ops device_ops = {
	.name = "device",
	.submit = device_submit,
	.reconfigure = device_reconfigure,
	.stats = device_stats,
	.free = device_free,
};

struct ts_tier_layer *ts_tier_device_new(const struct ts_tier_profile *p,
					 const struct ts_tier_limits *lim, uint64_t seed, bool qd)
{
	struct device *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->l.ops = &device_ops;
	d->p = p;
	d->qd = qd;
	ts_rng_seed(&d->rng, seed);
	d->seed = seed;
	d->seen = d->tab0;
	d->seen_cap = KEY_TAB;
	d->key_gen = 1; /* calloc's slots, generation 0, are empty */
	d->zig = ts_rng_zig();
	d->fm = ts_fm();
	/* room for the slots twice over: a pop and push never allocates */
	if (ts_evq_reserve(&d->slots, 2 * (size_t)lim->parallel + 16)) {
		free(d);
		return NULL;
	}
	for (unsigned i = 0; i < lim->parallel; i++)
		if (ts_evq_push(&d->slots, 0, 0, NULL)) /* reserved: cannot fail */
			break;
	return &d->l;
}
