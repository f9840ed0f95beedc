/*
 * device.c — the bottom layer of the tier model: the device itself, which
 * serves `parallel` requests at once, each taking the base latency of its
 * op drawn from the profile's distribution.
 *
 * Slots are a min-heap of the times each slot becomes free: a request
 * starts when it arrives or when the earliest slot frees, whichever is
 * later, so with more requests in flight than slots, queueing emerges by
 * itself. A second min-heap holds the completion times of requests in
 * flight, which gives the queue depth a request sees in either clock
 * without being told when requests end.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tier_layer.h"

struct heap {
	uint64_t *v;
	size_t n, cap;
};

static void heap_down(struct heap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && h->v[l] < h->v[m])
			m = l;
		if (r < h->n && h->v[r] < h->v[m])
			m = r;
		if (m == i)
			return;
		uint64_t t = h->v[i];
		h->v[i] = h->v[m];
		h->v[m] = t;
		i = m;
	}
}

static int heap_push(struct heap *h, uint64_t x)
{
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 64;
		uint64_t *nv = realloc(h->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		h->v = nv;
		h->cap = nc;
	}
	size_t i = h->n++;
	h->v[i] = x;
	while (i && h->v[(i - 1) / 2] > h->v[i]) {
		uint64_t t = h->v[i];
		h->v[i] = h->v[(i - 1) / 2];
		h->v[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

static void heap_pop(struct heap *h)
{
	h->v[0] = h->v[--h->n];
	heap_down(h, 0);
}

struct device {
	struct ts_tier_layer l;
	const struct ts_tier_profile *p;
	struct heap slots;    /* free time of each of the `parallel` slots */
	struct heap inflight; /* completion times of requests in flight */
	struct ts_rng rng;
	_Atomic uint32_t qd_pub; /* queue depth at the last request, for stats */
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
	while (d->inflight.n && d->inflight.v[0] <= now)
		heap_pop(&d->inflight);
	done->qd = (uint32_t)d->inflight.n;
	atomic_store_explicit(&d->qd_pub, done->qd, memory_order_relaxed);

	double lat = ts_tier_dist_sample(dist_of(d->p, req->op), &d->rng);
	uint64_t start = now;
	if (d->slots.n && d->slots.v[0] > start) {
		start = d->slots.v[0];
		done->bound = TS_TIER_BOUND_SLOTS;
	}
	uint64_t end = start + (uint64_t)llround(lat);
	if (d->slots.n) {
		d->slots.v[0] = end;
		heap_down(&d->slots, 0);
	}
	/* On ENOMEM the queue depth is under-reported; the timing stays right. */
	(void)heap_push(&d->inflight, end);
	return end;
}

static void device_reconfigure(struct ts_tier_layer *l, const struct ts_tier_profile *p,
			       const struct ts_tier_limits *lim)
{
	struct device *d = (struct device *)l;
	d->p = p;
	/* Slots change count: requests in flight keep their times. */
	size_t n = lim->parallel;
	if (n > d->slots.cap) {
		uint64_t *nv = realloc(d->slots.v, n * sizeof(*nv));
		if (!nv)
			return; /* keep the old slot count */
		d->slots.v = nv;
		d->slots.cap = n;
	}
	for (size_t i = d->slots.n; i < n; i++)
		d->slots.v[i] = 0;
	d->slots.n = n;
	for (size_t i = n / 2 + 1; i-- > 0;)
		heap_down(&d->slots, i);
}

static void device_stats(struct ts_tier_layer *l, struct ts_tier_stats *out)
{
	struct device *d = (struct device *)l;
	out->queue_depth = atomic_load_explicit(&d->qd_pub, memory_order_relaxed);
}

static void device_free(struct ts_tier_layer *l)
{
	struct device *d = (struct device *)l;
	free(d->slots.v);
	free(d->inflight.v);
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
	if (lim->parallel) {
		d->slots.v = calloc(lim->parallel, sizeof(uint64_t));
		if (!d->slots.v) {
			free(d);
			return NULL;
		}
		d->slots.n = d->slots.cap = lim->parallel;
	}
	return &d->l;
}
