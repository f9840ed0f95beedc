/*
 * rules.c — when a replayed thread issues its next op: the per-thread
 * threads' op lists, and the closed-loop, wait, join, anchor and wake rules (replay.h
 * states them; each is written out above its code). Both clocks and the
 * recording's own figures run these.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/heap.h"
#include "core/units.h"
#include "traces/replay/replay_int.h"
#include "traces/tier_rule.h"

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

void replay_rthreads_free(struct rthreads *ps)
{
	free(ps->order);
	free(ps->p);
	free(ps->by_end);
	free(ps->ends);
	free(ps->anchor);
	free(ps->dep);
	free(ps->sprev);
	free(ps->rel);
	free(ps->rel_m);
	free(ps->rel_lo);
	free(ps->pauses);
	memset(ps, 0, sizeof(*ps));
}

/* By thread, then when it began (one thread's pauses never overlap). */
static int cmp_pause(const void *a, const void *b)
{
	const struct ts_sleep *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->since_ns < y->since_ns ? -1 : x->since_ns > y->since_ns;
}

int replay_rthreads_pauses(struct rthreads *ps, const struct ts_wakes *s)
{
	if (!s || !s->npauses)
		return 0;
	free(ps->pauses);
	ps->pauses = malloc(s->npauses * sizeof(*ps->pauses));
	if (!ps->pauses)
		return -ENOMEM;
	memcpy(ps->pauses, s->pauses, s->npauses * sizeof(*ps->pauses));
	qsort(ps->pauses, s->npauses, sizeof(*ps->pauses), cmp_pause);
	for (size_t k = 0; k < ps->n; k++) {
		struct rthread *p = &ps->p[k];
		size_t lo = 0, hi = s->npauses;
		while (lo < hi) { /* its first */
			size_t m = lo + (hi - lo) / 2;
			if (ps->pauses[m].tid < p->tid)
				lo = m + 1;
			else
				hi = m;
		}
		p->pause = &ps->pauses[lo];
		for (hi = lo; hi < s->npauses && ps->pauses[hi].tid == p->tid; hi++)
			;
		p->npause = hi - lo;
	}
	return 0;
}

/*
 * The command's exit: once every other thread of the command has ended
 * (and its own last request completed), the command's own thread only
 * winds down: an interpreter's shutdown, a library's teardown, on a CPU
 * and waiting on nothing. No tier changes it, yet it is a run's own: in
 * bench/pytorch_replay.sh's recordings a PyTorch loader's main thread
 * ran 182-274 ms alone after its workers had gone, with no sleep in it,
 * by the host's speed of the moment (traces/README.md). The span's part
 * after that point; 0 without a wake file, with no other thread, or when
 * the command's thread ends first. @ends: each thread's end (ps order),
 * @done: each record's completion, on one clock.
 */
uint64_t replay_trail_ns(const struct rthreads *ps, const struct ts_trace *t,
			 const struct ts_wakes *w, const uint64_t *ends, const uint64_t *done)
{
	if (!w)
		return 0;
	uint32_t root = ts_wakes_root(w); /* forked by no listed thread */
	size_t me = SIZE_MAX;
	uint64_t others = 0;
	bool other = false;
	for (size_t k = 0; k < ps->n; k++) {
		if (ps->p[k].tid == root && root) {
			me = k;
			continue;
		}
		/* a thread of the command's (not the kernel's) */
		if (ts_wakes_thread_of(w, ps->p[k].tid)) {
			others = TS_MAX(others, ends[k]);
			other = true;
		}
	}
	if (me == SIZE_MAX || !other)
		return 0;
	const struct rthread *p = &ps->p[me];
	for (size_t i = p->n; i-- > 0;) /* its own last request */
		if (!(t->recs[p->idx[i]].flags & REC_F_WAKE)) {
			others = TS_MAX(others, done[p->idx[i]]);
			break;
		}
	return ends[me] > others ? ends[me] - others : 0;
}

/*
 * The stream rule. A thread of the kernel (its parent is kthreadd, pid 2
 * on Linux) issues requests on the application's behalf: in block mode the
 * loop device's worker sends tierfs what the file system's readahead and
 * page faults ask for. Its time off the CPU between requests is not a wait
 * of its own that a slower tier could absorb: it waited for the
 * application, and the application, reading through the page cache, waited
 * for the device. So each request follows the most recent event before it
 * in the stream: a completion (a window arrived, the reader consumed it and
 * asked for the next: it issues the recorded distance after that
 * completion, replayed), or, when nothing completed since, its
 * predecessor's issue (one readahead split into several requests, a batch
 * of faults: the recorded spacing). This is the timing inference of
 * //TRACE and ARTC (rules below) applied where the kernel hides the
 * dependency; bench/pytorch_replay.sh with TS_FS=ext4 measures it against
 * real runs, and tests/traces/replay.sh ("stream:") checks it exactly.
 * With the command's IO sleeps in the wake file, the requests a thread of
 * the command waited for move to that thread (replay_augment()); the rest
 * follow their stream as recorded, moved requests included (ps->sprev).
 */
int replay_cmp_done(const void *a, const void *b, void *ctx)
{
	const struct ts_trace *t = ctx;
	const struct ts_trace_rec *x = &t->recs[*(const size_t *)a],
				  *y = &t->recs[*(const size_t *)b];
	uint64_t cx = TS_MAX(x->complete_ns, x->submit_ns),
		 cy = TS_MAX(y->complete_ns, y->submit_ns);
	return cx < cy ? -1 : cx > cy;
}

int replay_stream_deps(const struct ts_trace *t, const size_t *idx, size_t n, size_t *dep,
		       size_t *prev)
{
	if (!n)
		return 0;
	size_t *by_done = malloc(n * sizeof(*by_done));
	if (!by_done)
		return -ENOMEM;
	memcpy(by_done, idx, n * sizeof(*by_done));
	qsort_r(by_done, n, sizeof(*by_done), replay_cmp_done, (void *)t);
	size_t c = 0, last = SIZE_MAX;
	for (size_t i = 1; i < n; i++) {
		const struct ts_trace_rec *r = &t->recs[idx[i]];
		const struct ts_trace_rec *pr = &t->recs[idx[i - 1]];
		prev[idx[i]] = idx[i - 1];
		for (; c < n; c++) {
			const struct ts_trace_rec *d = &t->recs[by_done[c]];
			if (TS_MAX(d->complete_ns, d->submit_ns) > r->submit_ns)
				break;
			last = by_done[c];
		}
		if (last != SIZE_MAX && last != idx[i] &&
		    TS_MAX(t->recs[last].complete_ns, t->recs[last].submit_ns) >= pr->submit_ns)
			dep[idx[i]] = last;
	}
	free(by_done);
	return 0;
}

/* ps->dep and ps->sprev for the records of kernel threads (the stream
 * rule): each kernel thread's requests are a stream. */
static int stream_deps(const struct ts_trace *t, struct rthreads *ps)
{
	bool any = false;
	for (size_t k = 0; k < ps->n; k++) {
		if (t->cpu && !ps->p[k].pid) /* a sample later in the list names it */
			continue;
		ps->p[k].kernel = replay_kernel_thread(ps->p[k].pid, ps->p[k].ppid);
		any |= ps->p[k].kernel;
	}
	if (!any)
		return 0;
	ps->dep = malloc(t->nrecs * sizeof(*ps->dep));
	ps->sprev = malloc(t->nrecs * sizeof(*ps->sprev));
	if (!ps->dep || !ps->sprev)
		return -ENOMEM;
	for (size_t i = 0; i < t->nrecs; i++)
		ps->dep[i] = ps->sprev[i] = SIZE_MAX;
	for (size_t k = 0; k < ps->n; k++)
		if (ps->p[k].kernel &&
		    replay_stream_deps(t, ps->p[k].idx, ps->p[k].n, ps->dep, ps->sprev))
			return -ENOMEM;
	return 0;
}

/*
 * The in-flight rule. A thread that issues a request while an earlier one
 * of its own is still in flight did not wait for that one: through FUSE
 * the kernel's readahead sends the next window in the reading thread's
 * name when the reader reaches the marker page of the window before, that
 * is once an earlier read's pages arrived and were consumed; a program
 * with several reads in flight (aio, io_uring, mmap's faults) sends the
 * next when one completes. So the request follows the most recent
 * completion of the thread's own requests before it was sent, recorded
 * after the thread's previous send: it issues the recorded distance after
 * that completion, replayed, never before its predecessor. Where nothing
 * completed since the previous send (a read and the readahead it
 * triggers, sent together; a batch), it keeps its recorded spacing from
 * the previous send, which is the thread's own time, not the device's. A
 * readahead stream recorded on a slow tier then runs at a fast tier's
 * pace, and one recorded on a fast tier is held back by a slow tier's
 * completions. In the LMDB cursor scan of bench/fs_fidelity.sh (one
 * thread, 128 KiB reads, two in flight) each read went out 0.1-0.2 ms
 * after the latest completion on both ssd-cloud and ultra-cloud, while
 * its distance from the previous send followed the tier (0.8 and 1.5 ms
 * medians). It is the stream rule (above) for a thread of the workload,
 * on the requests it sent while one was in flight; the closed loop
 * already issues the others after the latest completion.
 *
 * The completion that releases it is the recording's m-th among the
 * thread's requests in flight when it sent the previous one, and the
 * replay keeps the rank, not the identity: it issues after the m-th of
 * their replayed completions (replay_cursor_advance). The replay draws
 * each request's latency anew, so two reads in flight together may
 * complete in the other order; tied to the one that completed first in
 * the recording, a read would wait for the later of the pair half the
 * time and go out with nothing in flight, and never gain when the pair
 * keeps its order: the LMDB scan's reads on ssd-cloud lost a fifth of
 * their overlap (time with nothing in flight 54 to 81 ms) and the replay
 * ran 5-7% long. A thread with one request in flight is released by that
 * one, as before; more than INFLIGHT_SCAN ops back (a request long in
 * flight), it keeps the identity.
 * tests/traces/replay.sh ("in flight:") checks it exactly.
 */
#define INFLIGHT_SCAN 64

TS_WUR static int inflight_rel(const struct ts_trace *t, struct rthreads *ps)
{
	struct ts_heap h = {0}; /* the thread's requests in flight, by completion */
	size_t nr = t->nrecs ? t->nrecs : 1;
	/* per op: its completion came off the heap. The heap holds the
	 * thread's ops before i less those, so the oldest in flight is the
	 * first op not gone, which only moves on (oldest): a pass over the
	 * heap per op was quadratic in the ops in flight together. */
	bool *gone = calloc(nr, sizeof(*gone));

	ps->rel = malloc(nr * sizeof(*ps->rel));
	ps->rel_m = malloc(nr * sizeof(*ps->rel_m));
	ps->rel_lo = malloc(nr * sizeof(*ps->rel_lo));
	if (!gone || !ps->rel || !ps->rel_m || !ps->rel_lo) {
		free(gone);
		return -ENOMEM;
	}
	for (size_t k = 0; k < ps->n; k++) {
		struct rthread *p = &ps->p[k];
		size_t *rel = &ps->rel[p->idx - ps->order], last = SIZE_MAX;
		uint32_t *rel_m = &ps->rel_m[p->idx - ps->order];
		size_t *rel_lo = &ps->rel_lo[p->idx - ps->order];
		bool *out = &gone[p->idx - ps->order];
		uint64_t done_max = 0, prev = 0;
		size_t oldest = 0;
		h.n = 0;
		for (size_t i = 0; i < p->n; i++) {
			const struct ts_trace_rec *r = &t->recs[p->idx[i]];
			/* in flight when the previous one was sent: the oldest */
			size_t lo = SIZE_MAX, m = 0;
			while (oldest < i && out[oldest])
				oldest++;
			if (h.n)
				lo = oldest;
			/* the thread's latest completion before it was sent,
			 * the m-th of those */
			while (h.n && ts_heap_top(&h)->key <= r->submit_ns) {
				size_t g = ts_heap_pop(&h).tie;
				out[g] = true;
				last = p->idx[g];
				m++;
			}
			rel[i] = SIZE_MAX;
			rel_m[i] = 0;
			rel_lo[i] = 0;
			if (i && r->submit_ns < done_max && last != SIZE_MAX &&
			    TS_MAX(t->recs[last].complete_ns, t->recs[last].submit_ns) >= prev) {
				rel[i] = last;
				if (m && i - lo <= INFLIGHT_SCAN) {
					rel_m[i] = (uint32_t)m;
					rel_lo[i] = lo;
				}
			}
			uint64_t done = TS_MAX(r->complete_ns, r->submit_ns);
			if (ts_heap_push(&h, done, i, NULL)) {
				ts_heap_free(&h);
				free(gone);
				return -ENOMEM;
			}
			done_max = TS_MAX(done_max, done);
			prev = r->submit_ns;
		}
		p->rel = rel;
		p->rel_m = rel_m;
		p->rel_lo = rel_lo;
	}
	ts_heap_free(&h);
	free(gone);
	return 0;
}

int replay_rthreads_build(const struct ts_trace *t, struct rthreads *ps)
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
		replay_rthreads_free(ps);
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
			ps->p[ps->n++] = (struct rthread){.tid = pr[i].tid, .idx = &ps->order[i]};
		ps->p[ps->n - 1].n++;
	}
	free(ord);
	free(pr);
	/* the join rule (below) needs the threads in the order they ended */
	ps->by_end = malloc((ps->n ? ps->n : 1) * sizeof(*ps->by_end));
	ps->ends = malloc((ps->n ? ps->n : 1) * sizeof(*ps->ends));
	if (!ps->by_end || !ps->ends) {
		replay_rthreads_free(ps);
		return -ENOMEM;
	}
	for (size_t k = 0; k < ps->n; k++) {
		struct rthread *p = &ps->p[k];
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
	int ret = stream_deps(t, ps);
	if (!ret)
		ret = inflight_rel(t, ps);
	if (ret) {
		replay_rthreads_free(ps);
		return ret;
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

static uint64_t scaled(uint64_t ns, double speed)
{
	return speed == 1.0 ? ns : (uint64_t)((double)ns / speed);
}

void replay_cursor_start(struct cursor *c, const struct rthread *p, const struct ts_trace *t,
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
	c->closed_issue = c->own_issue = c->next_issue;
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

/*
 * The wake-up rule. In block mode a thread of the command sleeps in each
 * request it waits for (REC_F_MOVED), and the gap after the request, from
 * its completion at tierfs to the thread's next request reaching tierfs,
 * holds the wake-ups of three threads: the thread itself, the loop
 * device's worker and tierfs's. That gap grows with the sleep before it:
 * the same request of the same job (bench/wake_cost.sh's block-mode
 * recordings, bench/pytorch_replay.sh's) is followed by a longer gap on a
 * slower tier. How much longer is the recording host's own (its
 * virtualisation and kernel) and differs from host to host: a host
 * profile that measured it carries its fit as replay_wake_cost_ns
 * (pipeline/hosts.lua, with the measured gap growths in its label). Kept
 * as recorded, a fast tier's recording carries its short gaps onto a slow
 * tier, and a slow one's long gaps onto a fast tier. The gap after such a
 * request changes by @cfg->wake_cost_ns (--wake-cost, else that profile's)
 * times ln((t' + rt) / (t + rt)), t and t' the request's recorded and
 * replayed time at tierfs, rt the recording's round trip (the path's
 * delivery, which every sleep also holds), never below 0. The log is the
 * fit's form: the gap's growth per tier followed the log of the sleep,
 * not the sleep (traces/README.md). A trace without its round trip (none
 * measured: an imported or hand-made one) keeps its gaps.
 *
 * The memory-served rule. A FUSE-mode recording replayed as block mode
 * (kernel_fs) with a page cache: a read the recording's thread slept in
 * (the device's time and a round trip, with no page cache of tierfs's) may
 * be served from the replay's page cache, where the kernel copies it
 * without the thread ever sleeping (@mem). The gap after it then loses the
 * wake-up share its recorded sleep left there, by the same rule with t' =
 * 0: no time at tierfs (kernel_fs has already taken the round trip itself
 * off every gap). The cost is the recording host's, as above; its use on
 * FUSE-mode gaps, which hold two of block mode's three wake-ups (the
 * thread's and tierfs's), is checked by bench/block_memory.sh
 * (disk/README.md). Returns the gap.
 */
static uint64_t wake_up(const struct ts_replay_cfg *cfg, const struct ts_trace_rec *r,
			uint64_t s, uint64_t done, bool mem, uint64_t gap)
{
	bool served = cfg->kernel_fs && mem;
	if (!cfg->wake_cost_ns || !cfg->rt_ns || !((r->flags & REC_F_MOVED) || served))
		return gap;
	double rt = (double)cfg->rt_ns;
	double was = (double)(TS_MAX(r->complete_ns, r->submit_ns) - r->submit_ns) + rt;
	double now = (served ? 0.0 : (double)(done - TS_MIN(done, s))) + rt;
	double d = (double)cfg->wake_cost_ns * log(now / was);
	uint64_t by = (uint64_t)llround(fabs(d));
	return d >= 0 ? gap + by : gap - TS_MIN(gap, by);
}

/* What a loop device's recording (cfg->loop_recorded) had taken off
 * record @r's reply besides the floor and the hop: its size and window
 * parts (traces/tier_rule.h), which under kernel_fs come off the gap after
 * it; 0 for any other. */
static uint64_t loop_off(const struct ts_replay_cfg *cfg, const struct ts_trace_rec *r)
{
	if (!cfg->loop_recorded || (r->flags & TS_REC_F_NOTIER))
		return 0;
	return ts_tier_rule_loop_off(cfg->loop_size_ns, cfg->loop_window_ns,
				     ts_tier_rule_op(r->op), r->length);
}

/*
 * The reply's size part. A FUSE-mode recording replayed as block mode
 * (kernel_fs): every gap loses the recording's round trip, its measured
 * floor, which is a 4 KiB direct read's (fs/calib.c). A larger read's
 * reply takes longer to deliver: the kernel copies its bytes from
 * tierfs's reply into the pages it reads into (the page cache's for a
 * file the kernel caches, the caller's buffer for a direct one) before
 * it ends the request, after tierfs stamped the read's completion, so
 * the gap after the read holds that copy too, which a kernel file system
 * does not make. So the gap after read @r (the thread waited on it last,
 * or it released the thread's next request) loses cfg->fuse_size_ns
 * for each 124 KiB the read was past 4 KiB, in proportion
 * (ts_tier_rule_loop_off's arithmetic: the same part block mode's mount
 * measures through the loop device, disk/README.md); the host's
 * replay_fuse_size_ns (pipeline/hosts.lua), --fuse-size. Not for a loop
 * device's recording (its own parts, loop_off above), nor where the loop
 * rule keeps the round trip (the loop device's reply crossed FUSE too).
 */
static uint64_t fuse_size(const struct ts_replay_cfg *cfg, const struct ts_trace_rec *r)
{
	if (!cfg->kernel_fs || cfg->loop_recorded || r->op != TS_OP_READ ||
	    (r->flags & TS_REC_F_NOTIER) || r->result <= 0)
		return 0;
	return ts_tier_rule_loop_off(cfg->fuse_size_ns, 0, TS_TIER_READ, (uint64_t)r->result);
}

/*
 * The page-cache read's FUSE part. A FUSE-mode recording replayed as block
 * mode (kernel_fs): the gap after a read loses the recording's round trip,
 * its floor, measured at the mount as a 4 KiB direct read's (fs/calib.c),
 * a figure that moves with the host's load of the moment: 24.5-51.9 us in
 * nine LMDB recordings of one night on one host, whose gaps did not follow
 * it. A read the kernel's page cache sent (TS_REC_F_KERNEL_RA: its
 * readahead of a file tierfs lets it cache, a mapped LMDB's) is a
 * background request whose reply tierfs's thread carries on to the end of
 * the pages' read; its gap through FUSE holds that delivery and the next
 * request's (the kernel's fuse_request_send and fuse_request_end against
 * tierfs's receipt and completion: 51-61 us a 128 KiB read, median) and a
 * job's own time longer than on ext4 (the rest). So where the host has it
 * measured, the gap after such a read loses cfg->fuse_ra_ns in place of
 * the floor, its size part (fuse_size()) on top: the two together are
 * how much longer the distance from a read's completion to the job's next
 * request is through FUSE than in block mode, the same job on the same
 * tier (pipeline/hosts.lua, replay_fuse_ra_ns). Not for a loop device's
 * recording (its own path), nor for any other request: the floor.
 */
static bool ra_read(const struct ts_replay_cfg *cfg, const struct ts_trace_rec *r)
{
	return cfg->kernel_fs && cfg->fuse_ra_ns && !cfg->loop_recorded && r &&
	       r->op == TS_OP_READ && (r->flags & TS_REC_F_KERNEL_RA) &&
	       !(r->flags & TS_REC_F_NOTIER);
}

static uint64_t round_trip(const struct ts_replay_cfg *cfg, const struct ts_trace_rec *r)
{
	return ra_read(cfg, r) ? cfg->fuse_ra_ns : cfg->think_less_ns;
}

/*
 * The page-cache read's stretch. What is left of the gap after such a
 * read (ra_read()) once its FUSE part and size part are off is the job's
 * own time, and through FUSE that ran longer than on a kernel file system
 * in proportion to it, not by a constant: the same LMDB cursor's distance
 * from a read's completion to its next request grew from block mode to
 * FUSE by 73-89 us at the 10th percentile and 96-118 us at the 75th
 * (traces/README.md). The job's thread shows why (bench/kfs_sched.sh:
 * the kernel's sched_switch and sched_wakeup over its epoch): its time on
 * a CPU between two sleeps is longer through FUSE, in proportion to the
 * gap, while its time runnable is not, so its own work is slowed by the
 * daemon's beside it on the host's cores, not held off a core. So under
 * kernel_fs, where the host has fuse_ra_ns, that rest of the gap is
 * divided by cfg->fuse_stretch (pipeline/hosts.lua's replay_fuse_stretch,
 * fitted with replay_fuse_ra_ns as one line: FUSE's distance = the
 * constant part + the stretch times block mode's). 0 or 1: none. Only
 * where the next request @nx is another page-cache read of the same file,
 * as the cursor's over its mapped database: the PyTorch folder loader's
 * workers, whose gaps after a file's read run to the next file's lookup
 * or open, did not stretch (bench/kfs_sched.sh folder: their time on a
 * CPU over the epoch was the same through FUSE as in block mode, 271-298
 * against 276-298 ms, where the cursor's was 1.7-2.0 times block mode's).
 * Returns the gap.
 */
static uint64_t fuse_stretch(const struct ts_replay_cfg *cfg, const struct ts_trace_rec *r,
			     const struct ts_trace_rec *nx, uint64_t gap)
{
	if (cfg->fuse_stretch <= 1.0 || !ra_read(cfg, r) || !ra_read(cfg, nx) || !r->file_id ||
	    nx->file_id != r->file_id)
		return gap;
	return (uint64_t)llround((double)gap / cfg->fuse_stretch);
}

/*
 * The in-kernel rule. A FUSE-mode recording replayed as block mode
 * (kernel_fs): an op the kernel's file system serves without the thread
 * sleeping (@c->in_kernel: a metadata op answered from its caches, a read
 * from its page cache) leaves the thread on its CPU, so the gap after it
 * to the thread's next request is the thread's own time on a CPU there.
 * Through FUSE that gap also held the thread's wake-up for the reply, its
 * queueing for a CPU after it, and tierfs's wake-up for the next request:
 * hand-offs between two threads, each an idle vCPU to wake on a VM, which
 * a loaded host stretches from tens of microseconds to milliseconds. So
 * the gap becomes the thread's time on a CPU in it, from the CPU samples
 * of the two requests (measured, or filled in from the read clocks around
 * them: traces/FORMAT.md), never more than the gap with the round trip
 * taken off. Without samples for both, the gap stays (the memory-served
 * rule then applies). The samples do not tell a sleep of the thread's own
 * (a training step's sleep, a poll's timeout) from a hand-off; the wake
 * file does: an interrupt ends the first (a pause, traces/wakes.h),
 * tierfs's thread the second, and another thread of the command a wait
 * on it (a wake record, which the wake rule paces). So the pauses of the
 * thread inside the gap are added back to its time on a CPU. Without a
 * wake file (or one captured before pauses were) such sleeps are taken
 * out with the hand-offs (--keep-gaps: cfg->keep_gaps turns the rule
 * off). The samples hold FUSE's own CPU on the thread too: the request's
 * hand-off to the daemon and its reply's delivery, and for a direct read
 * or write the pinning and release of its buffer's pages, which the same
 * call on a kernel file system does not cost; that (cfg->fuse_cpu_ns a
 * request and cfg->fuse_cpu_page_ns a page of the buffer the request
 * asked for, the host's replay_fuse_cpu_ns and replay_fuse_cpu_page_ns in
 * pipeline/hosts.lua, measured by bench/block_memory.sh) comes off the
 * thread's time on a CPU once per request, in the gap before it. A
 * request's hand-off and reply fall in both gaps around it, and a gap's
 * CPU where its clock was unread is the reader's estimate, shared in
 * proportion to the gaps' lengths (traces/FORMAT.md): so what a gap
 * cannot hold (never below 0) comes off the thread's next gap the rule
 * rewrites (c->fuse_owed, at most one request's worth; a gap the thread
 * slept in drops it). The gap is then never longer than recorded: a gap
 * shorter than the round trip is one whose hand-offs were quicker than
 * the recording's measured one, not one without time on a CPU. Returns
 * the gap.
 */
/* The time thread @p slept in pauses (an interrupt ended them) inside
 * [@lo, @hi], trace times. Its own pauses never overlap, so in time order
 * both their ends and their beginnings ascend. */
static uint64_t paused(const struct ts_trace *t, const struct rthread *p, uint64_t lo,
		       uint64_t hi)
{
	uint64_t mono = t->hdr.start_mono_ns, mlo = lo + mono, mhi = hi + mono, sum = 0;
	size_t i = 0, n = p->npause;
	while (i < n) { /* its first pause that ends after lo */
		size_t m = i + (n - i) / 2;
		if (p->pause[m].t_ns <= mlo)
			i = m + 1;
		else
			n = m;
	}
	for (; i < p->npause && p->pause[i].since_ns < mhi; i++) {
		const struct ts_sleep *z = &p->pause[i];
		uint64_t from = TS_MAX(z->since_ns, mlo), to = TS_MIN(z->t_ns, mhi);
		sum += to > from ? to - from : 0;
	}
	return sum;
}

/* @ns of thread @p's recorded time [@lo, @hi] at @speed; with
 * cfg->speed_keeps_pauses its pauses inside keep their length (--band:
 * a timer's sleep runs as long on a slower or faster host). */
static uint64_t own_scaled(const struct ts_trace *t, const struct ts_replay_cfg *cfg,
			   const struct rthread *p, uint64_t lo, uint64_t hi, uint64_t ns,
			   double speed)
{
	if (speed == 1.0 || !cfg->speed_keeps_pauses || !p->npause || hi <= lo)
		return scaled(ns, speed);
	uint64_t z = TS_MIN(paused(t, p, lo, hi), ns);
	return scaled(ns - z, speed) + z;
}

/* FUSE's own CPU on the calling thread for request @r (the in-kernel
 * rule): cfg->fuse_cpu_ns, and cfg->fuse_cpu_page_ns for each page of the
 * buffer a direct read or write asked for (a read the kernel's page cache
 * sent, TS_REC_F_KERNEL_RA, has no buffer of the thread's). A release (a
 * file's last close, TS_OP_CLOSE) none: the kernel sends FUSE_RELEASE in
 * the background on a FUSE mount (fs/fuse/file.c, fuse_file_release:
 * synchronous on fuseblk mounts only), so the thread queues it and goes
 * on, with no sleep in it and no wake-up after, where the figure is a
 * round trip's (a read's; bench/close_cpu.sh measures a close's). A
 * GETATTR and an OPEN take figures of their own, measured by
 * bench/close_cpu.sh against ext4's same calls: a lookup (the high-level
 * API's is a getattr) cfg->fuse_cpu_lookup_ns, a getattr the kernel sent
 * for a name it held (REC_F_ATTR, setup.c) fuse_cpu_getattr_ns, an open
 * fuse_cpu_open_ns; less than a read's, which also holds the reply's
 * copy. */
static uint64_t fuse_cpu(const struct ts_replay_cfg *cfg, const struct ts_trace_rec *r)
{
	if (r->op == TS_OP_CLOSE)
		return 0;
	if (r->op == TS_OP_GETATTR)
		return r->flags & REC_F_ATTR ? cfg->fuse_cpu_getattr_ns : cfg->fuse_cpu_lookup_ns;
	if (r->op == TS_OP_OPEN)
		return cfg->fuse_cpu_open_ns;
	uint64_t pages = 0;
	if ((r->op == TS_OP_READ || r->op == TS_OP_WRITE) && !(r->flags & TS_REC_F_KERNEL_RA))
		pages = (r->length + 4095) / 4096;
	return cfg->fuse_cpu_ns + cfg->fuse_cpu_page_ns * pages;
}

static uint64_t in_kernel(const struct ts_trace *t, const struct ts_replay_cfg *cfg,
			  struct cursor *c, size_t a, size_t b, uint64_t gap, bool *applied)
{
	*applied = false;
	if (!cfg->kernel_fs || cfg->keep_gaps || !c->in_kernel || !t->cpu || !t->cpu[a].pid || !t->cpu[b].pid ||
	    (t->recs[b].flags & REC_F_WAKE)) {
		c->fuse_owed = 0;
		return gap;
	}
	*applied = true;
	uint64_t on = t->cpu[b].on_ns - TS_MIN(t->cpu[a].on_ns, t->cpu[b].on_ns);
	/* less FUSE's own CPU on the thread for the request, and what the
	 * gaps before could not hold */
	uint64_t f = fuse_cpu(cfg, &t->recs[b]), fuse = c->fuse_owed + f;
	c->fuse_owed = TS_MIN(fuse - TS_MIN(on, fuse), f);
	on -= TS_MIN(on, fuse);
	uint64_t own = paused(t, c->p, c->rec_done_max, t->recs[b].submit_ns);
	/* at most the recorded gap (a loop device's recording: less its
	 * path, as the gap came) */
	uint64_t was = cfg->loop_recorded
			   ? gap
			   : t->recs[b].submit_ns - TS_MIN(c->rec_done_max, t->recs[b].submit_ns);
	return TS_MIN(was, on + own);
}

/*
 * The loop rule. Under kernel_fs every gap loses the recording's FUSE
 * round trip (think_less_ns). Block mode charged from tierfs's receipt
 * (cfg->loop_receipt: `tiersim disk mount --loop-issue=off|watch`, or a
 * mount that cannot time the issue) paid that round trip again after
 * each read the device served: the read went from the loop device's
 * worker through FUSE to tierfs and back, beyond the hop tierfs took off,
 * where the replay charges the model's latency alone. So there the gap
 * after such a read (@c->dev_read), waited for last, keeps it. Block mode
 * as `tiersim disk mount` runs it (loop_issue=on) charges each request
 * from the loop device's issue and replies early by the path's measured
 * hop, so the kernel completes it at the model's time and no round trip
 * follows it: the gap loses it like every other. Not for a recording of
 * the loop device itself (cfg->loop_recorded): its gaps are that path
 * already, and lose the round trip and the hop like every other.
 */
static bool loop_rule(const struct ts_replay_cfg *cfg, const struct cursor *c, uint64_t rdone)
{
	return cfg->kernel_fs && cfg->loop_receipt && !cfg->loop_recorded && c->dev_read &&
	       rdone == c->rec_done_max;
}

/*
 * The page-lock wake-up. A FUSE-mode recording replayed as block mode
 * (kernel_fs): a read the thread waited on the device for (@c->dev_read,
 * its replayed completion after its issue) is, on a kernel file system, a
 * sleep on a page in flight: the read finds the page locked (the
 * readahead that sent it, or its own miss) and waits for the lock, which
 * the device's completion drops, waking the thread. The gap after it holds
 * that wake-up, from the completion to the thread back on a CPU. Through
 * FUSE the thread slept in the request and tierfs's reply woke it, a
 * wake-up inside the round trip the rule takes off every gap
 * (think_less_ns), so the replay charged none. The gap after such a read,
 * waited for last, grows by cfg->page_wake_ns (pipeline/hosts.lua's
 * replay_page_wake_ns: block mode's sleeps on a page, each from the loop
 * device's completion to the thread running, measured with the kernel's
 * sched and block tracepoints). Not for a loop device's recording
 * (cfg->loop_recorded): its gaps were recorded in block mode, the
 * wake-ups in them. Returns the gap.
 */
static uint64_t page_wake(const struct ts_replay_cfg *cfg, const struct cursor *c, uint64_t s,
			  uint64_t done, uint64_t gap)
{
	if (!cfg->kernel_fs || cfg->loop_recorded || !c->dev_read || done <= s)
		return gap;
	return gap + cfg->page_wake_ns;
}

/*
 * The IO path's CPU. A FUSE-mode recording replayed as block mode
 * (kernel_fs): a read that sends the device reads (its miss, the
 * readahead it triggers: @c->dev_reqs requests, the model's) costs the
 * thread on a kernel file system CPU that through FUSE it did not spend:
 * the readahead's pages allocated and charged to the cgroup, added to
 * the page cache, the request built and sent, the thread's sleep on the
 * page and its wake-up on a CPU; through FUSE tierfs's model read ahead
 * for it, on no thread of the job. The gap after such a read grows by
 * cfg->dev_read_cpu_ns a request (pipeline/hosts.lua's
 * replay_dev_read_cpu_ns: block mode's RecordIO reader, its thread's CPU
 * reading the file cold less warm, over the device's reads). Not for a
 * loop device's recording (cfg->loop_recorded): its threads are the
 * loop device's. Nor after a read the kernel's page cache sent through
 * FUSE (TS_REC_F_KERNEL_RA: a file tierfs lets the kernel cache, such as
 * a mapped LMDB): that readahead ran on the thread when recorded (its
 * pages allocated and added to FUSE's page cache, the request built and
 * sent), so the recorded gap holds that CPU already. Returns the gap.
 */
static uint64_t dev_read_cpu(const struct ts_replay_cfg *cfg, const struct cursor *c,
			     const struct ts_trace_rec *r, uint64_t gap)
{
	if (!cfg->kernel_fs || cfg->loop_recorded || !c->dev_reqs ||
	    (r->flags & TS_REC_F_KERNEL_RA))
		return gap;
	return gap + cfg->dev_read_cpu_ns * c->dev_reqs;
}

/* The in-flight rule's release of op c->i (inflight_rel): the rel_m-th
 * replayed completion among the thread's ops in flight when op c->i - 1
 * was sent at @prev (recorded): that op, and those before it from rel_lo
 * on that completed after @prev. */
static uint64_t inflight_at(const struct ts_trace *t, const struct cursor *c, uint64_t prev)
{
	/* the smallest min(m, n) of the n completions, ascending: the m-th
	 * is the last kept (or the largest when fewer than m) */
	uint64_t v[INFLIGHT_SCAN + 1];
	size_t n = 0, kept = 0, m = c->p->rel_m[c->i];
	for (size_t j = c->p->rel_lo[c->i]; j < c->i && n <= INFLIGHT_SCAN; j++) {
		const struct ts_trace_rec *q = &t->recs[c->p->idx[j]];
		if (j + 1 < c->i && TS_MAX(q->complete_ns, q->submit_ns) <= prev)
			continue;
		uint64_t x = c->completed[c->p->idx[j]];
		n++;
		if (kept == m && v[kept - 1] <= x)
			continue; /* not among the m smallest */
		size_t a = kept < m ? kept++ : kept - 1;
		for (; a && v[a - 1] > x; a--) /* insertion: at most m */
			v[a] = v[a - 1];
		v[a] = x;
	}
	return v[kept - 1];
}

/* Op i was issued at @s and completed at @done (replay times): move on and
 * compute when op i+1 issues. Returns false when the thread is done. */
bool replay_cursor_advance(struct cursor *c, const struct ts_trace *t, uint64_t s, uint64_t done,
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
		const struct ts_trace_issue *ia = ts_trace_issue_of(t, c->p->idx[c->i - 1]),
					    *ib = ts_trace_issue_of(t, c->p->idx[c->i]);
		if (cfg->kernel_fs && cfg->loop_recorded && rdone == c->rec_done_max && ia && ib) {
			/* both timed by block mode's request clock: from the
			 * model's completion of the one, which the kernel's
			 * came at (tierfs replied so), to the loop device's
			 * issue of the next */
			gap = ib->issue_ns > ia->end_ns ? ib->issue_ns - ia->end_ns : 0;
		} else {
			if (!loop_rule(cfg, c, rdone)) {
				/* the round trip, and the reply's size part */
				gap -= TS_MIN(gap,
					      round_trip(cfg, rdone == c->rec_done_max ? r : NULL));
				if (rdone == c->rec_done_max) {
					gap -= TS_MIN(gap, fuse_size(cfg, r));
					gap = fuse_stretch(cfg, r, nx, gap);
				}
			}
			/* a loop device's recording: the path after the
			 * request it waited on last held its size and window
			 * parts too */
			if (cfg->kernel_fs && rdone == c->rec_done_max)
				gap -= TS_MIN(gap, loop_off(cfg, r));
		}
		bool kern = false;
		if (rdone == c->rec_done_max) /* the thread waited for this one last */
			gap = in_kernel(t, cfg, c, c->p->idx[c->i - 1], c->p->idx[c->i], gap, &kern);
		if (rdone == c->rec_done_max && !kern)
			gap = page_wake(cfg, c, s, done, wake_up(cfg, r, s, done, c->mem_served, gap));
		if (rdone == c->rec_done_max)
			gap = dev_read_cpu(cfg, c, r, gap);
		uint64_t think = cfg->no_think ? 0
						: own_scaled(t, cfg, c->p, c->rec_done_max,
							     nx->submit_ns, gap, speed);
		/* the in-kernel rule took the gap's time off the CPU for
		 * hand-offs: none of it is a wait */
		uint64_t wait = cfg->no_think || kern
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
		size_t d = c->completed ? c->p->rel[c->i] : SIZE_MAX;
		/* the in-flight rule (above inflight_rel): the recorded
		 * distance after the completion that released it, less the
		 * round trip as after any completion (think_less_ns), else
		 * after its predecessor's issue */
		uint64_t at = s, gap = nx->submit_ns - r->submit_ns;
		if (d != SIZE_MAX) {
			const struct ts_trace_rec *q = &t->recs[d];
			uint64_t from = TS_MAX(q->complete_ns, q->submit_ns);
			at = c->p->rel_m[c->i] ? inflight_at(t, c, r->submit_ns) : c->completed[d];
			gap = nx->submit_ns - TS_MIN(from, nx->submit_ns);
			gap -= TS_MIN(gap, round_trip(cfg, q));
			gap -= TS_MIN(gap, fuse_size(cfg, q));
			gap = fuse_stretch(cfg, q, nx, gap);
		}
		c->next_issue = TS_MAX(s, at + (cfg->no_think ? 0 : scaled(gap, speed)));
		c->win_hi = 0; /* in flight with its predecessor: no join */
		c->last_think = 0;
	}
	c->closed_issue = c->own_issue = c->next_issue;
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
 * loader, siblings, do not wait for each other's end. A sibling counts
 * at a process's start only: the first op of a process's first thread,
 * when every thread of the sibling's process ended before it (the
 * sibling rule, sibling_before()): a parent that runs its children one
 * after another (a shell's `cat f && cat f`, a script's steps) starts
 * the next when the last one exited, and the parent itself may have no
 * op of its own to carry that order (spec: POSIX.1-2017, Shell Command
 * Language 2.9.3, an AND list runs command2 once command1 has returned,
 * and 2.9.4, a sequential list's commands in turn, each waited for; no
 * parameter: the op issues the recorded distance after the sibling's
 * replayed end, as the join rule's). Without it the second child kept its
 * recorded start: bench/fs_fidelity.sh's memory sweep (ultra-cloud, a
 * file read twice by two cats in a 64 MiB cgroup) replayed the first
 * cat's 128 MiB in 1.59 s where the FUSE recording, every read a round
 * trip, took 1.93 s, and the second cat waited out the 0.34 s between:
 * 3.52 s against block mode's 3.21 s (1.10; at 32 MiB 0.51 against 0.41
 * s, 1.23; bench/README.md, "The memory sweep's time: the second cat's
 * start").
 *
 * Finds the threads whose recorded end lies in [win_lo, win_hi]: indices
 * [*a, *b) of ps->by_end.
 */
static void join_range(const struct rthreads *ps, const struct cursor *c, size_t *a, size_t *b)
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

/* Applies the join rule to c->next_issue, given each thread's replayed end
 * (@end[k], 0 = not ended yet): when the latest thread to end inside the
 * window ended after this thread's own last event (its previous completion,
 * or the trace start for its first op), that end is taken for what woke
 * the thread, and the op issues the recorded distance after its replayed
 * end. Returns false while that thread has not ended. */
/* The sibling rule (above): @o is of a sibling process of c's that ended,
 * every thread of it, by c's first op (c->win_hi), and c's op is the first
 * of its own process (no thread of c's process issued before it). */
static bool sibling_before(const struct rthreads *ps, const struct ts_trace *t,
			   const struct cursor *c, const struct rthread *o)
{
	if (c->i || !o->ppid || o->ppid != c->p->ppid)
		return false;
	for (size_t k = 0; k < ps->n; k++) {
		const struct rthread *q = &ps->p[k];
		if (q->pid == o->pid && q->rec_end > c->win_hi)
			return false; /* the sibling still runs */
		if (q != c->p && q->pid == c->p->pid && q->n &&
		    t->recs[q->idx[0]].submit_ns < c->win_hi)
			return false; /* c's process started before */
	}
	return true;
}

static bool join_apply(const struct rthreads *ps, const struct ts_trace *t, struct cursor *c,
		       const uint64_t *end, const struct ts_replay_cfg *cfg, double speed)
{
	size_t a, b;

	join_range(ps, c, &a, &b);
	for (size_t k = b; k-- > a;) {
		size_t j = ps->by_end[k];
		const struct rthread *o = &ps->p[j];
		if (o == c->p)
			continue;
		bool sib = false;
		if (o->pid && c->p->pid && o->pid != c->p->pid && o->ppid != c->p->pid &&
		    c->p->ppid != o->pid && !(sib = sibling_before(ps, t, c, o)))
			continue; /* unrelated processes */
		if (c->i && ps->ends[k] < c->rec_done_max)
			break; /* its own completion came later: the closed loop rules */
		if (!end[j]) {
			c->wait_thread = j;
			return false;
		}
		uint64_t gap = c->win_hi - ps->ends[k];
		gap -= TS_MIN(gap, cfg->think_less_ns);
		gap = cfg->no_think ? 0 : scaled(gap, speed);
		/* the closed-loop think time is replaced by this gap */
		c->think_ns -= TS_MIN(c->think_ns, c->last_think);
		c->think_ns += gap;
		c->last_think = gap;
		c->next_issue = end[j] + gap;
		if (sib) {
			/* the process's own schedule starts here: the wait
			 * rule's recorded moments (c->origin for c->t0) count
			 * from this op, not from the trace's start, or the
			 * process's first wait would wake it at its recorded
			 * moment, undoing the rule */
			c->t0 = c->win_hi;
			c->origin = c->next_issue;
		}
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
static bool anchor_apply(const struct rthreads *ps, const struct ts_trace *t, struct cursor *c,
			 const uint64_t *issued, const struct ts_replay_cfg *cfg, double speed)
{
	size_t me = c->p->idx[c->i], a = ps->anchor[me];

	if (a == SIZE_MAX)
		return true; /* before any workload request: its offset from the start */
	if (!issued[a]) {
		c->wait_rec = a;
		return false;
	}
	uint64_t gap = t->recs[me].submit_ns - t->recs[a].submit_ns;
	c->next_issue = issued[a] + (cfg->no_think ? 0 : scaled(gap, speed));
	c->think_ns -= TS_MIN(c->think_ns, c->last_think); /* not think time */
	c->last_think = 0;
	return true;
}

/*
 * The wake rule (a wake file beside the trace, traces/wakes.h). Each
 * time a thread of the application was woken by another of its threads,
 * the thread's op list holds a record without IO at that moment (replay_augment()),
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
static bool progress(const struct rthreads *ps, const struct ts_trace *t,
		     const struct ts_replay_cfg *cfg, size_t k, uint64_t w, const uint64_t *issued,
		     const uint64_t *completed, uint64_t origin, double speed, uint64_t *at,
		     size_t *wait)
{
	const struct rthread *p = &ps->p[k];
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
	if (!issued[j]) {
		*wait = j;
		return false;
	}
	const struct ts_trace_rec *r = &t->recs[j];
	uint64_t rc = TS_MAX(r->complete_ns, r->submit_ns);
	*at = w >= rc ? completed[j] + own_scaled(t, cfg, p, rc, w, w - rc, speed)
		      : issued[j] + own_scaled(t, cfg, p, r->submit_ns, w, w - r->submit_ns, speed);
	return true;
}

static bool wake_apply(const struct rthreads *ps, const struct ts_trace *t, struct cursor *c,
		       const uint64_t *issued, const uint64_t *completed,
		       const struct ts_replay_cfg *cfg, double speed)
{
	const struct wake_edge *e = &ps->edge[c->p->idx[c->i]];
	uint64_t at;

	c->next_issue = c->closed_issue;
	if (e->waker == SIZE_MAX && e->rec == SIZE_MAX)
		return true;
	if (!completed) { /* the recording's own times */
		if (!e->start)
			c->waited_ns += e->slept_ns;
		return true;
	}
	if (e->rec != SIZE_MAX) { /* a request's completion woke it: as long after */
		if (!completed[e->rec]) {
			c->wait_rec = e->rec;
			return false;
		}
		const struct ts_trace_rec *r = &t->recs[e->rec];
		uint64_t rc = TS_MAX(r->complete_ns, r->submit_ns);
		at = completed[e->rec] + scaled(e->t_ns - TS_MIN(rc, e->t_ns), speed);
	} else if (!progress(ps, t, cfg, e->waker, e->t_ns, issued, completed, c->origin, speed,
			     &at, &c->wait_rec)) {
		return false;
	}
	/* its own work done: the closed loop less the sleep, never before
	 * its previous completion (or its start); a thread that did not
	 * exist yet has no work before the fork */
	uint64_t floor = TS_MIN(c->i ? c->done_max : c->origin, c->closed_issue);
	uint64_t slept = scaled(e->slept_ns, speed);
	uint64_t worked =
	    e->start ? floor : TS_MAX(floor, c->closed_issue - TS_MIN(slept, c->closed_issue));
	c->next_issue = TS_MAX(worked, at);
	c->own_issue = worked;
	if (!e->start)
		c->waited_ns += e->slept_ns;
	return true;
}

/* The stream rule (above, by stream_deps) for c's next op. With
 * @completed NULL (the recording's own times) the closed loop stands. */
static bool stream_apply(const struct rthreads *ps, const struct ts_trace *t, struct cursor *c,
			 const uint64_t *issued, const uint64_t *completed,
			 const struct ts_replay_cfg *cfg, double speed)
{
	size_t me = c->p->idx[c->i], d = ps->dep[me], sp = ps->sprev[me];
	if (!completed || (d == SIZE_MAX && sp == SIZE_MAX))
		return true;
	/* its predecessor in the stream may have moved to the thread that
	 * waited for it (replay_augment); the cursor's keeps the order */
	size_t prev = c->i ? c->p->idx[c->i - 1] : SIZE_MAX;
	const struct ts_trace_rec *r = &t->recs[me];
	uint64_t from, at, gap;
	if (d != SIZE_MAX) {
		if (!completed[d]) {
			c->wait_rec = d;
			return false;
		}
		from = TS_MAX(t->recs[d].complete_ns, t->recs[d].submit_ns);
		at = completed[d];
	} else {
		if (!issued[sp]) {
			c->wait_rec = sp;
			return false;
		}
		from = t->recs[sp].submit_ns;
		at = issued[sp];
	}
	gap = cfg->no_think ? 0 : scaled(r->submit_ns - TS_MIN(from, r->submit_ns), speed);
	c->think_ns -= TS_MIN(c->think_ns, c->last_think);
	c->next_issue = TS_MAX(at + gap, prev != SIZE_MAX ? issued[prev] : 0);
	c->last_think = d != SIZE_MAX ? c->next_issue - TS_MIN(c->next_issue, c->done_max) : 0;
	c->think_ns += c->last_think;
	return true;
}

/* When may c's next op issue? Sets c->next_issue; false = not known yet.
 * @completed: replayed completions (NULL: replaying the recording's own
 * times). */
bool replay_schedule(const struct rthreads *ps, const struct ts_trace *t, struct cursor *c,
		     const uint64_t *ended, const uint64_t *issued, const uint64_t *completed,
		     const struct ts_replay_cfg *cfg, double speed)
{
	c->wait_rec = c->wait_thread = SIZE_MAX;
	if (c->p->tid == 0)
		return anchor_apply(ps, t, c, issued, cfg, speed);
	if (c->p->kernel)
		return stream_apply(ps, t, c, issued, completed, cfg, speed);
	if (ps->edge)
		return wake_apply(ps, t, c, issued, completed, cfg, speed);
	return join_apply(ps, t, c, ended, cfg, speed);
}
