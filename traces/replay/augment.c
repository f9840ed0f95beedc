/*
 * augment.c — the wake file (traces/wakes.h) as records of the trace: one
 * per wake, and per thread's start and end, so that the wake rule
 * (rules.c) places them in the threads' op lists like any op; in block
 * mode, the device's requests tied to the command's threads that waited
 * for them (tie_sleeps()).
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
	free(a->t.issue);
	free(a->edge);
	free(a->waker_tid);
	free(a->dep);
	free(a->sprev);
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

/* By thread, then submit order. */
static int cmp_stream(const void *x, const void *y, void *ctx)
{
	const struct ts_trace *t = ctx;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	const struct ts_trace_rec *a = &t->recs[i], *b = &t->recs[j];
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->submit_ns != b->submit_ns)
		return a->submit_ns < b->submit_ns ? -1 : 1;
	return (i > j) - (i < j);
}

/* The stream rule's dependencies over each kernel thread's stream of the
 * first @n records of a->t, taken before any of them moves (a->dep,
 * a->sprev). */
static int streams(struct augmented *a, size_t n)
{
	const struct ts_trace *t = &a->t;
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	a->dep = malloc((n ? n : 1) * sizeof(*a->dep));
	a->sprev = malloc((n ? n : 1) * sizeof(*a->sprev));
	if (!idx || !a->dep || !a->sprev) {
		free(idx);
		return -ENOMEM;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		a->dep[i] = a->sprev[i] = SIZE_MAX;
		if (replay_kernel_thread(t->cpu[i].pid, t->cpu[i].ppid))
			idx[k++] = i;
	}
	qsort_r(idx, k, sizeof(*idx), cmp_stream, (void *)t);
	int ret = 0;
	for (size_t i = 0, j; i < k && !ret; i = j) {
		for (j = i + 1; j < k && t->recs[idx[j]].tid == t->recs[idx[i]].tid; j++)
			;
		ret = replay_stream_deps(t, idx + i, j - i, a->dep, a->sprev);
	}
	free(idx);
	return ret;
}

/* A sleep tied to a request issued before the thread last woke. */
struct tie {
	uint32_t tid;
	uint64_t t_ns, slept_ns; /* trace times */
	size_t rec;
};

/* The index of thread @tid in @s, or SIZE_MAX. */
static size_t thread_index(const struct ts_wakes *s, uint32_t tid)
{
	const struct ts_wakes_thread *th = ts_wakes_thread_of(s, tid);
	return th ? (size_t)(th - s->threads) : SIZE_MAX;
}

/* How many completions inside a sleep tie_sleeps() looks through for the
 * sleeper's own request: more than the requests several threads have in
 * flight at once (assumed; a loader's workers each wait on one). */
#define TIE_LOOK_BACK 64

/*
 * Block mode: every request reaches tierfs from a kernel thread (the loop
 * device's worker), and the command's threads wait for them in the page
 * cache, asleep in state D until a request's completion wakes them (a sleep
 * that something outside the command ended: ts_sleep). Each such sleep is
 * taken to have waited for a request that completed inside it (the
 * completion wakes the waiter; a sleep with no completion inside it waited
 * on something else and keeps its length): the latest one issued since
 * that thread last woke and not yet taken, else the latest (where two
 * threads wait at once, the other's may have completed last). A request
 * of the first kind is the thread's own demand (a read that missed the page cache, the
 * readahead the miss started): it moves to the thread's op list, as a
 * FUSE-mode trace would hold it, so the replay issues it after the thread's
 * own work. A request issued before (a readahead, another thread's read of
 * the same block) stays in its stream, and the thread waits for its
 * completion (@ties: a record with an edge to it). Requests no thread
 * waited for stay with the kernel thread's stream rule (rules.c), whose
 * dependencies are taken over the whole stream first (streams()). Of the
 * first @n records of a->t, at trace times (@mono: the trace's start).
 */
static int tie_sleeps(struct augmented *a, const struct ts_wakes *s, size_t n, uint64_t mono,
		      struct tie *ties, size_t *nties)
{
	struct ts_trace *t = &a->t;
	size_t *kc = malloc((n ? n : 1) * sizeof(*kc)), k = 0;
	uint64_t *woke = calloc(s->nthreads ? s->nthreads : 1, sizeof(*woke));
	bool *taken = calloc(n ? n : 1, sizeof(*taken));
	int ret = -ENOMEM;

	*nties = 0;
	if (!kc || !woke || !taken || (ret = streams(a, n)))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (replay_kernel_thread(t->cpu[i].pid, t->cpu[i].ppid))
			kc[k++] = i;
	qsort_r(kc, k, sizeof(*kc), replay_cmp_done, (void *)t);
	for (size_t i = 0; i < s->nthreads; i++)
		woke[i] = s->threads[i].start_ns;
	/* the sleeps and the wakes in time order: a thread last woke at the
	 * later of its last wake and its last sleep's end */
	for (size_t zi = 0, wi = 0; zi < s->nsleeps; zi++) {
		const struct ts_sleep *z = &s->sleeps[zi];
		for (; wi < s->nwakes && s->wakes[wi].t_ns <= z->since_ns; wi++) {
			size_t w = thread_index(s, s->wakes[wi].wakee);
			if (w != SIZE_MAX)
				woke[w] = TS_MAX(woke[w], s->wakes[wi].t_ns);
		}
		size_t th = thread_index(s, z->tid);
		if (th == SIZE_MAX || z->t_ns < mono)
			continue;
		uint64_t zt = z->t_ns - mono, since = z->since_ns - TS_MIN(z->since_ns, mono);
		uint64_t from = woke[th] - TS_MIN(woke[th], mono);
		woke[th] = TS_MAX(woke[th], z->t_ns);
		size_t lo = 0, hi = k; /* the last completion at or before zt */
		while (lo < hi) {
			size_t m = (lo + hi) / 2;
			const struct ts_trace_rec *r = &t->recs[kc[m]];
			if (TS_MAX(r->complete_ns, r->submit_ns) <= zt)
				lo = m + 1;
			else
				hi = m;
		}
		if (!lo)
			continue;
		size_t ri = kc[lo - 1];
		struct ts_trace_rec *r = &t->recs[ri];
		if (TS_MAX(r->complete_ns, r->submit_ns) < since)
			continue; /* done before it slept: not what it waited for */
		/* of the completions inside the sleep, latest first, the first
		 * request of its own not yet taken: where two threads wait at
		 * once, the other's may have completed last */
		for (size_t j = lo, seen = 0; j-- > 0 && seen < TIE_LOOK_BACK; seen++) {
			const struct ts_trace_rec *q = &t->recs[kc[j]];
			if (TS_MAX(q->complete_ns, q->submit_ns) < since)
				break;
			if (!taken[kc[j]] && q->submit_ns >= from) {
				ri = kc[j];
				r = &t->recs[ri];
				break;
			}
		}
		if (!taken[ri] && r->submit_ns >= from) {
			const struct ts_wakes_thread *w = &s->threads[th];
			taken[ri] = true;
			r->tid = z->tid;
			r->flags |= REC_F_MOVED;
			/* the reply's own timing stays; the sample is no
			 * longer the kernel thread's */
			t->cpu[ri] = (struct ts_trace_cpu){.sys_ns = t->cpu[ri].sys_ns,
							   .late_ns = t->cpu[ri].late_ns,
							   .pid = w->pid ? w->pid : w->tid};
			a->moved++;
		} else {
			ties[(*nties)++] =
			    (struct tie){.tid = z->tid, .t_ns = zt, .slept_ns = zt - since, .rec = ri};
		}
	}
	a->tied = *nties;
	ret = 0;
out:
	free(kc);
	free(woke);
	free(taken);
	return ret;
}

/* @t with a record per wake in @s and one per thread's start and end: the
 * span replay measures runs from the command's start (the wake file's first
 * thread) to its last thread's end; a wake record carries its edge, a start
 * record one to the thread that forked it. Requests done before the command
 * started, or issued after its last thread ended, are not the command's:
 * in block mode the mount reads the file system's superblock and journal
 * before it and the unmount writes after it; so are other processes'
 * (ours()). They are left out (counted in a->outside). When no request is the command's own (block mode), only
 * that is done.
 *
 * Why one long function: one pass per table of the capture (threads' span,
 * records, CPUs, sleeps tied to requests, wakes) filling the same augmented
 * trace, each pass reading what the one before found.
 */
int replay_augment(const struct ts_trace *t, const struct ts_wakes *s, struct augmented *a)
{
	uint64_t t0 = UINT64_MAX, mono = t->hdr.start_mono_ns;
	size_t n = t->nrecs,
	       extra = s->nwakes + s->nsleeps + s->nhandoffs + 2 * s->nthreads;

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
	a->t.issue = t->issue ? calloc(n + extra + 1, sizeof(*a->t.issue)) : NULL;
	a->t.nissue = 0;
	a->edge = malloc((n + extra + 1) * sizeof(*a->edge));
	a->waker_tid = calloc(n + extra + 1, sizeof(*a->waker_tid));
	if (!a->t.recs || (t->cpu && !a->t.cpu) || (t->issue && !a->t.issue) || !a->edge ||
	    !a->waker_tid) {
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
		if (t->issue && t->issue[i].set) {
			a->t.issue[n] = t->issue[i];
			a->t.nissue++;
		}
		a->t.recs[n++] = *r;
	}
	for (size_t i = 0; i < n + extra; i++)
		a->edge[i] = (struct wake_edge){.waker = SIZE_MAX, .rec = SIZE_MAX};
	/* Block mode: every request came from the kernel (the loop device's
	 * worker), none from the command's threads. The sleeps in which they
	 * waited for the device tie the requests to them (tie_sleeps()); with
	 * none tied (a wake file without them), the threads' records would pin
	 * the span to the recorded schedule, and the stream rule alone paces
	 * the replay. */
	bool own = false;
	for (size_t i = 0; i < n && !own; i++)
		own = ts_wakes_thread_of(s, a->t.recs[i].tid) != NULL;
	a->t.nrecs = n;
	struct tie *ties = NULL;
	size_t nties = 0;
	if (!own && n && a->t.cpu && s->nsleeps) {
		int ret = -ENOMEM;
		if (!(ties = malloc(s->nsleeps * sizeof(*ties))) ||
		    (ret = tie_sleeps(a, s, n, mono, ties, &nties))) {
			free(ties);
			replay_augmented_free(a);
			return ret;
		}
		a->nstream = n;
		own = a->moved > 0;
	}
	if (!n || !own) {
		/* ties without a moved request go unused: none is reported */
		a->tied = 0;
		free(ties);
		return 0;
	}
	struct ts_trace_rec w = {.op = TS_OP_GETATTR, .flags = TS_REC_F_NOTIER | REC_F_WAKE};
	for (size_t i = 0; i < s->nwakes; i++) {
		const struct ts_wake *k = &s->wakes[i];
		if (k->t_ns < mono || k->t_ns - mono < t0)
			continue;
		w.submit_ns = w.complete_ns = k->t_ns - mono;
		w.tid = k->wakee;
		a->edge[n] = (struct wake_edge){.waker = SIZE_MAX,
						.rec = SIZE_MAX,
						.t_ns = w.submit_ns,
						.slept_ns = k->t_ns - TS_MAX(k->since_ns, mono + t0)};
		a->waker_tid[n] = k->waker;
		a->t.recs[n++] = w;
	}
	/* hand-offs: a read that got bytes another thread wrote, without a
	 * sleep; a wake that slept nothing, whose waker is at the write: the
	 * read does not return, replayed, before the write is (rules.c) */
	for (size_t i = 0; i < s->nhandoffs; i++) {
		const struct ts_handoff *h = &s->handoffs[i];
		if (h->t_ns < mono || h->t_ns - mono < t0 || h->wrote_ns < mono)
			continue;
		w.submit_ns = w.complete_ns = h->t_ns - mono;
		w.tid = h->reader;
		a->edge[n] = (struct wake_edge){
		    .waker = SIZE_MAX, .rec = SIZE_MAX, .t_ns = h->wrote_ns - mono, .handoff = true};
		a->waker_tid[n] = h->writer;
		a->t.recs[n++] = w;
	}
	for (size_t i = 0; i < nties; i++) { /* waits on a request in flight */
		if (ties[i].t_ns < t0)
			continue;
		w.submit_ns = w.complete_ns = ties[i].t_ns;
		w.tid = ties[i].tid;
		a->edge[n] = (struct wake_edge){.waker = SIZE_MAX,
						.rec = ties[i].rec,
						.t_ns = w.submit_ns,
						.slept_ns = ties[i].slept_ns};
		a->t.recs[n++] = w;
	}
	free(ties);
	for (size_t i = 0; i < s->nthreads; i++) {
		const struct ts_wakes_thread *th = &s->threads[i];
		if (th->start_ns >= mono && th->start_ns - mono >= t0) {
			w.submit_ns = w.complete_ns = th->start_ns - mono;
			w.tid = th->tid;
			a->edge[n] = (struct wake_edge){
			    .waker = SIZE_MAX, .rec = SIZE_MAX, .t_ns = w.submit_ns, .start = true};
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

/* The edges' wakers as thread indices, once the threads are built; the
 * streams' dependencies taken before the moves. */
int replay_augment_resolve(struct augmented *a, struct rthreads *ps)
{
	for (size_t i = 0; i < a->t.nrecs; i++)
		if (a->waker_tid[i])
			a->edge[i].waker = rthread_of(ps, a->waker_tid[i]);
	ps->edge = a->edge;
	ps->cpu_cap = a->cpu_cap;
	if (!a->dep || !a->moved)
		return 0;
	size_t nr = a->t.nrecs ? a->t.nrecs : 1;
	if (!ps->dep && !(ps->dep = malloc(nr * sizeof(*ps->dep))))
		return -ENOMEM;
	if (!ps->sprev && !(ps->sprev = malloc(nr * sizeof(*ps->sprev))))
		return -ENOMEM;
	for (size_t i = 0; i < a->t.nrecs; i++) {
		ps->dep[i] = i < a->nstream ? a->dep[i] : SIZE_MAX;
		ps->sprev[i] = i < a->nstream ? a->sprev[i] : SIZE_MAX;
	}
	return 0;
}
