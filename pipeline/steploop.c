/*
 * steploop.c — the consumer's step loop (steploop.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/interrupt.h"
#include "core/ts.h"
#include "pipeline/loader.h"
#include "pipeline/steploop.h"
#include "pipeline/vpipe.h"

/* Real time: the framework's step is CPU work on the consumer's thread,
 * its computation a sleep (the devices work, the host waits). */
static void spin_until(uint64_t t)
{
	volatile uint64_t x = 0;
	while (ts_now_ns() < t && !ts_interrupted)
		x++;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / TS_NS_PER_S), (long)(t % TS_NS_PER_S) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR &&
	       !ts_interrupted)
		;
}

int ts_steploop_run(struct ts_steploop *L, char *err, size_t errlen)
{
	const struct ts_steploop_src *src = L->src;
	const struct ts_steploop_ops *ops = L->ops;
	uint64_t ranks = L->ranks ? L->ranks : 1;
	uint64_t bar = L->t0, end = L->t0, taken = 0;
	L->steps = 0;
	L->end = L->t0;
	L->ended = false;
	for (;;) {
		if (!taken && L->steps >= L->limit)
			return 0;
		if (ts_interrupted) {
			snprintf(err, errlen, "interrupted after %" PRIu64 " steps", L->steps);
			return -EINTR;
		}
		struct ts_take b = { 0 };
		int rc = src->take(src->self, bar, &b, err, errlen);
		if (rc <= 0) {
			L->ended = rc == 0;
			return rc;
		}
		b.step = L->steps;
		struct ts_step_span sp = { 0 };
		rc = 0;
		if (ops->run) {
			rc = ops->run(ops->self, &b, bar, &sp, err, errlen);
		} else {
			sp.start = TS_MAX(b.ready, bar);
			sp.end = sp.start + L->step_ns;
		}
		char sub[256]; /* a failed step's message stands */
		int rrc = src->release(src->self, &b, rc ? b.ready : sp.start, rc ? sub : err,
				       rc ? sizeof(sub) : errlen);
		if (rc || (rc = rrc))
			return rc;
		end = TS_MAX(end, sp.end);
		if (ops->taken && (rc = ops->taken(ops->self, &b, &sp, err, errlen)))
			return rc;
		if (++taken < ranks)
			continue;
		if (L->real) {
			if (ops->hold) {
				end = ops->hold(ops->self, &sp, end);
			} else {
				spin_until(sp.start + L->spin_ns);
				sleep_until(end);
				uint64_t now = ts_now_ns(); /* one clock read */
				end = TS_MAX(end, now);
			}
		}
		L->steps++;
		L->end = bar = end;
		taken = 0;
		if (ops->step_end && (rc = ops->step_end(ops->self, &b, &sp, end, err, errlen)))
			return rc;
	}
}

/* ---- the loader as a source, in either clock ---- */

static int pipe_take(void *self, uint64_t free_at, struct ts_take *b, char *err, size_t errlen)
{
	struct ts_steploop_pipe *p = self;
	(void)free_at;
	if (p->vp) {
		struct ts_vbatch vb = { 0 };
		int rc = ts_vpipe_next_batch(p->vp, &vb);
		if (rc < 0)
			snprintf(err, errlen, "virtual loader: %s", ts_strerror(rc));
		if (rc == 1)
			*b = (struct ts_take){ .epoch = vb.epoch, .seq = vb.seq, .ready = vb.ready_ns,
					       .n = vb.n };
		return rc;
	}
	int64_t wr = ts_pipe_next_batch(p->pipe, &p->b);
	if (wr < 0) {
		snprintf(err, errlen, "loader: %s", ts_pipe_error(p->pipe));
		return (int)wr;
	}
	if (!p->b)
		return 0;
	*b = (struct ts_take){ .epoch = p->b->epoch, .seq = p->b->seq, .ready = ts_now_ns(),
			       .n = p->b->n };
	return 1;
}

static int pipe_release(void *self, const struct ts_take *b, uint64_t t, char *err, size_t errlen)
{
	struct ts_steploop_pipe *p = self;
	if (p->vp) {
		int rc = ts_vpipe_release(p->vp, b->seq, t);
		if (rc)
			snprintf(err, errlen, "virtual loader: batch %" PRIu64 ": %s", b->seq,
				 ts_strerror(rc));
		return rc;
	}
	ts_pipe_batch_release(p->pipe, p->b);
	p->b = NULL;
	return 0;
}

void ts_steploop_pipe_init(struct ts_steploop_pipe *p)
{
	p->b = NULL;
	p->src = (struct ts_steploop_src){ pipe_take, pipe_release, p };
}
