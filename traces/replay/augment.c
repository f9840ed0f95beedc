/*
 * augment.c — the wake file (traces/wakes.h) as records of the trace: one
 * per wake, and per thread's start and end, so that the wake rule
 * (rules.c) places them in the threads' op lists like any op.
 */
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "traces/replay/replay_int.h"

void replay_augmented_free(struct augmented *a)
{
	if (a->t.recs)
		free(a->t.recs);
	free(a->t.cpu);
	free(a->edge);
	free(a->waker_tid);
	memset(a, 0, sizeof(*a));
}

/* @t with a record per wake in @s and one per thread's start and end: the
 * span replay measures runs from the command's start (the wake file's first
 * thread) to its last thread's end; a wake record carries its edge, a start
 * record one to the thread that forked it. */
int replay_augment(const struct ts_trace *t, const struct ts_wakes *s, struct augmented *a)
{
	uint64_t t0 = UINT64_MAX, mono = t->hdr.start_mono_ns;
	size_t n = t->nrecs, extra = s->nwakes + 2 * s->nthreads;

	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < t->nrecs; i++)
		t0 = TS_MIN(t0, t->recs[i].submit_ns);
	for (size_t i = 0; i < s->nthreads; i++) /* the command's start, if the trace has it */
		if (s->threads[i].start_ns >= mono)
			t0 = TS_MIN(t0, s->threads[i].start_ns - mono);
	a->t = *t;
	a->t.recs = malloc((n + extra + 1) * sizeof(*a->t.recs));
	a->t.cpu = t->cpu ? calloc(n + extra + 1, sizeof(*a->t.cpu)) : NULL;
	a->edge = malloc((n + extra + 1) * sizeof(*a->edge));
	a->waker_tid = calloc(n + extra + 1, sizeof(*a->waker_tid));
	if (!a->t.recs || (t->cpu && !a->t.cpu) || !a->edge || !a->waker_tid) {
		replay_augmented_free(a);
		return -ENOMEM;
	}
	/* the CPUs the application had: the host's, less what everything
	 * else took over the capture (tierfs, the capture itself, others) */
	if (s->cpus && s->end_ns > s->begin_ns) {
		double others = (double)s->others_ns / (double)(s->end_ns - s->begin_ns);
		a->cpu_cap = TS_MAX((double)s->cpus - others, 0.1 * s->cpus);
	}
	memcpy(a->t.recs, t->recs, n * sizeof(*t->recs));
	if (t->cpu)
		memcpy(a->t.cpu, t->cpu, n * sizeof(*t->cpu));
	for (size_t i = 0; i < n + extra; i++)
		a->edge[i] = (struct wake_edge){.waker = SIZE_MAX};
	if (!n)
		return 0;
	struct ts_trace_rec w = {.op = TS_OP_GETATTR, .flags = TS_REC_F_NOTIER | REC_F_WAKE};
	for (size_t i = 0; i < s->nwakes; i++) {
		const struct ts_wake *k = &s->wakes[i];
		if (k->t_ns < mono || k->t_ns - mono < t0)
			continue;
		w.submit_ns = w.complete_ns = k->t_ns - mono;
		w.tid = k->wakee;
		a->edge[n] = (struct wake_edge){.waker = SIZE_MAX,
						.t_ns = w.submit_ns,
						.slept_ns = k->t_ns - TS_MAX(k->since_ns, mono + t0)};
		a->waker_tid[n] = k->waker;
		a->t.recs[n++] = w;
	}
	for (size_t i = 0; i < s->nthreads; i++) {
		const struct ts_wakes_thread *th = &s->threads[i];
		if (th->start_ns >= mono && th->start_ns - mono >= t0) {
			w.submit_ns = w.complete_ns = th->start_ns - mono;
			w.tid = th->tid;
			a->edge[n] = (struct wake_edge){
			    .waker = SIZE_MAX, .t_ns = w.submit_ns, .start = true};
			a->waker_tid[n] = th->ppid; /* 0 for the command: no edge */
			a->t.recs[n++] = w;
		}
		if (th->end_ns < mono || th->end_ns - mono < t0)
			continue;
		w.submit_ns = w.complete_ns = th->end_ns - mono;
		w.tid = th->tid;
		a->t.recs[n++] = w;
	}
	a->t.nrecs = n;
	return 0;
}

static size_t rthread_of(const struct rthreads *ps, uint32_t tid)
{
	size_t lo = 0, hi = ps->n;
	while (lo < hi) { /* threads are in tid order */
		size_t m = (lo + hi) / 2;
		if (ps->p[m].tid < tid)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < ps->n && ps->p[lo].tid == tid ? lo : SIZE_MAX;
}

/* The edges' wakers as thread indices, once the threads are built. */
void replay_augment_resolve(struct augmented *a, struct rthreads *ps)
{
	for (size_t i = 0; i < a->t.nrecs; i++)
		if (a->waker_tid[i])
			a->edge[i].waker = rthread_of(ps, a->waker_tid[i]);
	ps->edge = a->edge;
	ps->cpu_cap = a->cpu_cap;
}
