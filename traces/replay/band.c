/*
 * band.c — one recording's own deviation, measured on it: how steady its
 * pace was over the run (tiersim replay --band N).
 *
 * A prediction keeps the recording's work, sleeps and waits on other
 * threads, so it inherits how fast the host let that run go: a recording
 * 16% slower than its tier's median predicts every tier about 16% slow.
 * Several recordings measure that spread directly (replay given several
 * FILEs, record --repeat). One recording can only show it through its own
 * course, by the method of batch means: its requests in the command's span,
 * in submit order, and the intervals between them are cut into N parts of
 * as many intervals; each part's pace is what the host set in it, per
 * interval, over the whole's. With a wake file that is the command's own
 * time: its threads' time alive in the part less their sleeps (on another
 * thread, on the device, on a timer), the time they ran or waited for a
 * CPU. Without one, the part's mean interval. The intervals themselves are
 * not the host's pace where a job is paced by something else: a loader
 * that waits on its training step's sleep fetches a batch at once at each
 * step, and on a fast device its requests bunch at the steps and at the
 * start (the prefetch), so parts of equal request counts spanned 0.14 to
 * 1.43 times the mean interval in one nvme-local recording (a band of
 * +-41%) while its threads' own time a request varied 0.66-1.52. The first
 * and the last part hold the job's start (workers forking, the first
 * fetches) and its end, and are left out; the N - 2 inner parts are
 * batches of one steady job (an epoch of a loader), whose paces scatter
 * with the host's changes. The job's start can outlast the first part:
 * a loader's workers fork their own threads while the first batches are
 * read, and in every one of 32 recordings of bench/pytorch_replay.sh (2
 * and 3 workers, nvme-local and ultra-cloud) the second part held those
 * threads' starts and ran 1.14-2.55 times the mean pace, the highest inner
 * part in 30 of them: the job's own pattern, which every run repeats, not
 * the host's. So each part after the first in which a thread of the
 * command starts is the job's start too (up to 3 inner parts left); the
 * parts' scatter (sd / mean) fell from 0.07-0.58 to 0.05-0.24, closer to
 * their run-to-run scatter (each part less its mean over the tier's four
 * runs: 0.03-0.19). The run's pace is their mean, and its own
 * uncertainty the 95% interval of that mean: Student's t for K - 1 degrees
 * of freedom times their standard deviation over the square root of K, the
 * K inner parts (N - 2 where the start fits in the first part), a fraction
 * of the mean ("half"). The band is the prediction with every
 * recorded gap (think times, start offsets: the --speed rule) 1 - half and
 * 1 + half times as long, except each thread's pauses (the wake file's:
 * a sleep an interrupt ended, a timer's, a training step's), which run as
 * long on any host and keep their length.
 *
 * The command's time before its first request (a Python loader's imports)
 * and after its last (its interpreter's exit) is in no part, and it is
 * one phase each, not batches: no mean of parts narrows it. In
 * bench/pytorch_replay.sh the threads' own time after the last request
 * was 195-291 ms across the recordings of one tier and made most of a
 * recording's deviation from its tier's median (+7.6% with 291 ms, -0.4%
 * with 195). With a wake file each such phase is taken as one more part
 * whose pace is unknown within the parts' scatter: its own time (the
 * threads' time alive less their sleeps, as in a part) times +-t * sd /
 * mean ("alone": a single part's 95% range about the mean, where the band
 * takes the mean's, sd / sqrt(K)), and at least +-35.3% (ALONE_MIN): the
 * interpreter's exit varied more across runs than the parts' scatter
 * says, and not with it. That phase's own deviation is
 * independent of the mean pace's, which the scaled gaps already carry, so
 * each end of the band moves further out by the two in quadrature: from
 * the first request by the tail's; the whole span by the head's and the
 * tail's (in quadrature too).
 *
 * What it cannot see: a run slow (or fast) all through, whose batches
 * agree; batches that are not independent (a load that lasts longer than
 * a part) understate it; a job whose parts do different work shows its
 * phases as scatter (and so widens the phases without requests too): a
 * start that ends within a part no thread starts in (the prefetch queue
 * filling: the part after the threads' starts ran 0.74 of the mean on
 * nvme-local in each tier's four runs), or an epoch's restart mid-run.
 * Without a wake file the phases without requests are not known. The
 * device's time inside each part is modelled again, not scaled.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/ts.h"
#include "core/units.h"
#include "traces/replay/replay_int.h"

/* The least 95% range of a phase without requests about the mean pace:
 * t(0.975, 12 df) 2.179 times the spread of the interpreter's exit (the
 * threads' own time after the last request) across the runs of one tier,
 * cv 0.162 pooled over 4 tiers' 4 runs each (bench/pytorch_replay.sh, 2
 * and 3 workers, nvme-local and ultra-cloud; measured). That spread is the
 * phase's own: it did not follow the parts' scatter (correlation -0.27 over
 * 32 recordings; the longest exits came with the least scatter). */
#define ALONE_MIN TS_REPLAY_BAND_ALONE_MIN

/* Student's t, the two-sided 95% quantile (0.975) for @df degrees of
 * freedom: the tabled values (any statistics text) for 1-30, 40 and 60,
 * between them linear in 1/df, and the normal's 1.960 beyond. */
static double t975(unsigned df)
{
	static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
				   2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
				   2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
				   2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
	static const struct {
		double df, t;
	} far[] = {{30, 2.042}, {40, 2.021}, {60, 2.000}, {1e300, 1.960}};
	if (df >= 1 && df <= TS_ARRAY_SIZE(t))
		return t[df - 1];
	for (size_t i = 1; i < TS_ARRAY_SIZE(far); i++)
		if (df <= far[i].df) {
			double x0 = 1 / far[i - 1].df, x1 = 1 / far[i].df, x = 1.0 / df;
			return far[i - 1].t + (far[i].t - far[i - 1].t) * (x - x0) / (x1 - x0);
		}
	return 1.960;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Parts [@edge[k], @edge[k + 1]] (trace times, ascending; @mono: the
 * trace's start) and each thread's sleep in each: @z[u * nparts + k], u
 * the sleeper's index in @tid (the threads' ids, sorted, each once). */
struct parts_walk {
	const uint64_t *edge;
	size_t nparts;
	uint64_t mono;
	const uint32_t *tid;
	size_t ntid;
	uint64_t *z;
	size_t hi; /* the parts that begin before the last sleep's end */
};

/* Adds thread @who's sleep from @since to @t (CLOCK_MONOTONIC) to the
 * parts it overlaps. A wake file's sleeps come in the time order of their
 * ends, so the parts they end in move forward: over one list, one pass,
 * each sleep touching only the parts it overlaps. */
static void asleep_parts(struct parts_walk *p, uint32_t who, uint64_t since, uint64_t t)
{
	while (p->hi > 0 && t <= p->mono + p->edge[p->hi - 1])
		p->hi--;
	while (p->hi < p->nparts && t > p->mono + p->edge[p->hi])
		p->hi++;
	const uint32_t *u = bsearch(&who, p->tid, p->ntid, sizeof(*p->tid), cmp_u32);
	if (!u)
		return;
	for (size_t k = p->hi; k-- > 0 && since < p->mono + p->edge[k + 1];) {
		uint64_t a = TS_MAX(since, p->mono + p->edge[k]),
			 b = TS_MIN(t, p->mono + p->edge[k + 1]);
		p->z[(size_t)(u - p->tid) * p->nparts + k] += b > a ? b - a : 0;
	}
}

/* The command's threads' own time in each of @nparts parts [@edge[k],
 * @edge[k + 1]] (trace times, ascending) into @own: each thread's time
 * alive there less its sleeps in it, on another of its threads (a wake),
 * on the device (state D) or on a timer (a pause). What is left is the
 * time the threads ran or waited for a CPU: the work whose pace the host
 * sets. The wakes --lock-wakes dropped (ts_wakes_drop_short: a sleep on
 * another thread of the process shorter than that, 50 us by default) are
 * not in @w, so those sleeps count as own time here, as the replay counts
 * them: their gaps run as the thread's own time, which the band's pace
 * scales. All 0 without a wake file; -ENOMEM. */
static int own_times(const struct ts_wakes *w, uint64_t mono, const uint64_t *edge, size_t nparts,
		     uint64_t *own)
{
	memset(own, 0, nparts * sizeof(*own));
	if (!w || !w->nthreads || !nparts)
		return 0;
	uint32_t *tid = malloc(w->nthreads * sizeof(*tid));
	uint64_t *z = tid ? calloc(w->nthreads * nparts, sizeof(*z)) : NULL;
	if (!z) {
		free(tid);
		return -ENOMEM;
	}
	size_t ntid = 0;
	for (size_t i = 0; i < w->nthreads; i++)
		tid[i] = w->threads[i].tid;
	qsort(tid, w->nthreads, sizeof(*tid), cmp_u32);
	for (size_t i = 0; i < w->nthreads; i++) /* a reused id's threads share its sleeps */
		if (!ntid || tid[i] != tid[ntid - 1])
			tid[ntid++] = tid[i];
	struct parts_walk p = {edge, nparts, mono, tid, ntid, z, 0};
	for (size_t i = 0; i < w->nsleeps; i++)
		asleep_parts(&p, w->sleeps[i].tid, w->sleeps[i].since_ns, w->sleeps[i].t_ns);
	p.hi = 0;
	for (size_t i = 0; i < w->npauses; i++)
		asleep_parts(&p, w->pauses[i].tid, w->pauses[i].since_ns, w->pauses[i].t_ns);
	p.hi = 0;
	for (size_t i = 0; i < w->nwakes; i++)
		asleep_parts(&p, w->wakes[i].wakee, w->wakes[i].since_ns, w->wakes[i].t_ns);
	for (size_t i = 0; i < w->nthreads; i++) {
		const struct ts_wakes_thread *th = &w->threads[i];
		const uint32_t *u = bsearch(&th->tid, tid, ntid, sizeof(*tid), cmp_u32);
		const uint64_t *zu = z + (size_t)(u - tid) * nparts;
		for (size_t k = 0; k < nparts; k++) {
			uint64_t a = TS_MAX(th->start_ns, mono + edge[k]),
				 b = TS_MIN(th->end_ns, mono + edge[k + 1]);
			if (b > a)
				own[k] += b - a - TS_MIN(b - a, zu[k]);
		}
	}
	free(z);
	free(tid);
	return 0;
}

/* Whether a thread of @w starts in [@a, @b) (CLOCK_MONOTONIC). */
static bool starts_in(const struct ts_wakes *w, uint64_t a, uint64_t b)
{
	for (size_t i = 0; i < w->nthreads; i++)
		if (w->threads[i].start_ns >= a && w->threads[i].start_ns < b)
			return true;
	return false;
}

int ts_replay_band_pace(const struct ts_trace *t, const struct ts_wakes *w, unsigned parts,
			struct ts_replay_band *band, char *err, size_t errlen)
{
	uint64_t mono = t->hdr.start_mono_ns, begin = UINT64_MAX, end = 0;
	/* the command's span, as the wake rule takes it (augment.c) */
	for (size_t i = 0; w && i < w->nthreads; i++) {
		if (w->threads[i].start_ns >= mono)
			begin = TS_MIN(begin, w->threads[i].start_ns - mono);
		if (w->threads[i].end_ns >= mono)
			end = TS_MAX(end, w->threads[i].end_ns - mono);
	}
	if (begin == UINT64_MAX || end < begin)
		begin = 0, end = UINT64_MAX;
	uint64_t *sub = malloc((t->nrecs ? t->nrecs : 1) * sizeof(*sub));
	if (!sub) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	size_t n = 0;
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct ts_trace_rec *r = &t->recs[i];
		if (TS_MAX(r->complete_ns, r->submit_ns) < begin || r->submit_ns > end)
			continue; /* block mode's mount and unmount */
		sub[n++] = r->submit_ns;
	}
	/* n - 1 intervals between the requests, at least 2 a part */
	if (n < 2 * (size_t)parts + 1) {
		snprintf(err, errlen,
			 "--band %u: the recording has %zu requests in its span, fewer than %u "
			 "(2 intervals between requests a part)",
			 parts, n, 2 * parts + 1);
		free(sub);
		return -EINVAL;
	}
	qsort(sub, n, sizeof(*sub), ts_cmp_u64);
	size_t m = n - 1;
	double whole = (double)(sub[n - 1] - sub[0]) / (double)m;
	if (!(whole > 0)) {
		snprintf(err, errlen, "--band %u: the recording's requests came all at once",
			 parts);
		free(sub);
		return -EINVAL;
	}
	band->parts = parts;
	/* the command's start to its first request, the parts, its last
	 * request to its end: @parts + 2 spans, edge[k] to edge[k + 1] */
	uint64_t edge[TS_REPLAY_BAND_MAX + 3], own_ns[TS_REPLAY_BAND_MAX + 2];
	edge[0] = TS_MIN(begin, sub[0]);
	for (unsigned k = 0; k <= parts; k++)
		edge[k + 1] = sub[m * k / parts];
	edge[parts + 2] = end;
	int rc = end == UINT64_MAX ? own_times(w, mono, edge + 1, parts, own_ns + 1)
				   : own_times(w, mono, edge, parts + 2, own_ns);
	if (rc) {
		snprintf(err, errlen, "out of memory");
		free(sub);
		return rc;
	}
	if (end == UINT64_MAX) /* no wake file's span: no start or end known */
		own_ns[0] = own_ns[parts + 1] = 0;
	band->head_ns = own_ns[0];
	band->tail_ns = own_ns[parts + 1];
	double own[TS_REPLAY_BAND_MAX], own_all = 0;
	for (unsigned k = 0; k < parts; k++) {
		size_t a = m * k / parts, b = m * (k + 1) / parts;
		band->pace[k] = (double)(sub[b] - sub[a]) / (double)(b - a) / whole;
		own[k] = (double)own_ns[k + 1] / (double)(b - a);
		own_all += own[k] * (double)(b - a) / (double)m;
	}
	free(sub);
	band->own_time = own_all > 0;
	for (unsigned k = 0; k < parts && band->own_time; k++)
		band->pace[k] = own[k] / own_all;
	/* the batch means of the inner parts: the first and the last hold
	 * the job's start and end, and so does every part after the first
	 * in which a thread of the command starts (a loader's workers and
	 * their threads), up to 3 inner parts left */
	unsigned from = 1;
	while (band->own_time && from + 5 <= parts &&
	       starts_in(w, mono + edge[from + 1], mono + edge[from + 2]))
		from++;
	band->from = from;
	unsigned K = parts - 1 - from;
	double mean = 0, ss = 0;
	for (unsigned k = from; k + 1 < parts; k++)
		mean += band->pace[k] / K;
	for (unsigned k = from; k + 1 < parts; k++)
		ss += (band->pace[k] - mean) * (band->pace[k] - mean);
	band->mean = mean;
	band->sd = sqrt(ss / (K - 1));
	band->half = mean > 0 ? t975(K - 1) * band->sd / sqrt((double)K) / mean : 0;
	band->alone = mean > 0 && band->own_time ? t975(K - 1) * band->sd / mean : 0;
	if (band->own_time && band->alone < ALONE_MIN)
		band->alone = ALONE_MIN;
	if (!band->own_time)
		band->head_ns = band->tail_ns = 0;
	band->low = TS_MAX(1 - band->half, 0.0);
	band->high = 1 + band->half;
	return 0;
}

/* @p's band end @r, @e (ns, one phase's 95% range) further out: the two
 * independent in quadrature (@lo: the low end, at least 0). */
static uint64_t widen(uint64_t p, uint64_t r, double e, bool lo)
{
	if (!(e > 0))
		return r;
	double d = lo ? (p > r ? (double)(p - r) : 0) : (r > p ? (double)(r - p) : 0);
	double x = (double)p + (lo ? -1 : 1) * hypot(d, e);
	return x > 0 ? (uint64_t)llround(x) : 0;
}

int ts_replay_predict_band(struct ts_replay_set *s, const char *tier,
			   const struct ts_replay_band *band, struct ts_replay_result *res,
			   char *err, size_t errlen)
{
	double speed = s->cfg.speed > 0 ? s->cfg.speed : 1.0;
	bool keep = s->cfg.speed_keeps_pauses;
	double f[2] = {band->low, band->high};
	uint64_t *out[2] = {&res->band_lo_ns, &res->band_hi_ns};
	uint64_t *first[2] = {&res->band_lo_first_ns, &res->band_hi_first_ns};
	uint64_t p = res->total_ns, p_first = ts_replay_from_first(res);
	/* the phases without requests, each one part of its own pace */
	double e = band->alone * hypot((double)band->head_ns, (double)band->tail_ns),
	       e_first = band->alone * (double)band->tail_ns;
	int rc = 0;
	for (int i = 0; i < 2 && !rc; i++) {
		struct ts_replay_result r;
		memset(&r, 0, sizeof(r));
		/* a pace of f: every recorded gap f times as long, each
		 * thread's pauses (a timer's sleep) as recorded */
		s->cfg.speed = speed / f[i];
		s->cfg.speed_keeps_pauses = true;
		rc = ts_replay_predict(s, tier, &r, err, errlen);
		s->cfg.speed_keeps_pauses = keep;
		*out[i] = widen(p, r.total_ns, e, i == 0);
		*first[i] = widen(p_first, ts_replay_from_first(&r), e_first, i == 0);
	}
	s->cfg.speed = speed;
	return rc;
}
