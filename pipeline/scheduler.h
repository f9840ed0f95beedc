/*
 * scheduler.h — the loader's decisions, once, for either clock.
 *
 * What a data loader decides — how many samples and batches a run has, the
 * order of each epoch, which sample is read next and when a read may be
 * issued (the prefetch window, the read queue depth, the read buffers),
 * which read sample a free decode worker takes, when a batch is complete,
 * and that batches go out in order — is written here once, as a state
 * machine that never reads a clock, sleeps or does IO (sans-IO, like the
 * tier model). Two drivers run it:
 *
 *  - real time (loader.c): the io_uring reader thread, the decode worker
 *    threads and the consumer call it under the loader's mutex;
 *  - virtual time (vpipe.c): a discrete-event loop, where the tier model
 *    says when a read completes and the decode calibration (or a host
 *    profile) says how long a worker is busy.
 *
 * Because every decision is made here, a seeded run and its virtual twin
 * read the same samples in the same order into the same batches; only how
 * long each step takes differs (tests/pipeline/test_twin.c checks it).
 *
 * The driver's loop, in either clock:
 *
 *   reader:   while (ts_sched_next(s, &pos) == 1 && ts_sched_claim(s, slot(pos))) issue(pos);
 *   on read:  ts_sched_read_done(s, &pos, err);     // to the decode queue, or done
 *   worker:   while (ts_sched_decode_take(s, &pos)) ... ts_sched_decode_done(s, &pos, err);
 *   consumer: if (ts_sched_ready(s)) { ts_sched_take(s, &b); ... ts_sched_release(s, b.seq); }
 *
 * Nothing here is process-wide: one struct ts_sched per loader.
 */
#ifndef TS_PIPE_SCHEDULER_H
#define TS_PIPE_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/rng.h"
#include "core/ts.h"

struct ts_sched_cfg {
	uint64_t samples;  /* samples per epoch in the dataset (after count) */
	uint64_t batch;	   /* samples per batch */
	uint64_t prefetch; /* batches that may exist at once (issued, not released) */
	uint64_t epochs;
	bool drop_last;	   /* drop a short last batch */
	bool shuffle;	   /* a fresh permutation per epoch */
	uint64_t seed;
	uint64_t qd;	   /* reads in flight at most (1 for a source read by a cursor) */
	uint64_t slots;	   /* read buffers; a sample needing one waits for one */
	uint64_t workers;  /* decode workers; 0: a read sample is done at once */
	bool hold_raw;	   /* a read buffer is held until its batch is released (the
			    * batch carries the raw bytes) instead of until decoded */
	bool restart;	   /* epochs restart the loader: nothing of epoch e + 1 is
			    * read before the consumer opens it (ts_sched_open_epoch) */
};

/* A sample's place in the run. */
struct ts_sched_pos {
	uint64_t seq;	/* batch number across epochs */
	uint64_t epoch;
	uint64_t index; /* batch number within the epoch */
	uint32_t pos;	/* place in the batch */
	uint32_t ring;	/* seq % prefetch: the batch's place in the window */
	uint64_t id;	/* sample index in the dataset (source order) */
	bool slot;	/* holds one of the read buffers */
};

/* A complete batch, handed to the consumer. */
struct ts_sched_batch {
	uint64_t seq, epoch, index;
	uint32_t size;	  /* samples placed in it */
	uint32_t failed;  /* of which failed (read or decode) */
};

/* What happened, for a driver's log (the twin test compares two). */
enum ts_sched_ev {
	TS_SCHED_EV_CLAIM,	  /* a read is issued for pos */
	TS_SCHED_EV_READ_DONE,
	TS_SCHED_EV_DECODE_START,
	TS_SCHED_EV_DONE,	  /* the sample is finished (decoded or failed) */
	TS_SCHED_EV_TAKE,	  /* batch pos->seq goes to the consumer */
	TS_SCHED_EV_RELEASE,
};
typedef void (*ts_sched_log_fn)(void *ctx, enum ts_sched_ev ev, const struct ts_sched_pos *pos);

struct ts_sched;

/* -EINVAL with @err set when the configuration makes no batch. */
TS_WUR int ts_sched_new(const struct ts_sched_cfg *cfg, struct ts_sched **out, char *err,
			size_t errlen);
void ts_sched_free(struct ts_sched *s);
void ts_sched_set_log(struct ts_sched *s, ts_sched_log_fn fn, void *ctx);

/* An epoch's order: position p of the epoch reads sample
 * ts_sched_order_at(o, p), p < samples_per_epoch. Shuffled, a permutation
 * seeded by the seed and the epoch: stored (Fisher-Yates) below 2^24
 * samples, computed a position at a time (ts_rng_perm) from there on;
 * unshuffled, the dataset order, computed (scheduler.c says why). */
struct ts_sched_order {
	const uint32_t *v;	 /* stored: v[p]; NULL: computed */
	struct ts_rng_perm perm; /* computed: perm's p-th element (perm.n 0: p) */
};

static inline uint64_t ts_sched_order_at(const struct ts_sched_order *o, uint64_t p)
{
	if (o->v)
		return o->v[p];
	return o->perm.n ? ts_rng_perm_at(&o->perm, p) : p;
}

/* Positions [@from, @from + @len) of @o into @out (a computed order's
 * lookups overlapping: ts_rng_perm_fill). */
static inline void ts_sched_order_fill(const struct ts_sched_order *o, uint64_t from, uint64_t len,
				       uint32_t *out)
{
	if (o->v || !o->perm.n) {
		for (uint64_t i = 0; i < len; i++)
			out[i] = (uint32_t)ts_sched_order_at(o, from + i);
		return;
	}
	ts_rng_perm_fill(&o->perm, from, len, out);
}

/* For tests: shuffled orders of @n samples or more are computed in the
 * schedulers made from now on (0: 2^24, the default). Process-wide. */
void ts_sched_set_computed_from(uint64_t n);
/* The count from which shuffled orders are computed (2^24 unless set):
 * another loader's model (workloads/dlio_loader.c) follows the same rule. */
uint64_t ts_sched_computed_from(void);

uint64_t ts_sched_batches_per_epoch(const struct ts_sched *s);
uint64_t ts_sched_samples_per_epoch(const struct ts_sched *s); /* delivered */
uint64_t ts_sched_total_batches(const struct ts_sched *s);

/* The next sample to read: 1 with *pos set (not yet claimed), 0 while the
 * prefetch window or the queue depth holds the reader back, -1 once every
 * sample of the run has been claimed. */
int ts_sched_next(struct ts_sched *s, struct ts_sched_pos *pos);
/* The id of the sample @ahead places after the one ts_sched_next names (0:
 * that one), within the epoch being read; UINT64_MAX past its end, or
 * before ts_sched_next has named one of it. For prefetching only: nothing
 * changes. */
uint64_t ts_sched_peek(const struct ts_sched *s, uint64_t ahead);
/* The order @epoch's samples are read in (its samples_per_epoch ids, in
 * the loader's range), or NULL while the scheduler holds another epoch's
 * (before ts_sched_next has named one of it, or once it named the next). */
const struct ts_sched_order *ts_sched_order(const struct ts_sched *s, uint64_t epoch);
/* Claims the sample ts_sched_next named; @slot: it needs a read buffer (a
 * sample larger than a buffer gets memory of its own). 1 when claimed, 0
 * while no buffer is free (nothing changes). */
int ts_sched_claim(struct ts_sched *s, struct ts_sched_pos *pos, bool slot);
/* Read buffers free now: a claim that failed for want of one fails again,
 * for the same sample, while this is 0 (only a claim moves the reader). */
uint64_t ts_sched_slots_free(const struct ts_sched *s);
/* The read finished: queued for a decode worker, or done at once when
 * there are none or it failed (@err != 0). */
void ts_sched_read_done(struct ts_sched *s, const struct ts_sched_pos *pos, int err);
/* A free worker takes the oldest read sample: 1 with *pos, 0 when none
 * waits or every worker is busy. */
int ts_sched_decode_take(struct ts_sched *s, struct ts_sched_pos *pos);
void ts_sched_decode_done(struct ts_sched *s, const struct ts_sched_pos *pos, int err);
/* A sample gives its read buffer back early (it was swapped for memory of
 * its own, or the decode let go of it). */
void ts_sched_slot_free(struct ts_sched *s, struct ts_sched_pos *pos);

/* With cfg.restart: the consumer opens the next epoch (a framework that
 * makes a new iterator per epoch); before that ts_sched_next holds the
 * reader back at the epoch's end, whatever the prefetch window allows. */
void ts_sched_open_epoch(struct ts_sched *s);

/* Is the consumer's next batch complete? false after the last one too. */
bool ts_sched_ready(const struct ts_sched *s);
/* Hands the next batch to the consumer: 1 with *b, 0 when it is not
 * complete yet, -1 after the last. */
int ts_sched_take(struct ts_sched *s, struct ts_sched_batch *b);
/* The consumer is done with batch @seq: its buffers and its place in the
 * prefetch window are free. */
void ts_sched_release(struct ts_sched *s, uint64_t seq);
/* Is batch @seq, in the prefetch window, complete (every sample done)? */
bool ts_sched_complete(const struct ts_sched *s, uint64_t seq);
/* Has every batch been taken? */
bool ts_sched_finished(const struct ts_sched *s);

/* State, for stats and drivers. */
struct ts_sched_state {
	uint64_t inflight;     /* reads issued, not done */
	uint64_t slots_free;
	uint64_t decode_queue; /* read, waiting for a worker */
	uint64_t workers_busy;
	uint64_t ready;	       /* complete batches not yet taken */
	uint64_t claimed_batches, taken, released;
};
void ts_sched_state(const struct ts_sched *s, struct ts_sched_state *st);

#endif
