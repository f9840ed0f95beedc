/*
 * steploop.h — the consumer's step loop, one for training, inference and
 * DLIO's accelerators, in either clock: take a batch, run the step on it,
 * hand the batch back when the step starts (its data has gone to the
 * devices), account the step; in real time, hold until the step's end
 * before the next.
 *
 * A step is one batch for each of @ranks consumers that start it together
 * (DLIO's ranks, which meet at a barrier between steps): a rank's step
 * starts when its batch is ready and not before the previous step's last
 * end. With one rank that is the previous step's end.
 *
 * What differs between the users is in hooks, not in copies of the loop:
 *  - where batches come from, and the rule by which the ranks take them
 *    (struct ts_steploop_src): the loader (pipeline/loader.h) in real time
 *    or its virtual twin (pipeline/vpipe.h), one source for both
 *    (ts_steploop_pipe_src); DLIO's PyTorch loader (workloads/dlio_loader.c),
 *    whose ranks take a batch once its start is no later than the loader's
 *    next event;
 *  - what a step is (ops.run): the engine's model (scenario/train.c) or, by
 *    default, a fixed time (DLIO: the framework's step and the computation);
 *  - what is counted (ops.taken per rank, ops.step_end per step): stall
 *    and step times, or AU per epoch.
 *
 * The loop checks ts_interrupted (core/interrupt.h) before every take: a
 * Ctrl-C ends it with -EINTR and a line in @err, in either clock.
 */
#ifndef TS_STEPLOOP_H
#define TS_STEPLOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ts_pipe;
struct ts_vpipe;
struct ts_batch;

/* One batch as a rank takes it. */
struct ts_take {
	uint64_t rank;	/* whose (0 .. ranks-1) */
	uint64_t step;	/* the run's step, from 0 (set by the loop) */
	uint64_t epoch; /* the loader's epoch */
	uint64_t seq;	/* the loader's batch number */
	uint64_t ready; /* when it was ready (real time: when taken) */
	uint32_t n;	/* samples */
};

/* One rank's step: on the devices from start to end. */
struct ts_step_span {
	uint64_t start, end;
	void *detail; /* ops.run's own (the engine's step) */
};

struct ts_steploop_src {
	/* The next batch into *@b (rank, epoch, seq, ready, n): 1, 0 when
	 * there are none, negative with @err set. @free_at is the step's
	 * earliest start (the previous step's last end). */
	int (*take)(void *self, uint64_t free_at, struct ts_take *b, char *err, size_t errlen);
	/* @b's data went to the devices at @t (0, or negative with @err). */
	int (*release)(void *self, const struct ts_take *b, uint64_t t, char *err, size_t errlen);
	void *self;
};

struct ts_steploop_ops {
	/* @b's step, starting no earlier than @free_at: *@sp. NULL: a fixed
	 * step of the loop's step_ns from max(ready, free_at). Failure:
	 * negative with @err set (the batch is released at its ready time). */
	int (*run)(void *self, const struct ts_take *b, uint64_t free_at, struct ts_step_span *sp,
		   char *err, size_t errlen);
	/* Real time, once every rank took its batch of the step, whose last
	 * rank's span is @sp and which ends at @end: wait for it, return
	 * when it ended. NULL: spin the loop's spin_ns from the last start
	 * (the framework's CPU work on this thread), sleep until @end,
	 * return the later of @end and now. */
	uint64_t (*hold)(void *self, const struct ts_step_span *sp, uint64_t end);
	/* Each rank's step (NULL: nothing): negative with @err to fail. */
	int (*taken)(void *self, const struct ts_take *b, const struct ts_step_span *sp, char *err,
		     size_t errlen);
	/* Each whole step, @b and @sp its last rank's, ending at @end (real
	 * time: held): 0 goes on, 1 stops the loop there, negative with @err
	 * fails. */
	int (*step_end)(void *self, const struct ts_take *b, const struct ts_step_span *sp,
			uint64_t end, char *err, size_t errlen);
	void *self;
};

struct ts_steploop {
	const struct ts_steploop_src *src;
	const struct ts_steploop_ops *ops;
	uint64_t ranks;	  /* consumers stepping together; 0 counts as 1 */
	uint64_t limit;	  /* steps at most (UINT64_MAX: until the source ends) */
	uint64_t t0;	  /* the clock's start: the first step's earliest */
	bool real;	  /* real time: hold each step */
	uint64_t step_ns; /* the default run's step */
	uint64_t spin_ns; /* the default hold's CPU work */
	/* out */
	uint64_t steps; /* whole steps done */
	uint64_t end;	/* the last step's end */
	bool ended;	/* the source ran out */
};

/* Runs @L: 0 when the limit was reached or the source ran out (L->ended),
 * 1 when step_end stopped it, negative with @err set on failure or
 * interruption (-EINTR). */
int ts_steploop_run(struct ts_steploop *L, char *err, size_t errlen);

/* The loader in either clock as a source: exactly one of @pipe (real
 * time, started) and @vp (virtual time); one rank. A caller with more to
 * do around a take (DLIO: the ranks' barrier, an epoch's restart) wraps
 * src in a source of its own. */
struct ts_steploop_pipe {
	struct ts_pipe *pipe;
	struct ts_vpipe *vp;
	struct ts_batch *b; /* the batch in hand */
	struct ts_steploop_src src;
};
void ts_steploop_pipe_init(struct ts_steploop_pipe *p);

#endif
