/*
 * device.c — the bottom layer of the tier model: the device itself, which
 * serves `parallel` requests at once, each taking the base latency of its
 * op drawn from the profile's distribution.
 *
 * Slots are a min-heap (core/heap.h) of the times each slot becomes
 * free: a request starts when it arrives or when the earliest slot frees,
 * whichever is later, so with more requests in flight than slots, queueing
 * emerges by itself. A second min-heap holds the completion times of requests in
 * flight, which gives the queue depth a request sees in either clock
 * without being told when requests end.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/heap.h"
#include "tier/tier_layer.h"

struct device {
	struct ts_tier_layer l;
	const struct ts_tier_profile *p;
	struct ts_heap slots;	 /* free time of each of the `parallel` slots */
	struct ts_heap inflight; /* completion times of requests in flight */
	struct ts_rng rng;
	_Atomic uint32_t qd_pub; /* queue depth at the last request, for stats */
	/* Each op's lognormal sigma, kept while its p50 and p99 stay: the
	 * same figure ts_rng_lognormal computes, one log per request less. */
	struct {
		double p50, p99, sigma;
	} sig[TS_TIER_OP_NR];
};

double ts_tier_dist_sample(const struct ts_tier_dist *d, struct ts_rng *r)
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

static uint64_t device_submit(struct ts_tier_layer *l, uint64_t now,
			      const struct ts_tier_req *req, struct ts_tier_done *done)
{
	struct device *d = (struct device *)l;
	while (d->inflight.n && ts_heap_top(&d->inflight)->key <= now)
		ts_heap_pop(&d->inflight);
	done->qd = (uint32_t)d->inflight.n;
	atomic_store_explicit(&d->qd_pub, done->qd, memory_order_relaxed);

	const struct ts_tier_dist *dist = dist_of(d->p, req->op);
	double lat;
	if (dist->kind == TS_TIER_DIST_LOGNORMAL && dist->p99_ns > dist->p50_ns) {
		__typeof__(d->sig[0]) *g = &d->sig[req->op < TS_TIER_OP_NR ? req->op : TS_TIER_META];
		if (g->p50 != dist->p50_ns || g->p99 != dist->p99_ns) {
			g->p50 = dist->p50_ns;
			g->p99 = dist->p99_ns;
			g->sigma = log(dist->p99_ns / dist->p50_ns) / TS_Z99;
		}
		lat = ts_rng_lognormal_sigma(&d->rng, dist->p50_ns, g->sigma);
	} else {
		lat = ts_tier_dist_sample(dist, &d->rng);
	}
	uint64_t start = now;
	if (d->slots.n && ts_heap_top(&d->slots)->key > start) {
		start = ts_heap_top(&d->slots)->key;
		done->bound = TS_TIER_BOUND_SLOTS;
	}
	uint64_t end = start + (uint64_t)llround(lat);
	if (d->slots.n)
		ts_heap_replace_top(&d->slots, end, 0);
	/* On ENOMEM the queue depth is under-reported; the timing stays right. */
	int lost = ts_heap_push(&d->inflight, end, 0, NULL);
	(void)lost;
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
	struct ts_heap nh = { 0 };
	if (n && ts_heap_reserve(&nh, n))
		return; /* keep the old slot count */
	for (size_t i = 0; i < n; i++) {
		uint64_t free_at = d->slots.n ? ts_heap_pop(&d->slots).key : 0;
		if (ts_heap_push(&nh, free_at, 0, NULL)) /* reserved: cannot fail */
			break;
	}
	ts_heap_free(&d->slots);
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
	ts_heap_free(&d->slots);
	ts_heap_free(&d->inflight);
	free(d);
}

static const struct ts_tier_layer_ops device_ops = {
	.name = "device",
	.submit = device_submit,
	.reconfigure = device_reconfigure,
	.stats = device_stats,
	.free = device_free,
};

struct ts_tier_layer *ts_tier_device_new(const struct ts_tier_profile *p,
					 const struct ts_tier_limits *lim, uint64_t seed)
{
	struct device *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->l.ops = &device_ops;
	d->p = p;
	ts_rng_seed(&d->rng, seed);
	if (ts_heap_reserve(&d->slots, lim->parallel)) {
		free(d);
		return NULL;
	}
	for (unsigned i = 0; i < lim->parallel; i++)
		if (ts_heap_push(&d->slots, 0, 0, NULL)) /* reserved: cannot fail */
			break;
	return &d->l;
}
