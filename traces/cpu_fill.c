/*
 * cpu_fill.c — the clocks of the CPU samples tierfs left unread
 * (TS_CPU_F_GAP, traces/FORMAT.md "Samples left unread").
 *
 * A thread's records in submit order fall into runs: a read clock P, the
 * records whose clocks were left unread (each came within tierfs's
 * limit of the thread's previous reply), then the next read clock C
 * or the thread's end. What the thread did on a CPU over the run is
 * C - P; how it divides between the short gaps and C's own gap is what
 * the unread clocks would have said. So:
 *
 * - C marked TS_CPU_F_RUN (read at a short gap: for the budget, or to
 *   measure the short gaps):
 *   its own gap was short too, so every gap of the run was, and C - P is
 *   spread over them in proportion to their lengths;
 * - otherwise C's gap is longer than the threshold, and the short gaps
 *   are given the thread's measured CPU share of short gaps: the CPU over
 *   its TS_CPU_F_RUN runs per ns of their gaps (on a CPU and queued for
 *   one, each), or the whole trace's where the thread has none, or, where
 *   no thread has one, all of the gap on a CPU ("counted as CPU") — never
 *   more than C - P, and what is left is C's own gap's;
 * - records before a thread's first read clock take that clock (nothing
 *   is known of them), and with no read clock at all they stay 0.
 *
 * The error is the short gaps' CPU share differing from the thread's
 * measured one, at most the budget tierfs gave the run.
 *
 * A packed record (version 10, TS_REC_F_PACKED) came without a cpu item:
 * it takes its process and parent from the thread's sample before it in
 * submit order (after it where none; its tid for the process where the
 * thread has no other), and is then a sample left unread like the rest.
 */
#include <stdlib.h>

#include "core/units.h"
#include "traces/order.h"
#include "traces/trace.h"

struct share {
	double on, runq, gap; /* ns summed over TS_CPU_F_RUN runs */
};

/* The gap before record @cur since the end of @prev, 0 when it overlaps. */
static uint64_t gap(const struct ts_trace *t, size_t prev, size_t cur)
{
	const struct ts_trace_rec *a = &t->recs[prev], *b = &t->recs[cur];
	uint64_t done = TS_MAX(a->complete_ns, a->submit_ns);
	return b->submit_ns > done ? b->submit_ns - done : 0;
}

static bool is_read(const struct ts_trace_cpu *c)
{
	return c->pid && !(c->flags & TS_CPU_F_GAP);
}

static uint64_t delta(uint64_t to, uint64_t from)
{
	return to > from ? to - from : 0;
}

/* The thread's TS_CPU_F_RUN runs, added to @s. */
static void learn(const struct ts_trace *t, const size_t *idx, size_t n, struct share *s)
{
	size_t p = SIZE_MAX;
	double g = 0;
	for (size_t j = 0; j < n; j++) {
		const struct ts_trace_cpu *c = &t->cpu[idx[j]];
		if (j)
			g += (double)gap(t, idx[j - 1], idx[j]);
		if (!is_read(c))
			continue;
		if (p != SIZE_MAX && (c->flags & TS_CPU_F_RUN)) {
			const struct ts_trace_cpu *a = &t->cpu[p];
			s->on += (double)delta(c->on_ns, a->on_ns);
			s->runq += (double)delta(c->runq_ns, a->runq_ns);
			s->gap += g;
		}
		p = idx[j];
		g = 0;
	}
}

/* Fills the unread clocks of records idx[from..to) (after read clock @p,
 * before read clock @c, SIZE_MAX: none). */
static void fill_run(struct ts_trace *t, const size_t *idx, size_t from, size_t to, size_t p,
		     size_t c, const struct share *rate)
{
	if (p == SIZE_MAX) { /* before the first read clock */
		for (size_t j = from; j < to; j++) {
			t->cpu[idx[j]].on_ns = c == SIZE_MAX ? 0 : t->cpu[c].on_ns;
			t->cpu[idx[j]].runq_ns = c == SIZE_MAX ? 0 : t->cpu[c].runq_ns;
		}
		return;
	}
	const struct ts_trace_cpu *a = &t->cpu[p];
	double short_gaps = 0; /* the run's gaps up to its last unread clock */
	for (size_t j = from; j < to; j++)
		short_gaps += (double)gap(t, idx[j - 1], idx[j]);
	double on, runq, over;
	if (c != SIZE_MAX && (t->cpu[c].flags & TS_CPU_F_RUN)) {
		on = (double)delta(t->cpu[c].on_ns, a->on_ns);
		runq = (double)delta(t->cpu[c].runq_ns, a->runq_ns);
		over = short_gaps + (double)gap(t, idx[to - 1], c);
	} else {
		on = rate->on * short_gaps;
		runq = rate->runq * short_gaps;
		if (c != SIZE_MAX) {
			on = TS_MIN(on, (double)delta(t->cpu[c].on_ns, a->on_ns));
			runq = TS_MIN(runq, (double)delta(t->cpu[c].runq_ns, a->runq_ns));
		}
		over = short_gaps;
	}
	double cum = 0;
	for (size_t j = from; j < to; j++) {
		cum += (double)gap(t, idx[j - 1], idx[j]);
		double f = over > 0 ? cum / over : 0;
		t->cpu[idx[j]].on_ns = a->on_ns + (uint64_t)(on * f + 0.5);
		t->cpu[idx[j]].runq_ns = a->runq_ns + (uint64_t)(runq * f + 0.5);
	}
}

/* A share per ns of gap, on a CPU and queued, from @s; false: none known. */
static bool rate_of(const struct share *s, struct share *out)
{
	if (s->gap <= 0)
		return false;
	out->on = TS_MIN(s->on / s->gap, 1.0);
	out->runq = TS_MIN(s->runq / s->gap, 1.0 - out->on);
	return true;
}

/* The process and parent of the thread's packed records idx[0..n). */
static void fill_pids(struct ts_trace *t, const size_t *idx, size_t n)
{
	/* forward: the sample before it; then backward: the one after */
	for (int dir = 0; dir < 2; dir++) {
		const struct ts_trace_cpu *last = NULL;
		for (size_t k = 0; k < n; k++) {
			size_t i = idx[dir ? n - 1 - k : k];
			struct ts_trace_cpu *c = &t->cpu[i];
			if (!(t->recs[i].flags & TS_REC_F_PACKED)) {
				last = c->pid ? c : last;
			} else if (!c->pid && last) {
				c->pid = last->pid;
				c->ppid = last->ppid;
				t->ncpu++;
			}
		}
	}
	for (size_t k = 0; k < n; k++) { /* no other sample in the thread */
		struct ts_trace_cpu *c = &t->cpu[idx[k]];
		if ((t->recs[idx[k]].flags & TS_REC_F_PACKED) && !c->pid) {
			c->pid = t->recs[idx[k]].tid ? t->recs[idx[k]].tid : 1;
			t->ncpu++;
		}
	}
}

static void fill_thread(struct ts_trace *t, const size_t *idx, size_t n, const struct share *rate)
{
	size_t p = SIZE_MAX, from = SIZE_MAX;
	for (size_t j = 0; j < n; j++) {
		const struct ts_trace_cpu *c = &t->cpu[idx[j]];
		if (c->pid && (c->flags & TS_CPU_F_GAP)) {
			if (from == SIZE_MAX)
				from = j;
			continue;
		}
		if (!is_read(c))
			continue;
		if (from != SIZE_MAX)
			fill_run(t, idx, from, j, p, idx[j], rate);
		from = SIZE_MAX;
		p = idx[j];
	}
	if (from != SIZE_MAX)
		fill_run(t, idx, from, n, p, SIZE_MAX, rate);
}

/* Where the thread of idx[a] ends in @idx (by thread). */
static size_t thread_end(const struct ts_trace *t, const size_t *idx, size_t a)
{
	size_t b = a + 1;
	while (b < t->nrecs && t->recs[idx[b]].tid == t->recs[idx[a]].tid)
		b++;
	return b;
}

int ts_trace_cpu_fill(struct ts_trace *t)
{
	bool any = false, pids = false;
	for (size_t i = 0; t->cpu && i < t->nrecs; i++) {
		any |= t->cpu[i].pid && (t->cpu[i].flags & TS_CPU_F_GAP);
		pids |= (t->recs[i].flags & TS_REC_F_PACKED) && !t->cpu[i].pid;
	}
	if (!any && !pids)
		return 0;
	size_t *idx = ts_trace_thread_order(t);
	if (!idx)
		return -ENOMEM;
	for (size_t a = 0, b; pids && a < t->nrecs; a = b) {
		b = thread_end(t, idx, a);
		fill_pids(t, idx + a, b - a);
	}
	/* the whole trace's share, for threads that measured none */
	struct share all = {0}, all_rate = {.on = 1.0};
	for (size_t a = 0, b; a < t->nrecs; a = b) {
		b = thread_end(t, idx, a);
		learn(t, idx + a, b - a, &all);
	}
	rate_of(&all, &all_rate);
	for (size_t a = 0, b; a < t->nrecs; a = b) {
		b = thread_end(t, idx, a);
		struct share own = {0}, rate = all_rate;
		learn(t, idx + a, b - a, &own);
		rate_of(&own, &rate);
		fill_thread(t, idx + a, b - a, &rate);
	}
	free(idx);
	return 0;
}
