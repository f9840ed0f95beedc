/*
 * tier_layer.h — the layers the tier model is stacked from (private to tier/).
 *
 * A model is a stack of decorators, each holding `next`:
 *
 *     fault  ->  cache  ->  [ebs]  ->  rate  ->  device
 *
 * fault fails chosen requests; cache is the page-cache model in front of
 * the disk; ebs (when the model is given an instance's EBS limits) holds
 * the instance's IOPS and throughput caps; rate holds the volume's IOPS and
 * bandwidth caps, the I/O accounting unit and the burst buckets; device serves `parallel` requests at once with the
 * base latency of each op. Each layer is usable (and tested) alone: a layer
 * whose next is NULL completes what it admits at the time it admits it.
 *
 * Layers are not thread-safe; struct ts_tier serializes calls into the top
 * of the stack under one mutex.
 */
#ifndef TS_TIER_LAYER_H
#define TS_TIER_LAYER_H

#include "core/rng.h"
#include "tier/tier_base.h"

struct ts_tier_layer;

struct ts_tier_layer_ops {
	const char *name;
	/* Required. Takes a request arriving at @now; returns its completion
	 * time (>= now) and adds what it knows to @done (never NULL here). */
	uint64_t (*submit)(struct ts_tier_layer *l, uint64_t now, const struct ts_tier_req *req,
			   struct ts_tier_done *done);
	/* Optional. The request submit last took completes at @end, the
	 * stack's answer (which layers above may have made later than this
	 * one's). */
	void (*complete)(struct ts_tier_layer *l, uint64_t end);
	/* Optional. Puts a file range in the state a page cache is left in
	 * (see ts_tier_warm), at no device time. */
	void (*warm)(struct ts_tier_layer *l, uint64_t now, uint64_t file, uint64_t off,
		     uint64_t len, bool dirty);
	/* Optional. Drops state of a file range (len 0 = to the end). */
	void (*forget)(struct ts_tier_layer *l, uint64_t file, uint64_t off, uint64_t len);
	/* Optional. A request on @file at @off comes soon: start loading what
	 * it will look up (ts_tier_prefetch). Changes nothing. */
	void (*prefetch)(struct ts_tier_layer *l, uint64_t file, uint64_t off);
	/* Optional. New limits (runtime tier switch); state that still makes
	 * sense (bucket level as a fraction, cache contents) is kept. */
	void (*reconfigure)(struct ts_tier_layer *l, const struct ts_tier_profile *p,
			    const struct ts_tier_limits *lim);
	/* Optional. Sets the burst bucket to @fraction of its size at @now
	 * (see ts_tier_bucket_set). */
	void (*bucket_set)(struct ts_tier_layer *l, uint64_t now, double fraction);
	/* Optional. Fills the layer's part of @out. Called without the model's
	 * lock: read only published atomics. */
	void (*stats)(struct ts_tier_layer *l, struct ts_tier_stats *out);
	/* Required. Frees the layer (not its next). */
	void (*free)(struct ts_tier_layer *l);
};

struct ts_tier_layer {
	const struct ts_tier_layer_ops *ops;
	struct ts_tier_layer *next;
};

static inline uint64_t ts_tier_layer_next(struct ts_tier_layer *l, uint64_t now,
					  const struct ts_tier_req *req, struct ts_tier_done *done)
{
	return l->next ? l->next->ops->submit(l->next, now, req, done) : now;
}

/* device: base latency per op and `parallel` slots; @qd: it counts the
 * requests in flight (done->qd, the stats' queue_depth). */
struct ts_tier_layer *ts_tier_device_new(const struct ts_tier_profile *p,
					 const struct ts_tier_limits *lim, uint64_t seed, bool qd);
/* A device layer's generator, copied into @out: its next requests'
 * latencies are its next draws, one request after another in the order
 * they reach it. */
void ts_tier_device_rng(const struct ts_tier_layer *l, struct ts_rng *out);
/* Keyed draws on (@on) or off (the stream above, the default): see
 * ts_tier_draw_keyed (tier.h). */
void ts_tier_device_keyed(struct ts_tier_layer *l, bool on);
/* The key of the requests that reach the device from here on. */
void ts_tier_device_key(struct ts_tier_layer *l, uint64_t key);
/* rate: caps, accounting unit, burst bucket. */
struct ts_tier_layer *ts_tier_rate_new(const struct ts_tier_profile *p,
				       const struct ts_tier_limits *lim);
/* A rate layer's backlog (rate.c), ns; -INFINITY: none. */
double ts_tier_rate_backlog(const struct ts_tier_layer *l);

/* ebs: one of an instance's EBS limits (@bytes: its throughput, else its
 * IOPS, I/Os counted as @p's volume counts them at @lim), with its burst
 * bucket: a rate layer that adds nothing to the request's counters and
 * keeps its limits through a tier switch. Made for a limit that is set
 * (its baseline above 0); NULL when out of memory. */
struct ts_tier_layer *ts_tier_ebs_new(const struct ts_tier_ebs *e, bool bytes,
				      const struct ts_tier_profile *p,
				      const struct ts_tier_limits *lim);

/* ebs, shared: one volume's layers onto @in's IOPS and throughput limits
 * (*@io, *@bw; NULL where @in sets none), each volume a new one. 0 or
 * -ENOMEM. */
TS_WUR int ts_tier_instance_layers(struct ts_tier_instance *in, struct ts_tier_layer **io,
				   struct ts_tier_layer **bw);

/* cache: the page-cache model. */
struct ts_tier_cache_cfg {
	uint64_t mem, dirty_limit, ra_max, mem_bps;
	uint64_t io_max; /* the device's largest request (max_sectors_kb); 0 = Linux's 1280 KiB */
	unsigned ra_kernel; /* struct ts_tier_cfg's: the Linux whose readahead is modeled */
	ts_tier_evict_fn evict;
	void *evict_ctx;
	ts_tier_brk_fn brk;
	void *brk_ctx;
};
struct ts_tier_layer *ts_tier_cache_new(const struct ts_tier_cache_cfg *cfg);

/* fault: error injection. */
struct ts_tier_layer *ts_tier_fault_new(uint64_t seed);
int ts_tier_fault_layer_add(struct ts_tier_layer *fault, const struct ts_tier_fault *f);
void ts_tier_fault_layer_clear(struct ts_tier_layer *fault);
/* The error the rules give @req (0: none), charging nothing. */
int ts_tier_fault_layer_check(struct ts_tier_layer *fault, const struct ts_tier_req *req);
unsigned ts_tier_fault_layer_list(struct ts_tier_layer *fault, struct ts_tier_fault *out,
				  unsigned max);

/* Samples @d. */
double ts_tier_dist_sample(const struct ts_tier_dist *d, struct ts_rng *r);

#endif
