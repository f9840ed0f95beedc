/*
 * tier.c — the tier model object: builds the layer stack of a profile
 * (fault -> cache -> [the instance's EBS limits] -> rate -> device, see
 * tier_layer.h), serializes
 * requests into it, and keeps the lock-free statistics (as JSON:
 * tier_json.c).
 *
 * One mutex guards the stack: the emulated device is one queue, and the
 * work under the lock is a few heap and hash operations per request. The
 * statistics are relaxed atomics recorded after the lock is dropped, so
 * reading them never blocks a request.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/opt.h"
#include "tier/stats_keys.h"
#include "tier/tier.h"
#include "tier/tier_layer.h"

struct op_stats {
	_Atomic uint64_t count, bytes, hit_bytes, dev_bytes, dev_ios, errors, nowait_bytes;
	struct ts_hist lat; /* ns from arrival to completion, as returned */
};

#define MAX_LAYERS 6 /* fault, cache, two EBS limits, rate, device */

struct ts_tier {
	pthread_mutex_t mu;
	bool serial; /* cfg's: no locking */
	bool no_lat; /* cfg's: no latency histograms */
	/* Changed by ts_tier_switch under mu; read without it by the stats
	 * (which recompute the limits from the pair). */
	_Atomic(const struct ts_tier_profile *) p;
	_Atomic uint64_t capacity;
	uint64_t floor_ns, mem;
	struct ts_tier_layer *top, *fault, *cache, *ebs_io, *ebs_bw, *rate, *dev;
	/* The layer a request enters: the fault layer while it has rules,
	 * else the one below it (with none it passes every request on). */
	struct ts_tier_layer *entry;
	/* The stack's layers that hear of each answer (ops->complete) and
	 * those that prefetch, top first: the stack is linked once, and a
	 * walk of all of it per request cost more than the calls. */
	struct ts_tier_layer *completes[MAX_LAYERS], *prefetches[MAX_LAYERS];
	unsigned ncomplete, nprefetch;
	struct op_stats st[TS_TIER_OP_NR];
	_Atomic uint64_t bound[TS_TIER_BOUND_NR];
};

const struct ts_opt ts_tier_cfg_opts[] = {
	{ "capacity", TS_OPT_SIZE, offsetof(struct ts_tier_cfg, capacity), NULL, 0, 0, "bytes",
	  "emulated disk size: 0 (the default) is the tier's default size; one outside the "
	  "tier's range of disk sizes is refused (--list-tiers --capacity shows each tier at "
	  "the nearest size it offers); sets the capacity formulas' C" },
	{ "mem", TS_OPT_SIZE, offsetof(struct ts_tier_cfg, mem), NULL, 0, 0, "bytes",
	  "page-cache size of the emulated server: 0 (no page cache, the default) or at least "
	  "128 KiB" },
	{ "seed", TS_OPT_U64, offsetof(struct ts_tier_cfg, seed), "1", 0, 0, "",
	  "seed of the latency samples, 0 to 2^64-1" },
	{ "floor", TS_OPT_DURATION, offsetof(struct ts_tier_cfg, floor_ns), NULL, 0, 0, "ns",
	  "per-request overhead the caller already pays, taken off injected latency: a duration "
	  ">= 0 (measured at mount unless calib=false)" },
	{ "dirty_limit", TS_OPT_SIZE, offsetof(struct ts_tier_cfg, dirty_limit), NULL, 0, 0,
	  "bytes", "dirty page-cache bytes before writes throttle: 0 (20% of mem) or a size, "
	  "capped at mem" },
	{ "ra_max", TS_OPT_SIZE, offsetof(struct ts_tier_cfg, ra_max), NULL, 0, 0, "bytes",
	  "largest readahead window: 0 (128 KiB, as Linux) or a size (one under 4 KiB counts "
	  "as 4 KiB)" },
	{ "mem_rate", TS_OPT_RATE, offsetof(struct ts_tier_cfg, mem_bps), NULL, 0, 0, "bytes/s",
	  "page-cache copy rate: 0 (the built-in measured figure) or a rate" },
	{ NULL },
};

/* The stack's lock; none for a model one thread drives (cfg->serial): a
 * virtual run takes it two or more times per sample, and its uncontended
 * lock and unlock were a few percent of the run's CPU. */
static void lock(struct ts_tier *t)
{
	if (!t->serial)
		pthread_mutex_lock(&t->mu);
}

static void unlock(struct ts_tier *t)
{
	if (!t->serial)
		pthread_mutex_unlock(&t->mu);
}

static void free_stack(struct ts_tier *t)
{
	struct ts_tier_layer *l = t->top;
	while (l) {
		struct ts_tier_layer *next = l->next;
		l->ops->free(l);
		l = next;
	}
	t->top = NULL;
}

int ts_tier_new(const struct ts_tier_cfg *cfg, struct ts_tier **out, char *err, size_t errlen)
{
	if (!cfg->profile) {
		snprintf(err, errlen, "tier model: no profile given");
		return -EINVAL;
	}
	if (cfg->mem && cfg->mem < TS_TIER_MIN_MEM) {
		snprintf(err, errlen, "mem=%llu bytes is too small for the page-cache model: give 0 "
			 "(no page cache) or at least %llu KiB",
			 (unsigned long long)cfg->mem, (unsigned long long)(TS_TIER_MIN_MEM / TS_KiB));
		return -EINVAL;
	}
	const struct ts_tier_ebs *e = &cfg->ebs;
	if (!(e->iops >= 0 && e->bps >= 0 && e->max_iops >= 0 && e->max_bps >= 0 &&
	      e->burst_s >= 0)) {
		snprintf(err, errlen, "tier model: the instance's EBS limits must be rates >= 0 and "
				      "a burst of >= 0 s");
		return -EINVAL;
	}
	if (cfg->instance && ts_tier_ebs_any(e)) {
		snprintf(err, errlen, "tier model: give the instance's EBS limits or an instance "
				      "shared with other volumes, not both");
		return -EINVAL;
	}
	struct ts_tier *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	struct ts_tier_limits lim;
	int rc = ts_tier_effective(cfg->profile, cfg->capacity, &lim, err, errlen);
	if (rc) {
		free(t);
		return rc;
	}
	t->p = cfg->profile;
	t->capacity = lim.capacity;
	t->floor_ns = cfg->floor_ns;
	t->serial = cfg->serial;
	t->mem = cfg->mem;
	t->no_lat = cfg->no_lat;
	for (int i = 0; i < TS_TIER_OP_NR; i++)
		ts_hist_init(&t->st[i].lat);

	t->dev = ts_tier_device_new(cfg->profile, &lim, cfg->seed, !cfg->no_qd);
	t->rate = ts_tier_rate_new(cfg->profile, &lim);
	bool ebs_ok = true;
	if (cfg->instance) {
		ebs_ok = !ts_tier_instance_layers(cfg->instance, &t->ebs_io, &t->ebs_bw);
	} else {
		if (e->iops > 0)
			ebs_ok = (t->ebs_io = ts_tier_ebs_new(e, false, cfg->profile, &lim)) != NULL;
		if (e->bps > 0)
			ebs_ok = (t->ebs_bw = ts_tier_ebs_new(e, true, cfg->profile, &lim)) && ebs_ok;
	}
	t->fault = ts_tier_fault_new(cfg->seed);
	if (cfg->mem) {
		struct ts_tier_cache_cfg cc = { .mem = cfg->mem,
						.dirty_limit = cfg->dirty_limit,
						.ra_max = cfg->ra_max,
						.io_max = (uint64_t)cfg->profile->queue.max_sectors_kb * 1024,
						.mem_bps = cfg->mem_bps,
						.ra_kernel = cfg->ra_kernel,
						.evict = cfg->evict,
						.evict_ctx = cfg->evict_ctx,
						.brk = cfg->brk,
						.brk_ctx = cfg->brk_ctx };
		t->cache = ts_tier_cache_new(&cc);
	}
	/* Link what was made, top first, so that free_stack frees it all. */
	struct ts_tier_layer *order[] = { t->fault, t->cache, t->ebs_io, t->ebs_bw, t->rate, t->dev };
	_Static_assert(TS_ARRAY_SIZE(order) <= MAX_LAYERS, "completes[] holds every layer");
	bool ok = t->dev && t->rate && t->fault && (!cfg->mem || t->cache) && ebs_ok;
	struct ts_tier_layer *below = NULL;
	for (size_t i = TS_ARRAY_SIZE(order); i-- > 0;) {
		if (!order[i])
			continue;
		order[i]->next = below;
		below = order[i];
	}
	t->top = below;
	t->entry = t->fault ? t->fault->next : NULL;
	for (struct ts_tier_layer *l = t->top; l; l = l->next) {
		if (l->ops->complete)
			t->completes[t->ncomplete++] = l;
		if (l->ops->prefetch)
			t->prefetches[t->nprefetch++] = l;
	}
	if (!ok || pthread_mutex_init(&t->mu, NULL)) {
		free_stack(t);
		free(t);
		snprintf(err, errlen, "tier model: out of memory");
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

void ts_tier_free(struct ts_tier *t)
{
	if (!t)
		return;
	free_stack(t);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

uint64_t ts_tier_submit(struct ts_tier *t, uint64_t now_ns, const struct ts_tier_req *req,
			struct ts_tier_done *done)
{
	struct ts_tier_done local;
	if (!done)
		done = &local;
	memset(done, 0, sizeof(*done));
	done->bound = TS_TIER_BOUND_LATENCY;
	enum ts_tier_op op = req->op < TS_TIER_OP_NR ? req->op : TS_TIER_META;

	/* A read past the end of a file of known size moves only the bytes
	 * the file has: the file system answers the rest from the inode,
	 * without the disk (the same in tierfs and in a replay of its trace,
	 * which carries the size). */
	struct ts_tier_req clipped = *req;
	clipped.arrival = now_ns;
	if (op == TS_TIER_READ && req->size && req->off + req->len > req->size)
		clipped.len = req->off < req->size ? req->size - req->off : 0;
	req = &clipped;
	uint64_t end = now_ns;
	lock(t);
	if (op != TS_TIER_READ || req->len || !req->size) {
		end = t->entry->ops->submit(t->entry, now_ns, req, done);
		for (unsigned k = 0; k < t->ncomplete; k++)
			t->completes[k]->ops->complete(t->completes[k], end);
	} else
		done->bound = TS_TIER_BOUND_MEMORY;

	/* The caller pays floor_ns on top of what the model injects. */
	if (end < now_ns)
		end = now_ns;
	done->end_ns = end;
	end = end - now_ns > t->floor_ns ? end - t->floor_ns : now_ns;

	/* The counters' writers hold mu: plain adds, each store atomic for the
	 * readers of ts_tier_stats (a locked add per counter cost a virtual
	 * run a sixth of its time). */
#define BUMP(x, d) atomic_store_explicit(&(x), atomic_load_explicit(&(x), memory_order_relaxed) + \
					 (d), memory_order_relaxed)
	struct op_stats *s = &t->st[op];
	BUMP(s->count, 1);
	if (op == TS_TIER_READ || op == TS_TIER_WRITE)
		BUMP(s->bytes, req->len);
	BUMP(s->hit_bytes, done->hit_bytes);
	if (op == TS_TIER_READ && done->bound == TS_TIER_BOUND_MEMORY)
		BUMP(s->nowait_bytes, req->len);
	BUMP(s->dev_bytes, done->dev_bytes);
	BUMP(s->dev_ios, done->dev_ios);
	if (done->err)
		BUMP(s->errors, 1);
	BUMP(t->bound[done->bound], 1);
#undef BUMP
	if (!t->no_lat)
		ts_hist_add_serial(&s->lat, end - now_ns);
	unlock(t);
	return end;
}

void ts_tier_forget(struct ts_tier *t, uint64_t file, uint64_t off, uint64_t len)
{
	lock(t);
	for (struct ts_tier_layer *l = t->top; l; l = l->next)
		if (l->ops->forget)
			l->ops->forget(l, file, off, len);
	unlock(t);
}

void ts_tier_prefetch(struct ts_tier *t, uint64_t file, uint64_t off)
{
	lock(t);
	for (unsigned k = 0; k < t->nprefetch; k++)
		t->prefetches[k]->ops->prefetch(t->prefetches[k], file, off);
	unlock(t);
}

void ts_tier_warm(struct ts_tier *t, uint64_t now, uint64_t file, uint64_t off, uint64_t len,
		  bool dirty)
{
	lock(t);
	for (struct ts_tier_layer *l = t->top; l; l = l->next)
		if (l->ops->warm)
			l->ops->warm(l, now, file, off, len, dirty);
	unlock(t);
}

void ts_tier_bucket_set(struct ts_tier *t, uint64_t now, double fraction)
{
	lock(t);
	for (struct ts_tier_layer *l = t->top; l; l = l->next)
		if (l->ops->bucket_set)
			l->ops->bucket_set(l, now, fraction);
	unlock(t);
}

int ts_tier_switch(struct ts_tier *t, const struct ts_tier_profile *p, uint64_t capacity,
		   char *err, size_t errlen)
{
	struct ts_tier_limits lim;
	int rc = ts_tier_effective(p, capacity, &lim, err, errlen);
	if (rc)
		return rc;
	lock(t);
	atomic_store(&t->p, p);
	atomic_store(&t->capacity, lim.capacity);
	for (struct ts_tier_layer *l = t->top; l; l = l->next)
		if (l->ops->reconfigure)
			l->ops->reconfigure(l, p, &lim);
	unlock(t);
	return 0;
}

double ts_tier_backlog_ns(struct ts_tier *t)
{
	lock(t);
	double x = ts_tier_rate_backlog(t->rate);
	unlock(t);
	return x;
}

void ts_tier_lat_rng(struct ts_tier *t, struct ts_rng *out)
{
	lock(t);
	ts_tier_device_rng(t->dev, out);
	unlock(t);
}

void ts_tier_draw_keyed(struct ts_tier *t, bool on)
{
	lock(t);
	ts_tier_device_keyed(t->dev, on);
	unlock(t);
}

void ts_tier_draw_key(struct ts_tier *t, uint64_t key)
{
	lock(t);
	ts_tier_device_key(t->dev, key);
	unlock(t);
}

const struct ts_tier_profile *ts_tier_profile(const struct ts_tier *t)
{
	return atomic_load(&t->p);
}

/* The profile and limits in force, without the model's lock: retried if a
 * switch lands between the two loads. */
static void current(const struct ts_tier *t, const struct ts_tier_profile **p,
		    struct ts_tier_limits *lim)
{
	char err[8];
	for (;;) {
		*p = atomic_load(&t->p);
		uint64_t cap = atomic_load(&t->capacity);
		if (ts_tier_effective(*p, cap, lim, err, sizeof(err)) == 0 && atomic_load(&t->p) == *p)
			return;
	}
}

void ts_tier_limits(const struct ts_tier *t, struct ts_tier_limits *out)
{
	const struct ts_tier_profile *p;
	current(t, &p, out);
}

int ts_tier_fault_add(struct ts_tier *t, const struct ts_tier_fault *f)
{
	lock(t);
	int rc = ts_tier_fault_layer_add(t->fault, f);
	if (!rc)
		t->entry = t->fault;
	unlock(t);
	return rc;
}

void ts_tier_fault_clear(struct ts_tier *t)
{
	lock(t);
	ts_tier_fault_layer_clear(t->fault);
	t->entry = t->fault->next;
	unlock(t);
}

int ts_tier_fault_check(struct ts_tier *t, const struct ts_tier_req *req)
{
	lock(t);
	int rc = ts_tier_fault_layer_check(t->fault, req);
	unlock(t);
	return rc;
}

unsigned ts_tier_fault_list(struct ts_tier *t, struct ts_tier_fault *out, unsigned max)
{
	lock(t);
	unsigned n = ts_tier_fault_layer_list(t->fault, out, max);
	unlock(t);
	return n;
}

/* ---- Stats -------------------------------------------------------------- */

static void op_stats_of(struct op_stats *s, struct ts_tier_op_stats *o)
{
	struct ts_hist h;
	ts_hist_snapshot(&s->lat, &h);
#define LD(x) atomic_load_explicit(&s->x, memory_order_relaxed)
	o->count = LD(count);
	o->bytes = LD(bytes);
	o->hit_bytes = LD(hit_bytes);
	o->dev_bytes = LD(dev_bytes);
	o->dev_ios = LD(dev_ios);
	o->errors = LD(errors);
	o->nowait_bytes = LD(nowait_bytes);
#undef LD
	o->lat_mean_ns = ts_hist_mean(&h);
	o->lat_p50_ns = ts_hist_percentile(&h, 50);
	o->lat_p99_ns = ts_hist_percentile(&h, 99);
	o->lat_p999_ns = ts_hist_percentile(&h, 99.9);
	o->lat_max_ns = h.max;
}

void ts_tier_stats(struct ts_tier *t, struct ts_tier_stats *out)
{
	memset(out, 0, sizeof(*out));
	current(t, &out->profile, &out->limits);
	out->floor_ns = t->floor_ns;
	out->mem = t->mem;
	for (int i = 0; i < TS_TIER_OP_NR; i++)
		op_stats_of(&t->st[i], &out->op[i]);
	for (int i = 0; i < TS_TIER_BOUND_NR; i++)
		out->bound[i] = atomic_load_explicit(&t->bound[i], memory_order_relaxed);
	for (struct ts_tier_layer *l = t->top; l; l = l->next)
		if (l->ops->stats)
			l->ops->stats(l, out);
}
