/*
 * replay.c — closed-loop trace replay in virtual time (through the tier
 * model) and in real time (against a directory). The rule is in replay.h.
 */
#include <dirent.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/files.h"
#include "core/heap.h"
#include "core/opt.h"
#include "core/units.h"
#include "replay.h"
#include "traces/tier_rule.h"
#include "traces/wakes.h"
#include "traces/stats.h"

/* ---- per-thread plans and the closed-loop rule ---- */

struct plan {
	uint32_t tid;
	const size_t *idx; /* record indices, in submit order */
	size_t n;
	uint64_t rec_end;   /* the thread's last recorded completion */
	uint32_t pid, ppid; /* its process and that one's parent; 0 = unknown */
};

struct plans {
	size_t *order; /* all records, grouped by thread, each in submit order */
	struct plan *p;
	size_t n;
	uint64_t t0;	/* the first recorded submit */
	size_t *by_end; /* plan indices by rec_end */
	uint64_t *ends; /* rec_end of by_end[i], ascending */
	size_t *anchor; /* per record of tid 0: the record it follows (below) */
	/* The wake rule (a wake file): per record, the thread whose wake
	 * it is (SIZE_MAX: none), when, and how long it had slept. */
	const struct wake_edge *edge;
	/* The CPU model (a wake file with the host's CPUs): the CPUs the
	 * application had; 0: off. */
	double cpu_cap;
};

struct wake_edge {
	size_t waker; /* plan index, SIZE_MAX = none */
	uint64_t t_ns, slept_ns;
	bool start; /* the thread's start: its parent forked it */
};

struct pair {
	uint32_t tid;
	size_t rank; /* position in submit order: keeps the sort stable */
	size_t idx;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static void plans_free(struct plans *ps)
{
	free(ps->order);
	free(ps->p);
	free(ps->by_end);
	free(ps->ends);
	free(ps->anchor);
	memset(ps, 0, sizeof(*ps));
}

static int plans_build(const struct ts_trace *t, struct plans *ps)
{
	size_t *ord = ts_trace_order(t);
	struct pair *pr = malloc((t->nrecs ? t->nrecs : 1) * sizeof(*pr));

	memset(ps, 0, sizeof(*ps));
	ps->order = malloc((t->nrecs ? t->nrecs : 1) * sizeof(*ps->order));
	ps->p = calloc(t->nrecs ? t->nrecs : 1, sizeof(*ps->p));
	ps->anchor = malloc((t->nrecs ? t->nrecs : 1) * sizeof(*ps->anchor));
	if (!ord || !pr || !ps->order || !ps->p || !ps->anchor) {
		free(ord);
		free(pr);
		plans_free(ps);
		return -ENOMEM;
	}
	for (size_t i = 0, last = SIZE_MAX; i < t->nrecs; i++) {
		pr[i] = (struct pair){.tid = t->recs[ord[i]].tid, .rank = i, .idx = ord[i]};
		ps->anchor[ord[i]] = last;
		if (t->recs[ord[i]].tid)
			last = ord[i];
	}
	ps->t0 = t->nrecs ? t->recs[ord[0]].submit_ns : 0;
	qsort(pr, t->nrecs, sizeof(*pr), cmp_pair);
	for (size_t i = 0; i < t->nrecs; i++) {
		ps->order[i] = pr[i].idx;
		if (!i || pr[i].tid != pr[i - 1].tid)
			ps->p[ps->n++] = (struct plan){.tid = pr[i].tid, .idx = &ps->order[i]};
		ps->p[ps->n - 1].n++;
	}
	free(ord);
	free(pr);
	/* the join rule (below) needs the threads in the order they ended */
	ps->by_end = malloc((ps->n ? ps->n : 1) * sizeof(*ps->by_end));
	ps->ends = malloc((ps->n ? ps->n : 1) * sizeof(*ps->ends));
	if (!ps->by_end || !ps->ends) {
		plans_free(ps);
		return -ENOMEM;
	}
	for (size_t k = 0; k < ps->n; k++) {
		struct plan *p = &ps->p[k];
		for (size_t i = 0; i < p->n; i++) {
			const struct ts_trace_rec *r = &t->recs[p->idx[i]];
			p->rec_end = TS_MAX(p->rec_end, TS_MAX(r->complete_ns, r->submit_ns));
			if (t->cpu && !p->pid && t->cpu[p->idx[i]].pid) {
				p->pid = t->cpu[p->idx[i]].pid;
				p->ppid = t->cpu[p->idx[i]].ppid;
			}
		}
		ps->by_end[k] = k;
	}
	for (size_t k = 1; k < ps->n; k++) { /* insertion sort: threads are few */
		size_t v = ps->by_end[k], j = k;
		for (; j && ps->p[ps->by_end[j - 1]].rec_end > ps->p[v].rec_end; j--)
			ps->by_end[j] = ps->by_end[j - 1];
		ps->by_end[j] = v;
	}
	for (size_t k = 0; k < ps->n; k++)
		ps->ends[k] = ps->p[ps->by_end[k]].rec_end;
	return 0;
}

/* Where one thread stands in its replay. */
struct cursor {
	const struct plan *p;
	size_t i;		 /* next op */
	uint64_t win_lo, win_hi; /* recorded window before op i (the join rule) */
	uint64_t next_issue;	 /* replay time of op i */
	uint64_t done_max;	 /* latest replayed completion so far */
	uint64_t rec_done_max;	 /* latest recorded completion so far */
	uint64_t think_ns;	 /* think time kept so far */
	uint64_t last_think;	 /* its last addition (the join rule may replace it) */
	uint64_t origin, t0;	 /* replay time of the recorded time t0 */
	uint64_t waited_ns;	 /* recorded waiting taken as elastic (wait_part) */
	uint64_t rec_woke;	 /* recorded end of its last pacing wait (or its start) */
	uint64_t closed_issue;	 /* next_issue by the closed loop, before any wake */
	/* the CPU model: before op i, cpu_demand ns on a CPU, then cpu_rest
	 * (its own sleeps, and the wait the wake rule bounds) */
	bool cpu_pending, on_cpu;
	uint64_t cpu_demand, cpu_rest;
	double cpu_left; /* on_cpu: demand not yet served */
};

static uint64_t scaled(uint64_t ns, double speed)
{
	return speed == 1.0 ? ns : (uint64_t)((double)ns / speed);
}

static void cursor_start(struct cursor *c, const struct plan *p, const struct ts_trace *t,
			 uint64_t t0, uint64_t base, double speed)
{
	memset(c, 0, sizeof(*c));
	c->p = p;
	c->origin = base;
	c->t0 = t0;
	c->rec_woke = t->recs[p->idx[0]].submit_ns;
	c->next_issue = base + scaled(t->recs[p->idx[0]].submit_ns - t0, speed);
	c->win_lo = 0;
	c->win_hi = t->recs[p->idx[0]].submit_ns;
	c->closed_issue = c->next_issue;
}

/*
 * The wait rule (traces/README.md). Between two requests of a thread, its
 * CPU samples say how long it was on a CPU or queued for one (work); the
 * rest of the gap it was off the CPU. Up to one FUSE round trip of that is
 * the requests' own delivery (the reply reaching the thread, the next
 * request reaching tierfs); beyond that the thread waited for something
 * else: another thread, a process, a timer. Work and the round trip keep
 * their durations; the waiting is elastic. A thread running late wakes at
 * the moment recorded (on the replay clock), as if whatever it waited for
 * kept its schedule, and never before its own work is done: a slower tier
 * is first absorbed by the waits, and only what they cannot absorb delays
 * the thread. A thread running early wakes at the moment recorded too when
 * the wait is longer than all the thread did since the end of its previous
 * such wait (it was paced by what it waited for: a consumer's steps);
 * otherwise it keeps the wait's duration (it was paced by itself, and what
 * it waited on, another thread of the same loader, may be early too). Off-CPU time of at most
 * two round trips is taken for delivery jitter (closed loop). Returns the
 * recorded wait, 0 = closed loop.
 */
static uint64_t wait_part(const struct ts_trace *t, const struct ts_replay_cfg *cfg, size_t a,
			  size_t b, uint64_t gap)
{
	uint64_t work, wait;
	if (cfg->closed_loop || !ts_trace_gap_split(t, a, b, gap, cfg->rt_ns, &work, &wait))
		return 0;
	return wait;
}

/* Op i was issued at @s and completed at @done (replay times): move on and
 * compute when op i+1 issues. Returns false when the thread is done. */
static bool cursor_advance(struct cursor *c, const struct ts_trace *t, uint64_t s, uint64_t done,
			   const struct ts_replay_cfg *cfg, double speed)
{
	const struct ts_trace_rec *r = &t->recs[c->p->idx[c->i]];
	uint64_t rdone = TS_MAX(r->complete_ns, r->submit_ns);

	c->done_max = TS_MAX(c->done_max, done);
	c->rec_done_max = c->i ? TS_MAX(c->rec_done_max, rdone) : rdone;
	if (++c->i == c->p->n)
		return false;
	const struct ts_trace_rec *nx = &t->recs[c->p->idx[c->i]];
	c->win_lo = c->rec_done_max + 1;
	c->win_hi = nx->submit_ns;
	if (nx->submit_ns >= c->rec_done_max) {
		uint64_t gap = nx->submit_ns - c->rec_done_max;
		gap -= TS_MIN(gap, cfg->think_less_ns);
		uint64_t think = cfg->no_think ? 0 : scaled(gap, speed);
		uint64_t wait = cfg->no_think
				    ? 0
				    : wait_part(t, cfg, c->p->idx[c->i - 1], c->p->idx[c->i], gap);
		c->next_issue = c->done_max + think;
		if (wait) {
			uint64_t wake = c->origin + scaled(nx->submit_ns - c->t0, speed);
			uint64_t worked = c->next_issue - scaled(wait, speed);
			/* the recorded time since it last woke from a wait that
			 * paced it: what it did between two such waits */
			uint64_t busy =
			    nx->submit_ns - wait - TS_MIN(c->rec_woke, nx->submit_ns - wait);
			if (wait > busy) { /* paced by what it waits for */
				c->next_issue = TS_MAX(worked, wake);
				c->rec_woke = nx->submit_ns;
			} else { /* paced by itself: the wait never grows */
				c->next_issue = TS_MAX(worked, TS_MIN(wake, c->next_issue));
			}
			c->waited_ns += wait;
			think = c->next_issue - c->done_max;
		}
		c->think_ns += think;
		c->last_think = think;
	} else { /* issued while an earlier op was in flight */
		c->next_issue =
		    s + (cfg->no_think ? 0 : scaled(nx->submit_ns - r->submit_ns, speed));
		c->win_hi = 0; /* in flight with its predecessor: no join */
		c->last_think = 0;
	}
	c->closed_issue = c->next_issue;
	return true;
}

/*
 * The join rule. Threads are independent, except that a thread which was
 * idle while another thread ended (its last op completed inside this
 * thread's think gap, or before this thread started) is taken to have
 * waited for it, as a parent waits for its workers, or the kernel releases
 * a file once its last user is done: the op then issues the recorded
 * distance after that thread's replayed end. Threads active at the same
 * time stay independent, so no other ordering between them is imposed.
 *
 * Where the CPU samples name the threads' processes, only a thread of the
 * same process, of its parent or of a child counts (a process waits for
 * its children, a child starts after its parent's work): the workers of one
 * loader, siblings, do not wait for each other's end.
 *
 * Finds the threads whose recorded end lies in [win_lo, win_hi]: indices
 * [*a, *b) of ps->by_end.
 */
static void join_range(const struct plans *ps, const struct cursor *c, size_t *a, size_t *b)
{
	size_t lo = 0, hi = ps->n;
	*a = *b = 0;
	if (c->win_hi < c->win_lo)
		return;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (ps->ends[m] < c->win_lo)
			lo = m + 1;
		else
			hi = m;
	}
	*a = lo;
	for (hi = ps->n; lo < hi;) {
		size_t m = (lo + hi) / 2;
		if (ps->ends[m] <= c->win_hi)
			lo = m + 1;
		else
			hi = m;
	}
	*b = lo;
}

/* Applies the join rule to c->next_issue, given each plan's replayed end
 * (@end[k], 0 = not ended yet): when the latest thread to end inside the
 * window ended after this thread's own last event (its previous completion,
 * or the trace start for its first op), that end is taken for what woke
 * the thread, and the op issues the recorded distance after its replayed
 * end. Returns false while that thread has not ended. */
static bool join_apply(const struct plans *ps, struct cursor *c, const uint64_t *end,
		       const struct ts_replay_cfg *cfg, double speed)
{
	size_t a, b;

	join_range(ps, c, &a, &b);
	for (size_t k = b; k-- > a;) {
		size_t j = ps->by_end[k];
		const struct plan *o = &ps->p[j];
		if (o == c->p)
			continue;
		if (o->pid && c->p->pid && o->pid != c->p->pid && o->ppid != c->p->pid &&
		    c->p->ppid != o->pid)
			continue; /* unrelated processes */
		if (c->i && ps->ends[k] < c->rec_done_max)
			break; /* its own completion came later: the closed loop rules */
		if (!end[j])
			return false;
		uint64_t gap = c->win_hi - ps->ends[k];
		gap -= TS_MIN(gap, cfg->think_less_ns);
		gap = cfg->no_think ? 0 : scaled(gap, speed);
		/* the closed-loop think time is replaced by this gap */
		c->think_ns -= TS_MIN(c->think_ns, c->last_think);
		c->think_ns += gap;
		c->last_think = gap;
		c->next_issue = end[j] + gap;
		break;
	}
	return true;
}

/*
 * Requests with thread id 0 come from the kernel itself, not from a thread
 * of the workload: the release after a close, the writeback of a mapped
 * file's dirty pages. Each follows what triggered it, so it issues the
 * recorded distance after the replayed issue of the workload request that
 * preceded it (in submit order). Returns false while that one has not been
 * issued (@issued[record] = 0).
 */
static bool anchor_apply(const struct plans *ps, const struct ts_trace *t, struct cursor *c,
			 const uint64_t *issued, const struct ts_replay_cfg *cfg, double speed)
{
	size_t me = c->p->idx[c->i], a = ps->anchor[me];

	if (a == SIZE_MAX)
		return true; /* before any workload request: its offset from the start */
	if (!issued[a])
		return false;
	uint64_t gap = t->recs[me].submit_ns - t->recs[a].submit_ns;
	c->next_issue = issued[a] + (cfg->no_think ? 0 : scaled(gap, speed));
	c->think_ns -= TS_MIN(c->think_ns, c->last_think); /* not think time */
	c->last_think = 0;
	return true;
}

/*
 * The wake rule (a wake file beside the trace, traces/wakes.h). Each
 * time a thread of the application was woken by another of its threads,
 * the thread's plan holds a record without IO at that moment (augment()),
 * which says: it slept from S and thread W woke it at T. In replay it does
 * its own work as recorded (the closed loop up to S), then sleeps until W,
 * in its own replay, has come to the point where it woke it: W's last
 * record at or before T, replayed, plus W's recorded distance from that
 * record to T (progress()). A worker that waits for the consumer to take
 * a batch follows the consumer's replayed steps, and the consumer that
 * waits for a batch follows the worker's replayed reads, whichever tier
 * is faster: the dependency is the one the kernel saw, not one inferred
 * from timing, as //TRACE (Mesnier et al., FAST 2007) infers it by
 * throttling and ARTC (Weiss et al., SOSP 2013) orders replay by the
 * resources the original run used. Sleeps that nothing in the
 * application ended (a timer, a device's interrupt, a FUSE reply) are the
 * thread's own pace and keep their length. With the wake rule on, the
 * wait rule and the join rule, which guess what the wake rule knows, are
 * off.
 */
static bool progress(const struct plans *ps, const struct ts_trace *t, size_t k, uint64_t w,
		     const uint64_t *issued, const uint64_t *completed, uint64_t origin,
		     double speed, uint64_t *at)
{
	const struct plan *p = &ps->p[k];
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (t->recs[p->idx[m]].submit_ns <= w)
			lo = m + 1;
		else
			hi = m;
	}
	if (!lo) { /* before its first record: on its recorded schedule */
		*at = origin + scaled(w - TS_MIN(w, ps->t0), speed);
		return true;
	}
	size_t j = p->idx[lo - 1];
	if (!issued[j])
		return false;
	const struct ts_trace_rec *r = &t->recs[j];
	uint64_t rc = TS_MAX(r->complete_ns, r->submit_ns);
	*at = w >= rc ? completed[j] + scaled(w - rc, speed)
		      : issued[j] + scaled(w - r->submit_ns, speed);
	return true;
}

static bool wake_apply(const struct plans *ps, const struct ts_trace *t, struct cursor *c,
		       const uint64_t *issued, const uint64_t *completed, double speed)
{
	const struct wake_edge *e = &ps->edge[c->p->idx[c->i]];
	uint64_t at;

	c->next_issue = c->closed_issue;
	if (e->waker == SIZE_MAX)
		return true;
	if (!completed) { /* the recording's own times */
		if (!e->start)
			c->waited_ns += e->slept_ns;
		return true;
	}
	if (!progress(ps, t, e->waker, e->t_ns, issued, completed, c->origin, speed, &at))
		return false;
	/* its own work done: the closed loop less the sleep, never before
	 * its previous completion (or its start); a thread that did not
	 * exist yet has no work before the fork */
	uint64_t floor = TS_MIN(c->i ? c->done_max : c->origin, c->closed_issue);
	uint64_t slept = scaled(e->slept_ns, speed);
	uint64_t worked = e->start ? floor
				   : TS_MAX(floor, c->closed_issue - TS_MIN(slept, c->closed_issue));
	c->next_issue = TS_MAX(worked, at);
	if (!e->start)
		c->waited_ns += e->slept_ns;
	return true;
}

/* When may c's next op issue? Sets c->next_issue; false = not known yet.
 * @completed: replayed completions (NULL: replaying the recording's own
 * times). */
static bool schedule(const struct plans *ps, const struct ts_trace *t, struct cursor *c,
		     const uint64_t *ended, const uint64_t *issued, const uint64_t *completed,
		     const struct ts_replay_cfg *cfg, double speed)
{
	if (c->p->tid == 0)
		return anchor_apply(ps, t, c, issued, cfg, speed);
	if (ps->edge)
		return wake_apply(ps, t, c, issued, completed, speed);
	return join_apply(ps, c, ended, cfg, speed);
}

static int lat_class(unsigned op)
{
	if (op == TS_OP_READ || op == TS_OP_MMAP_READ)
		return TS_REPLAY_READ;
	return op == TS_OP_WRITE ? TS_REPLAY_WRITE : TS_REPLAY_OTHER;
}

static uint64_t rec_bytes(const struct ts_trace_rec *r)
{
	return lat_class(r->op) != TS_REPLAY_OTHER && r->result > 0 ? (uint64_t)r->result : 0;
}

static void result_init(struct ts_replay_result *res, const char *what)
{
	memset(res, 0, sizeof(*res));
	snprintf(res->what, sizeof(res->what), "%s", what);
	for (unsigned i = 0; i < TS_ARRAY_SIZE(res->lat); i++)
		ts_hist_init(&res->lat[i]);
}

static void result_add(struct ts_replay_result *res, unsigned op, uint64_t lat, uint64_t bytes)
{
	res->ops++;
	res->bytes += bytes;
	res->io_ns += lat;
	ts_hist_add(&res->lat[TS_REPLAY_ALL], lat);
	ts_hist_add(&res->lat[lat_class(op)], lat);
}

/* ---- the wake file: wakes as records ---- */

/* A record of the wake rule: no IO, a moment in its thread's plan. */
#define REC_F_WAKE 0x8000

struct augmented {
	struct ts_trace t; /* the trace's own, with the wake records after them */
	struct wake_edge *edge;
	uint32_t *waker_tid; /* per record, until plans resolve it */
	double cpu_cap;
};

static void augmented_free(struct augmented *a)
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
static int augment(const struct ts_trace *t, const struct ts_wakes *s, struct augmented *a)
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
		augmented_free(a);
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

static size_t plan_of(const struct plans *ps, uint32_t tid)
{
	size_t lo = 0, hi = ps->n;
	while (lo < hi) { /* plans are in tid order */
		size_t m = (lo + hi) / 2;
		if (ps->p[m].tid < tid)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < ps->n && ps->p[lo].tid == tid ? lo : SIZE_MAX;
}

/* The edges' wakers as plan indices, once the plans are built. */
static void augment_resolve(struct augmented *a, struct plans *ps)
{
	for (size_t i = 0; i < a->t.nrecs; i++)
		if (a->waker_tid[i])
			a->edge[i].waker = plan_of(ps, a->waker_tid[i]);
	ps->edge = a->edge;
	ps->cpu_cap = a->cpu_cap;
}

int ts_replay_recorded(const struct ts_trace *t, struct ts_replay_result *res)
{
	return ts_replay_recorded_wakes(t, NULL, res);
}

int ts_replay_recorded_wakes(const struct ts_trace *tr, const struct ts_wakes *wakes,
			     struct ts_replay_result *res)
{
	struct augmented aug = {0};
	const struct ts_trace *t = tr;
	struct plans ps;
	int ret;

	if (wakes) {
		if ((ret = augment(tr, wakes, &aug)))
			return ret;
		t = &aug.t;
	}
	ret = plans_build(t, &ps);
	if (wakes && !ret)
		augment_resolve(&aug, &ps);
	/* the wait rule's split, for the waiting row (with a wake file, the
	 * wake rule's sleeps instead, as in ts_replay_virtual); times stay as
	 * recorded */
	struct ts_replay_cfg cfg = {
	    .speed = 1.0, .rt_ns = ts_trace_floor_ns(t), .closed_loop = wakes != NULL};
	uint64_t *ends = NULL, *issued = NULL;

	result_init(res, "recorded");
	if (ret) {
		augmented_free(&aug);
		return ret;
	}
	ends = calloc(ps.n ? ps.n : 1, sizeof(*ends));
	issued = calloc(t->nrecs ? t->nrecs : 1, sizeof(*issued));
	if (!ends || !issued) {
		free(ends);
		free(issued);
		plans_free(&ps);
		augmented_free(&aug);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nrecs; i++)
		issued[i] = t->recs[i].submit_ns - ps.t0 + 1;
	/* replay times are the recorded ones (from t0, +1 so none is 0): the
	 * think times come out on the same definitions as a replay's */
	for (size_t k = 0; k < ps.n; k++)
		ends[k] = ps.p[k].rec_end - ps.t0 + 1;
	uint64_t end = 0;
	for (size_t k = 0; k < ps.n; k++) {
		struct cursor c;
		cursor_start(&c, &ps.p[k], t, ps.t0, 1, 1.0);
		do {
			(void)schedule(&ps, t, &c, ends, issued, NULL, &cfg, 1.0);
			const struct ts_trace_rec *r = &t->recs[c.p->idx[c.i]];
			uint64_t done = TS_MAX(r->complete_ns, r->submit_ns);
			if (!(r->flags & REC_F_WAKE)) {
				result_add(res, r->op, done - r->submit_ns, rec_bytes(r));
				res->errors += r->result < 0;
			}
			end = TS_MAX(end, done);
			if (!cursor_advance(&c, t, r->submit_ns - ps.t0 + 1, done - ps.t0 + 1, &cfg,
					    1.0))
				break;
		} while (1);
		res->think_ns += c.think_ns;
		res->waited_ns += c.waited_ns;
	}
	res->total_ns = t->nrecs ? end - ps.t0 : 0;
	free(ends);
	free(issued);
	plans_free(&ps);
	augmented_free(&aug);
	return 0;
}

/*
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
struct cpu_server {
	double cap;		/* CPUs */
	struct cursor **job;	/* threads on a CPU or waiting for one */
	size_t n, size;
	uint64_t t;		/* when the shares were last taken */
};

static double cpu_rate(const struct cpu_server *cs)
{
	return (double)cs->n <= cs->cap ? 1.0 : cs->cap / (double)cs->n;
}

/* Serves every job up to @t. */
static void cpu_advance(struct cpu_server *cs, uint64_t t)
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
static uint64_t cpu_next(const struct cpu_server *cs)
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

static int cpu_add(struct cpu_server *cs, struct cursor *c, uint64_t t)
{
	if (cs->n == cs->size) {
		size_t z = cs->size ? cs->size * 2 : 16;
		struct cursor **j = realloc(cs->job, z * sizeof(*j));
		if (!j)
			return -ENOMEM;
		cs->job = j;
		cs->size = z;
	}
	cpu_advance(cs, t);
	c->on_cpu = true;
	c->cpu_left = (double)c->cpu_demand;
	cs->job[cs->n++] = c;
	return 0;
}

/* A job served by now (within half a nanosecond), removed; NULL: none. */
static struct cursor *cpu_take(struct cpu_server *cs)
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
static void cpu_gap(const struct plans *ps, const struct ts_trace *t, struct cursor *c,
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

/* ---- virtual time ---- */

/* Thread cursors wait in a min-heap (core/heap.h) by next issue time, ties
 * in thread order, so that the tier model sees submissions in time order. */
TS_WUR static int push(struct ts_heap *h, struct cursor *c, const struct plans *ps)
{
	return ts_heap_push(h, c->next_issue, (uint64_t)(c->p - ps->p), c);
}

/* Largest byte any data op touches, per file: the size the model and the
 * real-time setup take for it. */
static uint64_t *file_sizes(const struct ts_trace *t)
{
	uint64_t *sz = calloc((size_t)t->npaths + 1, sizeof(*sz));
	if (!sz)
		return NULL;
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct ts_trace_rec *r = &t->recs[i];
		if (lat_class(r->op) == TS_REPLAY_OTHER || r->file_id >= t->npaths)
			continue;
		uint64_t end = r->offset + r->length;
		if (end < r->offset)
			end = UINT64_MAX;
		sz[r->file_id] = TS_MAX(sz[r->file_id], end);
	}
	return sz;
}

int ts_replay_virtual(const struct ts_trace *tr, const struct ts_replay_cfg *cfg_in,
		      struct ts_replay_result *res, char *err, size_t errlen)
{
	struct ts_replay_cfg cfg_wake;
	const struct ts_replay_cfg *cfg = cfg_in;
	const struct ts_trace *t = tr;
	struct augmented aug = {0};
	uint64_t *completed = NULL; /* replayed completion per record */
	struct cpu_server cpu = {0};
	double speed = cfg->speed > 0 ? cfg->speed : 1.0;
	struct ts_tier *tier = NULL;
	struct plans ps;
	struct cursor *cur = NULL;
	struct ts_heap h = {0};
	struct cursor **parked = NULL;
	uint64_t *ended = NULL;	 /* replayed end per plan, 0 = running */
	uint64_t *issued = NULL; /* replayed issue per record, 0 = not yet */
	int ret;

	result_init(res, cfg->tier.profile ? cfg->tier.profile->name : "?");
	if (cfg->wakes) {
		if ((ret = augment(tr, cfg->wakes, &aug))) {
			snprintf(err, errlen, "out of memory");
			return ret;
		}
		t = &aug.t;
		cfg_wake = *cfg_in;
		cfg_wake.closed_loop = true; /* the wake rule knows what the wait rule guesses */
		cfg = &cfg_wake;
	}
	if ((ret = plans_build(t, &ps))) {
		snprintf(err, errlen, "out of memory");
		augmented_free(&aug);
		return ret;
	}
	if (cfg->wakes)
		augment_resolve(&aug, &ps);
	if (!cfg->cpu_model)
		ps.cpu_cap = 0;
	if ((ret = ts_tier_new(&cfg->tier, &tier, err, errlen)))
		goto out;
	ret = -ENOMEM;
	cur = calloc(ps.n ? ps.n : 1, sizeof(*cur));
	parked = calloc(ps.n ? ps.n : 1, sizeof(*parked));
	ended = calloc(ps.n ? ps.n : 1, sizeof(*ended));
	issued = calloc(t->nrecs ? t->nrecs : 1, sizeof(*issued));
	completed = calloc(t->nrecs ? t->nrecs : 1, sizeof(*completed));
	if (!cur || !parked || !ended || !issued || !completed ||
	    ts_heap_reserve(&h, ps.n ? ps.n : 1)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/* The virtual clock starts at 1 s, so that no time is ever 0. */
	const uint64_t base = TS_NS_PER_S;
	size_t nparked = 0;
	for (size_t k = 0; k < ps.n; k++) {
		cursor_start(&cur[k], &ps.p[k], t, ps.t0, base, speed);
		if (schedule(&ps, t, &cur[k], ended, issued, completed, cfg, speed)) {
			if ((ret = push(&h, &cur[k], &ps)))
				goto nomem;
		} else {
			parked[nparked++] = &cur[k];
		}
	}
	uint64_t end = base;
	cpu.cap = ps.cpu_cap;
	while (h.n || cpu.n) {
		/* the CPUs serve a thread before the next event: it goes on */
		uint64_t tc = cpu_next(&cpu);
		if (cpu.n && (!h.n || tc <= ts_heap_top(&h)->key)) {
			cpu_advance(&cpu, tc);
			for (struct cursor *c; (c = cpu_take(&cpu));) {
				c->cpu_pending = false;
				c->closed_issue = c->next_issue = tc + c->cpu_rest;
				c->think_ns += c->next_issue - c->done_max;
				c->last_think = c->next_issue - c->done_max;
				if (schedule(&ps, t, c, ended, issued, completed, cfg, speed)) {
					if ((ret = push(&h, c, &ps)))
						goto nomem;
				} else {
					parked[nparked++] = c;
				}
			}
			continue;
		}
		struct cursor *c = ts_heap_pop(&h).p;
		if (c->cpu_pending) { /* it wants a CPU now */
			if ((ret = cpu_add(&cpu, c, c->next_issue)))
				goto nomem;
			continue;
		}
		const struct ts_trace_rec *r = &t->recs[c->p->idx[c->i]];
		uint64_t s = c->next_issue, done;
		issued[c->p->idx[c->i]] = s;
		/* exactly the request tierfs makes (traces/tier_rule.h), with
		 * the file size it knew */
		struct ts_tier_req q = {
		    .file = r->flags & TS_REC_F_NOFILE ? 0 : r->file_id,
		    .off = r->offset,
		    .len = r->length,
		    .size = r->size,
		    .direct = (r->flags & TS_REC_F_DIRECT) != 0,
		};
		if ((r->flags & TS_REC_F_NOTIER) || !ts_tier_rule_req(r->op, &q)) {
			done = s + (TS_MAX(r->complete_ns, r->submit_ns) - r->submit_ns);
		} else {
			struct ts_tier_done d = {0};
			done = ts_tier_submit(tier, s, &q, &d);
			/* tierfs replies at the later of the model's time and the
			 * end of its own syscall, which the CPU sample times, and
			 * as late behind it as it was when recorded */
			const struct ts_trace_cpu *cs = t->cpu ? &t->cpu[c->p->idx[c->i]] : NULL;
			if (cs && cs->pid)
				done = TS_MAX(done, s + cs->sys_ns) + cs->late_ns;
			if (d.bound < TS_TIER_BOUND_NR)
				res->bound[d.bound]++;
			/* what tierfs drops from the model after the syscall */
			uint64_t off = r->offset, len = r->length;
			if (r->result == 0 && ts_tier_rule_forget(r->op, r->aux, &off, &len))
				ts_tier_forget(tier, r->file_id, off, len);
		}
		completed[c->p->idx[c->i]] = done;
		if (!(r->flags & REC_F_WAKE))
			result_add(res, r->op, done - s, rec_bytes(r));
		end = TS_MAX(end, done);
		if (cursor_advance(c, t, s, done, cfg, speed)) {
			uint64_t think = c->last_think;
			cpu_gap(&ps, t, c, cfg, speed);
			if (c->cpu_pending) { /* to the CPUs first */
				c->think_ns -= TS_MIN(c->think_ns, think);
				if ((ret = push(&h, c, &ps)))
					goto nomem;
			} else if (schedule(&ps, t, c, ended, issued, completed, cfg, speed)) {
				if ((ret = push(&h, c, &ps)))
					goto nomem;
			} else {
				parked[nparked++] = c;
			}
		} else {
			res->think_ns += c->think_ns;
			res->waited_ns += c->waited_ns;
			ended[c->p - ps.p] = TS_MAX(c->done_max, 1);
		}
		/* wake the threads waiting for an end or an issue */
		for (size_t k = 0; k < nparked;) {
			if (schedule(&ps, t, parked[k], ended, issued, completed, cfg, speed)) {
				if ((ret = push(&h, parked[k], &ps)))
					goto nomem;
				parked[k] = parked[--nparked];
			} else {
				k++;
			}
		}
		/* Threads whose recorded ends tie can wait on each other; let
		 * them go rather than stop. */
		if (!h.n && !cpu.n)
			while (nparked)
				if ((ret = push(&h, parked[--nparked], &ps)))
					goto nomem;
	}
	res->total_ns = end - base; /* from the first issue, which is at base */
	res->cpu_cap = ps.cpu_cap;
	ret = 0;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
out:
	free(cpu.job);
	ts_tier_free(tier);
	free(cur);
	ts_heap_free(&h);
	free(parked);
	free(ended);
	free(issued);
	free(completed);
	plans_free(&ps);
	augmented_free(&aug);
	return ret;
}

/* ---- real time ---- */

static bool writes(unsigned op)
{
	switch (op) {
	case TS_OP_WRITE:
	case TS_OP_CREATE:
	case TS_OP_UNLINK:
	case TS_OP_RENAME:
	case TS_OP_TRUNCATE:
	case TS_OP_FALLOCATE:
	case TS_OP_MKDIR:
	case TS_OP_RMDIR:
	case TS_OP_SYMLINK:
	case TS_OP_LINK:
	case TS_OP_MKNOD:
	case TS_OP_CHMOD:
	case TS_OP_CHOWN:
	case TS_OP_UTIMENS:
		return true;
	}
	return false;
}

/* DIR + trace path, refusing paths that climb out of DIR. */
static int join(char *buf, size_t n, const char *dir, const char *path)
{
	const char *p = path;
	while (*p) {
		while (*p == '/')
			p++;
		size_t l = strcspn(p, "/");
		if (l == 2 && p[0] == '.' && p[1] == '.')
			return -EPERM;
		p += l;
	}
	if ((size_t)snprintf(buf, n, "%s/%s", dir, path[0] == '/' ? path + 1 : path) >= n)
		return -ENAMETOOLONG;
	return 0;
}

/* The folders above @path (mkdir -p of its parent). */
static int mkdir_parent(const char *path)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = 0;
	return ts_mkdir_p(dir, 0755, NULL, 0);
}

/* Creates or extends the files the trace reads (those it does not create
 * itself first), sized from the trace. */
static int setup(const struct ts_trace *t, const struct ts_replay_cfg *cfg, char *err,
		 size_t errlen)
{
	uint64_t *sizes = file_sizes(t);
	/* 1 = the trace creates it, 2 = it does not, 3 = missing or short here */
	uint8_t *created = calloc((size_t)t->npaths + 1, 1);
	char path[PATH_MAX];
	uint64_t need_files = 0, need_bytes = 0, done_bytes = 0, done_files = 0;
	int ret = 0;
	char *buf = NULL;

	if (!sizes || !created) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < t->nrecs; i++) { /* first touch by create? */
		const struct ts_trace_rec *r = &t->recs[i];
		if (r->file_id < t->npaths && !created[r->file_id])
			created[r->file_id] = r->op == TS_OP_CREATE ? 1 : 2;
	}
	for (uint32_t f = 1; f < t->npaths; f++) {
		if (!sizes[f] || created[f] == 1)
			continue;
		if ((ret = join(path, sizeof(path), cfg->target, ts_trace_path(t, f)))) {
			snprintf(err, errlen, "trace path \"%s\": %s", ts_trace_path(t, f),
				 ret == -EPERM ? "leaves the target directory" : ts_strerror(ret));
			goto out;
		}
		struct stat st;
		bool found = !stat(path, &st);
		if (found && (uint64_t)st.st_size >= sizes[f])
			continue;
		if (!cfg->allow_writes) {
			char b[32];
			snprintf(err, errlen,
				 "%s: %s (the trace reads %s of it); rerun with --allow-writes to "
				 "create the files the trace needs",
				 path, found ? "too short" : "missing",
				 ts_fmt_size(b, sizeof(b), sizes[f]));
			ret = -EPERM;
			goto out;
		}
		created[f] = 3;
		need_files++;
		need_bytes += sizes[f];
	}
	if (!need_files)
		goto out;
	if (cfg->fill && !(buf = malloc(TS_MiB))) {
		ret = -ENOMEM;
		goto out;
	}
	if (buf)
		for (size_t i = 0; i < TS_MiB; i++)
			buf[i] = (char)(i * 2654435761u >> 24);
	uint64_t last = ts_now_ns();
	for (uint32_t f = 1; f < t->npaths; f++) {
		if (created[f] != 3)
			continue;
		join(path, sizeof(path), cfg->target, ts_trace_path(t, f));
		struct stat st;
		int fd = -1;
		if ((ret = mkdir_parent(path)) ||
		    (fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0) {
			ret = ret ? ret : -errno;
			snprintf(err, errlen, "%s: %s", path, ts_strerror(ret));
			goto out;
		}
		uint64_t off = fstat(fd, &st) ? 0 : (uint64_t)st.st_size;
		while (buf && off < sizes[f]) {
			size_t n = (size_t)TS_MIN(TS_MiB, sizes[f] - off);
			if ((ret = ts_pwrite_all(fd, buf, n, (off_t)off)))
				break;
			off += n;
			done_bytes += n;
			if (cfg->progress && ts_now_ns() - last > TS_NS_PER_S / 2) {
				last = ts_now_ns();
				char b1[32], b2[32];
				fprintf(cfg->progress,
					"setup: %" PRIu64 "/%" PRIu64 " files, %s of %s\n",
					done_files, need_files, ts_fmt_size(b1, 32, done_bytes),
					ts_fmt_size(b2, 32, need_bytes));
			}
		}
		if (!ret && ftruncate(fd, (off_t)sizes[f]))
			ret = -errno;
		if (close(fd) && !ret)
			ret = -errno;
		if (ret) {
			snprintf(err, errlen, "%s: %s", path, ts_strerror(ret));
			goto out;
		}
		done_files++;
	}
	if (cfg->progress) {
		char b[32];
		fprintf(cfg->progress, "setup: created %" PRIu64 " files (%s, %s) under %s\n",
			done_files, ts_fmt_size(b, 32, need_bytes), cfg->fill ? "filled" : "sparse",
			cfg->target);
	}
out:
	free(sizes);
	free(created);
	free(buf);
	return ret;
}

/* What the real-time workers share for the join rule. */
struct joins {
	const struct plans *ps;
	uint64_t *ended;  /* replayed end per plan (real clock), 0 = running */
	uint64_t *issued; /* replayed issue per record, 0 = not yet */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned waiting; /* threads in cond_wait */
};

struct worker {
	const struct ts_trace *t;
	const struct ts_replay_cfg *cfg;
	struct joins *j;
	const struct plan *p;
	uint64_t t0, base;
	double speed;
	struct ts_replay_result res; /* this thread's part */
	uint64_t end;
	int *fd; /* per file id, -1 = closed */
	char *buf;
	size_t buflen;
	pthread_t th;
};

static int fd_of(struct worker *w, uint32_t id, int *out)
{
	char path[PATH_MAX];
	if (id >= w->t->npaths || !id)
		return -EBADF;
	if (w->fd[id] >= 0) {
		*out = w->fd[id];
		return 0;
	}
	int r = join(path, sizeof(path), w->cfg->target, ts_trace_path(w->t, id));
	if (r)
		return r;
	int fd = open(path, (w->cfg->allow_writes ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0 && errno == EISDIR)
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*out = w->fd[id] = fd;
	return 0;
}

#define HELD INT64_MIN /* not reissued: the trace lacks what the syscall needs */

/* One op, as a syscall; returns bytes or 0, -errno, or HELD. */
static int64_t do_op(struct worker *w, const struct ts_trace_rec *r)
{
	char path[PATH_MAX], path2[PATH_MAX];
	int fd, e;
	int64_t n = 0;

	switch (r->op) {
	case TS_OP_READ:
	case TS_OP_MMAP_READ:
	case TS_OP_WRITE:
		if ((e = fd_of(w, r->file_id, &fd)))
			return e;
		while ((uint64_t)n < r->length) {
			size_t len = (size_t)TS_MIN((uint64_t)w->buflen, r->length - (uint64_t)n);
			ssize_t k = r->op == TS_OP_WRITE
					? pwrite(fd, w->buf, len, (off_t)(r->offset + (uint64_t)n))
					: pread(fd, w->buf, len, (off_t)(r->offset + (uint64_t)n));
			if (k < 0)
				return -errno;
			if (k == 0)
				break;
			n += k;
		}
		return n;
	case TS_OP_OPEN:
		return fd_of(w, r->file_id, &fd);
	case TS_OP_FLUSH:
	case TS_OP_RELEASEDIR:
		return 0; /* nothing reaches the filesystem but a round trip */
	case TS_OP_CLOSE:
		if (r->file_id < w->t->npaths && w->fd[r->file_id] >= 0) {
			close(w->fd[r->file_id]);
			w->fd[r->file_id] = -1;
		}
		return 0;
	case TS_OP_FSYNC:
	case TS_OP_FDATASYNC:
		if ((e = fd_of(w, r->file_id, &fd)))
			return e;
		return (r->op == TS_OP_FSYNC ? fsync(fd) : fdatasync(fd)) ? -errno : 0;
	default:
		break;
	}
	if ((e = join(path, sizeof(path), w->cfg->target, ts_trace_path(w->t, r->file_id))))
		return e;
	switch (r->op) {
	case TS_OP_GETATTR: {
		struct stat st;
		return stat(path, &st) ? -errno : 0;
	}
	case TS_OP_ACCESS:
		return access(path, F_OK) ? -errno : 0;
	case TS_OP_STATFS: {
		struct statvfs sv;
		return statvfs(path, &sv) ? -errno : 0;
	}
	case TS_OP_READLINK:
		return readlink(path, path2, sizeof(path2)) < 0 ? -errno : 0;
	case TS_OP_OPENDIR:
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		close(fd);
		return 0;
	case TS_OP_READDIR: {
		DIR *d = opendir(path);
		if (!d)
			return -errno;
		while (readdir(d))
			n++;
		closedir(d);
		return 0;
	}
	case TS_OP_CREATE:
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		if (r->file_id < w->t->npaths) {
			if (w->fd[r->file_id] >= 0)
				close(w->fd[r->file_id]);
			w->fd[r->file_id] = fd;
		} else {
			close(fd);
		}
		return 0;
	case TS_OP_UNLINK:
		return unlink(path) ? -errno : 0;
	case TS_OP_MKDIR:
		return mkdir(path, 0755) ? -errno : 0;
	case TS_OP_RMDIR:
		return rmdir(path) ? -errno : 0;
	case TS_OP_TRUNCATE:
		return truncate(path, (off_t)r->offset) ? -errno : 0;
	case TS_OP_RENAME:
		if (!r->aux)
			return HELD;
		if ((e = join(path2, sizeof(path2), w->cfg->target, ts_trace_path(w->t, r->aux))))
			return e;
		return rename(path, path2) ? -errno : 0;
	case TS_OP_FALLOCATE:
		if ((e = fd_of(w, r->file_id, &fd)))
			return e;
		return fallocate(fd, (int)r->aux, (off_t)r->offset, (off_t)r->length) ? -errno : 0;
	}
	if (r->op == TS_OP_LINK && r->aux) {
		if ((e = join(path2, sizeof(path2), w->cfg->target, ts_trace_path(w->t, r->aux))))
			return e;
		return link(path, path2) ? -errno : 0;
	}
	/* symlink, link, mknod, chmod, chown, utimens: the trace has no
	 * target, mode, owner or times to reissue them with */
	return HELD;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct cursor c;

	/* sleeps end on time, not up to 50 us late (the default slack) */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	cursor_start(&c, w->p, w->t, w->t0, w->base, w->speed);
	do {
		const struct ts_trace_rec *r = &w->t->recs[c.p->idx[c.i]];
		uint64_t own = c.next_issue;
		pthread_mutex_lock(&w->j->lock);
		while (c.next_issue = own,
		       !schedule(w->j->ps, w->t, &c, w->j->ended, w->j->issued, NULL, w->cfg, w->speed)) {
			w->j->waiting++;
			pthread_cond_wait(&w->j->cond, &w->j->lock);
			w->j->waiting--;
		}
		pthread_mutex_unlock(&w->j->lock);
		ts_sleep_until_ns(c.next_issue);
		uint64_t s = ts_now_ns();
		pthread_mutex_lock(&w->j->lock);
		w->j->issued[c.p->idx[c.i]] = s;
		if (w->j->waiting)
			pthread_cond_broadcast(&w->j->cond);
		pthread_mutex_unlock(&w->j->lock);
		int64_t got = do_op(w, r);
		if (got == HELD) { /* keep its place in time, as recorded */
			ts_sleep_until_ns(s +
					  (TS_MAX(r->complete_ns, r->submit_ns) - r->submit_ns));
			w->res.held++;
			got = r->result < 0 ? r->result : 0;
		}
		uint64_t done = ts_now_ns();
		/* an op that failed although the recording succeeded (or the
		 * other way round) is a replay error */
		if ((got < 0) != (r->result < 0))
			w->res.errors++;
		result_add(&w->res, r->op, done - s, got > 0 ? (uint64_t)got : 0);
		w->end = TS_MAX(w->end, done);
		if (!cursor_advance(&c, w->t, s, done, w->cfg, w->speed))
			break;
	} while (1);
	w->res.think_ns = c.think_ns;
	w->res.waited_ns = c.waited_ns;
	pthread_mutex_lock(&w->j->lock);
	w->j->ended[w->p - w->j->ps->p] = TS_MAX(c.done_max, 1);
	pthread_cond_broadcast(&w->j->cond);
	pthread_mutex_unlock(&w->j->lock);
	return NULL;
}

int ts_replay_real(const struct ts_trace *t, const struct ts_replay_cfg *cfg,
		   struct ts_replay_result *res, char *err, size_t errlen)
{
	double speed = cfg->speed > 0 ? cfg->speed : 1.0;
	struct plans ps;
	struct worker *w = NULL;
	size_t started = 0;
	int ret;

	result_init(res, cfg->target);
	struct stat tst;
	if (stat(cfg->target, &tst) || !S_ISDIR(tst.st_mode)) {
		/* Never create it: a mistyped mount point would replay onto
		 * whatever disk holds its parent, and report that as measured. */
		ret = stat(cfg->target, &tst) ? -errno : -ENOTDIR;
		snprintf(err, errlen, "--target %s: %s (give an existing directory, e.g. a "
				      "tierfs mount)", cfg->target, ts_strerror(ret));
		return ret;
	}
	if (!cfg->allow_writes) {
		for (size_t i = 0; i < t->nrecs; i++) {
			if (writes(t->recs[i].op)) {
				snprintf(err, errlen,
					 "the trace has %s ops (the first at record %zu, on %s); "
					 "replaying them writes into %s: rerun with --allow-writes",
					 ts_trace_op_name(t->recs[i].op), i,
					 ts_trace_path(t, t->recs[i].file_id), cfg->target);
				return -EPERM;
			}
		}
	}
	if ((ret = setup(t, cfg, err, errlen)))
		return ret;
	if ((ret = plans_build(t, &ps))) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	uint64_t maxlen = 4096;
	for (size_t i = 0; i < t->nrecs; i++)
		if (lat_class(t->recs[i].op) != TS_REPLAY_OTHER)
			maxlen = TS_MAX(maxlen, t->recs[i].length);
	maxlen = TS_MIN(maxlen, 16 * TS_MiB);
	struct joins j = {.ps = &ps};
	pthread_mutex_init(&j.lock, NULL);
	pthread_cond_init(&j.cond, NULL);
	w = calloc(ps.n ? ps.n : 1, sizeof(*w));
	j.ended = calloc(ps.n ? ps.n : 1, sizeof(*j.ended));
	j.issued = calloc(t->nrecs ? t->nrecs : 1, sizeof(*j.issued));
	if (!w || !j.ended || !j.issued) {
		ret = -ENOMEM;
		goto out;
	}
	/* Start everyone 20 ms from now: thread creation stays out of the run. */
	uint64_t base = ts_now_ns() + 20 * TS_NS_PER_MS;
	for (size_t k = 0; k < ps.n; k++) {
		w[k] = (struct worker){.t = t,
				       .cfg = cfg,
				       .j = &j,
				       .p = &ps.p[k],
				       .t0 = ps.t0,
				       .base = base,
				       .speed = speed,
				       .buflen = (size_t)maxlen};
		result_init(&w[k].res, "");
		w[k].fd = malloc(((size_t)t->npaths + 1) * sizeof(int));
		w[k].buf = aligned_alloc(4096, (size_t)maxlen);
		if (!w[k].fd || !w[k].buf) {
			ret = -ENOMEM;
			goto out;
		}
		memset(w[k].buf, 0x5a, (size_t)maxlen);
		for (uint32_t f = 0; f <= t->npaths; f++)
			w[k].fd[f] = -1;
	}
	for (; started < ps.n; started++) {
		if ((ret = -pthread_create(&w[started].th, NULL, worker_main, &w[started])))
			break;
	}
	if (ret) { /* the threads that never started end now for the others */
		pthread_mutex_lock(&j.lock);
		for (size_t k = started; k < ps.n; k++) {
			j.ended[k] = 1;
			for (size_t i = 0; i < ps.p[k].n; i++)
				j.issued[ps.p[k].idx[i]] = 1;
		}
		pthread_cond_broadcast(&j.cond);
		pthread_mutex_unlock(&j.lock);
	}
	uint64_t end = base;
	for (size_t k = 0; k < started; k++) {
		pthread_join(w[k].th, NULL);
		struct ts_replay_result *r = &w[k].res;
		res->ops += r->ops;
		res->bytes += r->bytes;
		res->io_ns += r->io_ns;
		res->think_ns += r->think_ns;
		res->waited_ns += r->waited_ns;
		res->errors += r->errors;
		res->held += r->held;
		for (unsigned i = 0; i < TS_ARRAY_SIZE(res->lat); i++)
			ts_hist_merge(&res->lat[i], &r->lat[i]);
		end = TS_MAX(end, w[k].end);
	}
	if (ret)
		snprintf(err, errlen, "starting a replay thread: %s", ts_strerror(ret));
	/* from the first issue: the earliest thread starts at base */
	res->total_ns = end - base;
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	for (size_t k = 0; w && k < ps.n; k++) {
		for (uint32_t f = 0; w[k].fd && f <= t->npaths; f++)
			if (w[k].fd[f] >= 0)
				close(w[k].fd[f]);
		free(w[k].fd);
		free(w[k].buf);
	}
	free(w);
	free(j.ended);
	free(j.issued);
	pthread_mutex_destroy(&j.lock);
	pthread_cond_destroy(&j.cond);
	plans_free(&ps);
	return ret;
}

/* ---- reports ---- */

int ts_replay_wakes_beside(const char *trace, struct ts_wakes *s, char *err, size_t errlen)
{
	char path[4096];
	if ((size_t)snprintf(path, sizeof(path), "%s.wakes", trace) >= sizeof(path) ||
	    access(path, F_OK))
		return 0;
	int e = ts_wakes_read(path, s, err, errlen);
	return e ? e : 1;
}

void ts_replay_tier_recorded(const struct ts_trace *t, struct ts_tier_cfg *cfg)
{
	char buf[sizeof(t->hdr.mount_opts)], err[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", t->hdr.mount_opts);
	for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq)
			continue;
		*eq = 0;
		if (ts_opt_find(ts_tier_cfg_opts, kv))
			(void)!ts_opt_set(ts_tier_cfg_opts, cfg, kv, eq + 1, err, sizeof(err));
	}
	if (t->hdr.capacity)
		cfg->capacity = t->hdr.capacity;
	if (t->hdr.mem)
		cfg->mem = t->hdr.mem;
}

void ts_replay_print(FILE *f, const struct ts_replay_result *res, size_t n)
{
	char b[32];

	fprintf(f, "%-18s", "");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %16.16s", res[i].what);
	fputc('\n', f);
#define ROW(label, expr)                                                                           \
	do {                                                                                       \
		fprintf(f, "%-18s", label);                                                        \
		for (size_t i = 0; i < n; i++) {                                                   \
			const struct ts_replay_result *r = &res[i];                                \
			fprintf(f, " %16s", (expr));                                               \
		}                                                                                  \
		fputc('\n', f);                                                                    \
	} while (0)
	ROW("total time", ts_fmt_duration(b, 32, r->total_ns));
	ROW("ops", (snprintf(b, 32, "%" PRIu64, r->ops), b));
	ROW("IOPS", (snprintf(b, 32, "%.0f", r->total_ns ? r->ops / (r->total_ns / 1e9) : 0.0), b));
	ROW("MB/s", (snprintf(b, 32, "%.1f",
			      r->total_ns ? (double)r->bytes / 1e6 / (r->total_ns / 1e9) : 0.0),
		     b));
	ROW("IO wait (sum)", ts_fmt_duration(b, 32, r->io_ns));
	ROW("think (sum)", ts_fmt_duration(b, 32, r->think_ns));
	bool waited = false;
	for (size_t i = 0; i < n; i++)
		waited |= res[i].waited_ns > 0;
	if (waited)
		ROW("  waiting (rec.)", ts_fmt_duration(b, 32, r->waited_ns));
	static const struct {
		const char *label;
		int cls;
		double p;
	} pcts[] = {
	    {"lat p50", TS_REPLAY_ALL, 50},	{"lat p90", TS_REPLAY_ALL, 90},
	    {"lat p99", TS_REPLAY_ALL, 99},	{"lat p99.9", TS_REPLAY_ALL, 99.9},
	    {"read p50", TS_REPLAY_READ, 50},	{"read p99", TS_REPLAY_READ, 99},
	    {"write p50", TS_REPLAY_WRITE, 50}, {"write p99", TS_REPLAY_WRITE, 99},
	};
	for (size_t k = 0; k < TS_ARRAY_SIZE(pcts); k++) {
		bool any = false;
		for (size_t i = 0; i < n; i++)
			any |= res[i].lat[pcts[k].cls].count > 0;
		if (any)
			ROW(pcts[k].label,
			    r->lat[pcts[k].cls].count
				? ts_fmt_duration(
				      b, 32, ts_hist_percentile(&r->lat[pcts[k].cls], pcts[k].p))
				: "-");
	}
	ROW("lat max", ts_fmt_duration(b, 32, r->lat[TS_REPLAY_ALL].max));
	ROW("errors", (snprintf(b, 32, "%" PRIu64, r->errors), b));
	bool held = false;
	for (size_t i = 0; i < n; i++)
		held |= res[i].held > 0;
	if (held)
		ROW("held (not reissued)", (snprintf(b, 32, "%" PRIu64, r->held), b));
	if (n > 1 && !strcmp(res[0].what, "recorded"))
		ROW("vs recorded",
		    (snprintf(b, 32, "%+.2f%%",
			      res[0].total_ns
				  ? 100.0 * ((double)r->total_ns - (double)res[0].total_ns) /
					(double)res[0].total_ns
				  : 0.0),
		     b));
#undef ROW
}

static json_t *hist_json(const struct ts_hist *h)
{
	return json_pack("{sI sf sI sI sI sI sI}", "count", (json_int_t)h->count, "mean_ns",
			 ts_hist_mean(h), "p50_ns", (json_int_t)ts_hist_percentile(h, 50), "p90_ns",
			 (json_int_t)ts_hist_percentile(h, 90), "p99_ns",
			 (json_int_t)ts_hist_percentile(h, 99), "p99_9_ns",
			 (json_int_t)ts_hist_percentile(h, 99.9), "max_ns", (json_int_t)h->max);
}

json_t *ts_replay_json(const struct ts_replay_result *res, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++) {
		const struct ts_replay_result *r = &res[i];
		json_t *bound = json_object();
		for (unsigned b = 0; b < TS_TIER_BOUND_NR; b++)
			if (r->bound[b])
				json_object_set_new(bound,
						    ts_tier_bound_name((enum ts_tier_bound)b),
						    json_integer((json_int_t)r->bound[b]));
		json_array_append_new(
		    a, json_pack("{ss sI sI sI sI sI sI sI sI so so so so so}", "what", r->what,
				 "held", (json_int_t)r->held, "total_ns", (json_int_t)r->total_ns,
				 "ops", (json_int_t)r->ops, "bytes", (json_int_t)r->bytes,
				 "io_wait_ns", (json_int_t)r->io_ns, "think_ns",
				 (json_int_t)r->think_ns, "waited_ns", (json_int_t)r->waited_ns,
				 "errors", (json_int_t)r->errors, "latency",
				 hist_json(&r->lat[TS_REPLAY_ALL]), "read",
				 hist_json(&r->lat[TS_REPLAY_READ]), "write",
				 hist_json(&r->lat[TS_REPLAY_WRITE]), "other",
				 hist_json(&r->lat[TS_REPLAY_OTHER]), "bound", bound));
		if (r->cpu_cap > 0) /* the CPU model's CPUs */
			json_object_set_new(json_array_get(a, json_array_size(a) - 1), "cpu_cap",
					    json_real(r->cpu_cap));
	}
	return a;
}
