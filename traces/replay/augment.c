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

/* Record @i is the command's: issued by one of its threads, by the kernel
 * on its behalf (thread id 0, or a kernel thread: its parent is kthreadd,
 * pid 2), or by a thread the trace cannot place (no CPU sample). A request
 * of another process (block mode's own tools looking at the image, another
 * program on the mount) is not. */
static bool ours(const struct ts_trace *t, const struct ts_wakes *s, size_t i)
{
	const struct ts_trace_cpu *c = t->cpu ? &t->cpu[i] : NULL;
	if (!t->recs[i].tid || !c || !c->pid || c->ppid == 2 || !s->nthreads)
		return true;
	return ts_wakes_thread_of(s, t->recs[i].tid) != NULL;
}

/* @t with a record per wake in @s and one per thread's start and end: the
 * span replay measures runs from the command's start (the wake file's first
 * thread) to its last thread's end; a wake record carries its edge, a start
 * record one to the thread that forked it. Requests done before the command
 * started, or issued after its last thread ended, are not the command's:
 * in block mode the mount reads the file system's superblock and journal
 * before it and the unmount writes after it; so are other processes'
 * (ours()). They are left out (counted in a->outside). When no request is the command's own (block mode), only
 * that is done. */
int replay_augment(const struct ts_trace *t, const struct ts_wakes *s, struct augmented *a)
{
	uint64_t t0 = UINT64_MAX, mono = t->hdr.start_mono_ns;
	size_t n = t->nrecs, extra = s->nwakes + 2 * s->nthreads;

	uint64_t begin = UINT64_MAX, end = 0;

	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < s->nthreads; i++) { /* the command's span, if the trace has it */
		if (s->threads[i].start_ns >= mono)
			begin = TS_MIN(begin, s->threads[i].start_ns - mono);
		if (s->threads[i].end_ns >= mono)
			end = TS_MAX(end, s->threads[i].end_ns - mono);
	}
	t0 = begin;
	if (begin == UINT64_MAX || end < begin) /* no thread inside the trace: keep all */
		begin = 0, end = UINT64_MAX;
	for (size_t i = 0; i < t->nrecs; i++)
		if (TS_MAX(t->recs[i].complete_ns, t->recs[i].submit_ns) >= begin &&
		    t->recs[i].submit_ns <= end)
			t0 = TS_MIN(t0, t->recs[i].submit_ns);
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
	n = 0;
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct ts_trace_rec *r = &t->recs[i];
		if (TS_MAX(r->complete_ns, r->submit_ns) < begin || r->submit_ns > end ||
		    !ours(t, s, i)) {
			a->outside++;
			continue;
		}
		if (t->cpu)
			a->t.cpu[n] = t->cpu[i];
		a->t.recs[n++] = *r;
	}
	for (size_t i = 0; i < n + extra; i++)
		a->edge[i] = (struct wake_edge){.waker = SIZE_MAX};
	/* Block mode: every request came from the kernel (the loop device's
	 * worker), none from the command's threads, whose waits for the device
	 * the wake file cannot name (a wake from outside the command is not
	 * kept). Their records would pin the span to the recorded schedule:
	 * the stream rule alone paces the replay. */
	bool own = false;
	for (size_t i = 0; i < n && !own; i++)
		own = ts_wakes_thread_of(s, a->t.recs[i].tid) != NULL;
	a->t.nrecs = n;
	if (!n || !own)
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
