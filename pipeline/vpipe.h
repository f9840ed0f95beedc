/*
 * vpipe.h — the loader in virtual time.
 *
 * The same scheduler as the real loader (scheduler.h), laid out the same
 * way (ts_pipe_layout), reading what each source says it reads
 * (ts_source_ops.plan_*), driven by a discrete-event loop instead of
 * threads: a read completes when the disk says (struct ts_vdisk, usually the
 * tier model), a decode worker is busy for what the decode calibration
 * charges. Nothing of the loader's policy is written here.
 *
 *   struct ts_vdisk disk = { tier_submit, tier };
 *   ts_vpipe_new(&cfg, &meta, &disk, &cal, &v, err, sizeof err);
 *   for (;;) {
 *       struct ts_vbatch b;
 *       int rc = ts_vpipe_next_batch(v, &b);  // runs events until it is complete
 *       if (rc <= 0) break;                   // error / end of data
 *       ... the consumer starts at max(b.ready_ns, its own time), ends at t ...
 *       ts_vpipe_release(v, b.seq, t);
 *   }
 *   ts_vpipe_free(v);
 */
#ifndef TS_PIPE_VPIPE_H
#define TS_PIPE_VPIPE_H

#include <stdbool.h>
#include <stdint.h>

#include "pipeline/decode.h"
#include "pipeline/loader.h"
#include "pipeline/source.h"

/* Where reads go: returns when a request issued at @now_ns completes.
 * warm (optional) puts a read's range in the page-cache state a previous
 * pass (or, @dirty, a copy) left it in, at no device time. */
struct ts_vdisk {
	uint64_t (*submit)(void *ctx, uint64_t now_ns, const struct ts_vio *io);
	void *ctx;
	void (*warm)(void *ctx, const struct ts_vio *io, bool dirty);
	/* Optional: @io will be submitted soon; start loading what submitting
	 * it reads (__builtin_prefetch). Changes nothing. */
	void (*prefetch)(void *ctx, const struct ts_vio *io);
	/* The file system the disk holds (tier/fsmeta.h), which sizes a
	 * source's folders (struct ts_vsource.fs); NULL: it models none. */
	const struct ts_fsmeta_params *fs;
};

struct ts_vbatch {
	uint64_t seq, epoch, index;
	uint32_t n;	   /* samples */
	uint64_t ready_ns; /* when its last sample was done */
};

struct ts_vpipe_stats {
	uint64_t samples, batches;
	uint64_t read_requests, read_bytes, meta_requests;
	uint64_t decode_busy_ns;
	uint64_t decode_workers;
	uint64_t open_ns; /* what opening the source took (reading a corpus) */
	const char *source;
	const char *decode_mode; /* modeled | none */
	/* the framework's own work charged on each sample's worker besides
	 * the decode (DLIO's reader; a DataLoader worker's, the batch's part
	 * spread over its samples: ts_decode_cal_for_source), ns */
	double sample_ns;
	bool dataloader; /* a DataLoader's workers fetch the samples (TS_SRC_TORCH) */
};

struct ts_vpipe;

/* @meta: the dataset (NULL for the null source); @cal: the decode cost
 * (NULL is refused when the configuration decodes). Errors name the
 * option. */
TS_WUR int ts_vpipe_new(const struct ts_pipe_cfg *cfg, const struct ts_dataset_meta *meta,
			const struct ts_vdisk *disk, const struct ts_decode_cal *cal,
			struct ts_vpipe **out, char *err, size_t errlen);
/* The scheduler, for a log hook (ts_sched_set_log) or its counters. */
struct ts_sched *ts_vpipe_sched(struct ts_vpipe *v);
/* Record the loader's reads, decodes and batches on @tl (timeline.h);
 * set before the first batch. */
struct ts_tl_proc;
void ts_vpipe_set_timeline(struct ts_vpipe *v, struct ts_tl_proc *tl);
uint64_t ts_vpipe_batches_per_epoch(const struct ts_vpipe *v);
/* The requests sample @id (in the loader's range) makes, as its source plans them. */
void ts_vpipe_plan(struct ts_vpipe *v, uint64_t id, struct ts_vsample *out);
/* When the loader can start (after what opening the source reads). */
uint64_t ts_vpipe_start_ns(const struct ts_vpipe *v);
/* Before the first batch: what the run reads is warmed on the disk
 * (ts_vdisk.warm) in storage order — what opening the source reads, then
 * every sample — as writing the dataset leaves it (mount{cache="written"},
 * @dirty) or a pass over all of it in storage order (@dirty false).
 * A scenario's cache = "warm" is not this: it runs the job once untimed
 * on the same model first (scenario/runner.c, run_row). */
void ts_vpipe_warm(struct ts_vpipe *v, bool dirty);
/* 1 with *b, 0 after the last batch, negative on an internal stall. */
int ts_vpipe_next_batch(struct ts_vpipe *v, struct ts_vbatch *b);
/* The consumer let go of batch @seq at @t_ns (not before it was ready). */
TS_WUR int ts_vpipe_release(struct ts_vpipe *v, uint64_t seq, uint64_t t_ns);
/* With restart (loader.h): the consumer opens the next epoch at @t_ns;
 * nothing of it is read before. */
TS_WUR int ts_vpipe_open_epoch(struct ts_vpipe *v, uint64_t t_ns);
/* Of the first @end samples of @epoch's order, at least as many as may
 * read on a tier merging sequential reads (tier_base.h's ts_tier_read_ios)
 * without an I/O of their own: the pairs of reads that meet (one ends
 * where the other starts, in the same file, either first: the tier merges
 * by arrival), the other among the @window samples before, each counted
 * at the later in the order. All in *@all, those counted at positions
 * below @mark in *@below; a few that cannot merge may be counted (a
 * bound). 0, -EAGAIN while the scheduler
 * holds another epoch's order (ts_sched_order), -E2BIG for a window over
 * 2^22 samples, -ENOMEM. */
TS_WUR int ts_vpipe_merge_count(struct ts_vpipe *v, uint64_t epoch, uint64_t window,
				uint64_t mark, uint64_t end, uint64_t *below, uint64_t *all);
/* The same count in steps: for @epoch, @window, @mark and @end as above,
 * positions [0, upto) counted by each ts_vpipe_merges_more (from where
 * the last stopped; past @end, to @end), whose sums then are
 * ts_vpipe_merge_count's over the positions counted. A caller that may
 * not need the whole count pays for what it counts. new: 0, -E2BIG,
 * -ENOMEM; more: 0, -EAGAIN while the scheduler holds another epoch's
 * order; done: the positions counted, the sums so far, and in *@left
 * how many positions are left to count (0: the count is whole). */
struct ts_vpipe_merges;
TS_WUR int ts_vpipe_merges_new(struct ts_vpipe *v, uint64_t epoch, uint64_t window,
			       uint64_t mark, uint64_t end, struct ts_vpipe_merges **out);
TS_WUR int ts_vpipe_merges_more(struct ts_vpipe *v, struct ts_vpipe_merges *m, uint64_t upto);
uint64_t ts_vpipe_merges_done(const struct ts_vpipe_merges *m, uint64_t *below, uint64_t *all,
			      uint64_t *left);
void ts_vpipe_merges_free(struct ts_vpipe_merges *m);
/* A step of ts_vpipe_merges_more over @least positions or more (and four
 * windows or more) is counted by two threads, each position as one
 * thread counts it (the same sums); the default is 2^20 (a test sets it
 * low). The source's plan_sample and plan_prefetch are then called from
 * two threads at once (they take the source const). */
void ts_vpipe_merges_set_split(struct ts_vpipe_merges *m, uint64_t least);
/* A step of ts_vpipe_merges_more over @least positions or more, of an
 * epoch whose order is computed (ts_rng_perm), lists where the rest of
 * the count falls in one pass over the samples in their stored order,
 * where each is one read and they lie as stored (vpipe.c says why it is
 * the same count), where a quarter of the samples or more is left to
 * count; later steps take their sums from the list. The default is an
 * epoch's 1/64 and 2^20 at least (a test sets it low). */
void ts_vpipe_merges_set_list(struct ts_vpipe_merges *m, uint64_t least);
/* For tests: @plain lists from the source's reads even where its
 * plan_runs gives them as a rule (the same positions either way). */
void ts_vpipe_merges_set_plain(struct ts_vpipe_merges *m, bool plain);
/* Whether a step listed the count (for tests) */
bool ts_vpipe_merges_listed(const struct ts_vpipe_merges *m);
void ts_vpipe_stats(const struct ts_vpipe *v, struct ts_vpipe_stats *st);
void ts_vpipe_free(struct ts_vpipe *v);

#endif
