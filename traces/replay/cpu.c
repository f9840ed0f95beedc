/*
 * cpu.c — the CPU model of a virtual replay.
 *
 * The CPU model (a wake file that knows the host's CPUs). A recorded gap
 * between two records of a thread holds its time on a CPU, its time queued
 * for one, its own sleeps and the waits the wake rule bounds. The time on
 * a CPU is work, which another tier does not change; the time queued is
 * not: it came from the other threads that were runnable then, and a
 * slower tier, which keeps some of them waiting on IO, leaves more CPU to
 * the rest. So in replay the work is served by the CPUs the application
 * had (the host's, less what everything else used over the recording),
 * shared equally by the threads that want one (processor sharing: with n
 * of them on c CPUs each runs at min(1, c / n)); the queueing comes out of
 * that, and the thread's own sleeps follow its work, as recorded. The
 * work is taken to come first in the gap: where a gap's work and sleep
 * interleave the split is not known.
 */

#include <stdlib.h>

#include "core/units.h"
#include "traces/replay/replay_int.h"

static double cpu_rate(const struct cpu_server *cs)
{
	return (double)cs->n <= cs->cap ? 1.0 : cs->cap / (double)cs->n;
}

/* Serves every job up to @t. */
void replay_cpu_advance(struct cpu_server *cs, uint64_t t)
{
	if (t <= cs->t) {
		cs->t = TS_MAX(cs->t, t);
		return;
	}
	double served = (double)(t - cs->t) * cpu_rate(cs);
	for (size_t i = 0; i < cs->n; i++)
		cs->job[i]->cpu_left -= served;
	cs->t = t;
}

/* When the next job is served; UINT64_MAX without jobs. */
uint64_t replay_cpu_next(const struct cpu_server *cs)
{
	if (!cs->n)
		return UINT64_MAX;
	double left = cs->job[0]->cpu_left;
	for (size_t i = 1; i < cs->n; i++)
		left = TS_MIN(left, cs->job[i]->cpu_left);
	double dt = left <= 0 ? 0 : left / cpu_rate(cs);
	uint64_t whole = (uint64_t)dt;
	return cs->t + whole + ((double)whole < dt); /* rounded up */
}

int replay_cpu_add(struct cpu_server *cs, struct cursor *c, uint64_t t)
{
	if (cs->n == cs->size) {
		size_t z = cs->size ? cs->size * 2 : 16;
		struct cursor **j = realloc(cs->job, z * sizeof(*j));
		if (!j)
			return -ENOMEM;
		cs->job = j;
		cs->size = z;
	}
	replay_cpu_advance(cs, t);
	c->on_cpu = true;
	c->cpu_left = (double)c->cpu_demand;
	cs->job[cs->n++] = c;
	return 0;
}

/* A job served by now (within half a nanosecond), removed; NULL: none. */
struct cursor *replay_cpu_take(struct cpu_server *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		struct cursor *c = cs->job[i];
		if (c->cpu_left <= 0.5) {
			cs->job[i] = cs->job[--cs->n];
			c->on_cpu = false;
			return c;
		}
	}
	return NULL;
}

/* After cursor_advance: when the gap before op i has its work known, the
 * thread goes to the CPUs at its previous completion instead of issuing
 * after the recorded gap. */
void replay_cpu_gap(const struct rthreads *ps, const struct ts_trace *t, struct cursor *c,
		    const struct ts_replay_cfg *cfg, double speed)
{
	c->cpu_pending = false;
	if (!ps->cpu_cap || !t->cpu || !c->i || cfg->no_think || speed != 1.0 || !c->win_hi)
		return; /* no model or samples, first op, no think, scaled, or async */
	size_t a = c->p->idx[c->i - 1], b = c->p->idx[c->i];
	const struct ts_trace_rec *nx = &t->recs[b];
	/* Between two requests with CPU samples only (/proc/TID/schedstat);
	 * the wake file's records have none (its switch-counted times ran
	 * some percent low against schedstat's here, and a gap measured from
	 * one to the other would hold the difference as work). */
	const struct ts_trace_cpu *ca = &t->cpu[a], *cb = &t->cpu[b];
	if (!ca->pid || !cb->pid || cb->on_ns < ca->on_ns || nx->submit_ns < c->rec_done_max)
		return;
	uint64_t gap = nx->submit_ns - c->rec_done_max;
	gap -= TS_MIN(gap, cfg->think_less_ns);
	uint64_t work = cb->on_ns - ca->on_ns;
	uint64_t queued = cb->runq_ns >= ca->runq_ns ? cb->runq_ns - ca->runq_ns : 0;
	/* the sleep the wake rule bounds stays in the rest, where wake_apply
	 * takes it off again */
	uint64_t rest = gap - TS_MIN(gap, work + queued);
	if (!work)
		return;
	c->cpu_pending = true;
	c->cpu_demand = work;
	c->cpu_rest = rest;
	c->next_issue = c->done_max; /* when it wants a CPU */
}
