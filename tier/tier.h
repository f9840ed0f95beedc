/*
 * tier.h — the tier model: a clock-agnostic model of a cloud or local disk
 * with a page cache in front of it, and the tier profiles that parameterize
 * it.
 *
 * The model never reads a clock. A caller hands it the time a request
 * arrives (any monotonic nanosecond clock: CLOCK_MONOTONIC in tierfs, a
 * virtual clock in replay and prediction) and gets back the time the
 * emulated device completes it in the same clock. tierfs sleeps until then;
 * a virtual clock simply advances. The same code serves both, so emulation
 * and prediction cannot drift apart.
 *
 * Profiles are data: Lua files (tier/tiers.lua ships the built-in tiers)
 * where each tier is declared with a constructor call
 *
 *     tier "ssd-cloud" { iops = { b = 30, cap = 20000 }, ... }
 *
 * and every number carries its public source in a comment. The field list
 * is documented at the top of tier/tiers.lua.
 *
 * Errors: 0 or a count on success, -errno or TS_E_* on failure; functions
 * taking err/errlen also write one line for the user there.
 *
 * This header declares the model's functions (tier.c); the types, the
 * profiles' functions and the fault rules in text are in tier_base.h,
 * which it includes.
 */
#ifndef TS_TIER_H
#define TS_TIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"
#include "tier/tier_base.h"

/* ---- The model (tier.c) ------------------------------------------------- */

struct ts_tier;

TS_WUR int ts_tier_new(const struct ts_tier_cfg *cfg, struct ts_tier **out, char *err,
		       size_t errlen);
void ts_tier_free(struct ts_tier *t);

/*
 * Submits one request arriving at @now_ns; returns its completion time in
 * the same clock (>= now_ns) and fills @done (may be NULL). Thread-safe.
 * The caller should keep now_ns roughly non-decreasing across calls (the
 * model tolerates small reorderings between threads).
 */
uint64_t ts_tier_submit(struct ts_tier *t, uint64_t now_ns, const struct ts_tier_req *req,
			struct ts_tier_done *done);
/* Drops cached pages of a range (truncate, unlink, hole punch); len 0 =
 * to the end of the file. Dirty data in the range is discarded. */
void ts_tier_forget(struct ts_tier *t, uint64_t file, uint64_t off, uint64_t len);
/* A request on @file at @off will come soon: the model starts loading
 * what it will look up for it (__builtin_prefetch). Changes nothing. */
void ts_tier_prefetch(struct ts_tier *t, uint64_t file, uint64_t off);
/*
 * Page-cache state as an input (mount{cache=...}): the range is made
 * resident as a previous pass leaves it (@dirty false: "warm") or as a
 * copy that just wrote it leaves it (@dirty true: "written": resident and
 * dirty, the oldest dirty pages beyond the dirty limit already written
 * back and clean), at no device time; with more than mem warmed, the
 * least recently warmed ranges are evicted, as LRU does. Call it in the
 * order the previous pass touched the data, before the run's first
 * request. Nothing happens without a page-cache model (mem=0).
 */
void ts_tier_warm(struct ts_tier *t, uint64_t now, uint64_t file, uint64_t off, uint64_t len,
		  bool dirty);
/*
 * Burst credits as an input: the bucket holds @fraction (clamped to [0, 1])
 * of its size at @now, as a previous run left it (0: a volume that ran at
 * its baseline to the end, a drained bucket), and fills at the baseline
 * from there. A fresh model starts full, as AWS volumes do. Call it before
 * the first request at or after @now; nothing happens without a bucket.
 */
void ts_tier_bucket_set(struct ts_tier *t, uint64_t now, double fraction);
/* Switches the device to another profile / capacity at runtime; the page
 * cache and the stats stay. Returns 0 or -ERANGE (bad capacity). */
TS_WUR int ts_tier_switch(struct ts_tier *t, const struct ts_tier_profile *p, uint64_t capacity,
			  char *err, size_t errlen);
const struct ts_tier_profile *ts_tier_profile(const struct ts_tier *t);
/* The volume's rate limits' backlog, ns (rate.c's ts_tier_rate_backlog;
 * -INFINITY: none): a read arriving at a is admitted by the latest of a
 * and it, plus its credits' wait (dlio_run.c's early pass bounds reads
 * with it). The instance's EBS layers are not in it. */
double ts_tier_backlog_ns(struct ts_tier *t);
/* The device's latency generator now, copied into @out (device.c): the
 * requests that reach the device from here on draw from it in that order
 * (dlio_run.c's early pass draws them ahead). */
struct ts_rng;
void ts_tier_lat_rng(struct ts_tier *t, struct ts_rng *out);
/*
 * Keyed draws (off by default): with @on, a request's latency (and stall)
 * is drawn from a number that is a function of the model's seed, the key
 * last given to ts_tier_draw_key and the device request itself (its op,
 * file and offset, and how many such came before under that key), not of
 * the order the device serves requests in: the same request gets the same
 * latency whatever requests are added or removed before it, and a model
 * never draws the stream's latencies (so a replay with a recording's seed
 * does not redraw the recording's own). The distributions are the same.
 * ts_tier_lat_rng says nothing of keyed draws.
 */
void ts_tier_draw_keyed(struct ts_tier *t, bool on);
/* The key of the requests submitted from here on (a replayed record's
 * identity), until the next call. */
void ts_tier_draw_key(struct ts_tier *t, uint64_t key);
void ts_tier_limits(const struct ts_tier *t, struct ts_tier_limits *out);
/* A snapshot of the model's counters (struct ts_tier_stats). */
void ts_tier_stats(struct ts_tier *t, struct ts_tier_stats *out);

/* Fault rules in force (the rule itself: tier_base.h). */
TS_WUR int ts_tier_fault_add(struct ts_tier *t, const struct ts_tier_fault *f);
void ts_tier_fault_clear(struct ts_tier *t);
/* The -errno the fault rules give @req, or 0, without charging it: an op
 * whose device reads are charged otherwise (tier/fsmeta.h) still fails as
 * the rules say. */
int ts_tier_fault_check(struct ts_tier *t, const struct ts_tier_req *req);
/* Copies the rules in force to @out (at most @max); returns how many. */
unsigned ts_tier_fault_list(struct ts_tier *t, struct ts_tier_fault *out, unsigned max);

#endif
