/*
 * band.c — one recording's own deviation, measured on it: how its pace
 * changed over the run (tiersim replay --band N).
 *
 * A prediction keeps the recording's work, sleeps and waits on other
 * threads, so it inherits how fast the host let that run go: a recording
 * 16% slower than its tier's median predicts every tier about 16% slow.
 * Several recordings measure that spread directly (replay given several
 * FILEs, record --repeat). One recording can only show how its pace moved
 * while it ran: its requests, in submit order, are cut into N parts of as
 * many requests each, and each part's time per request is set against the
 * whole span's (from the first request to the command's end: the wake
 * file's last thread, else the last completion). A job that does the same
 * work throughout (an epoch of a loader) would keep one pace on a steady
 * host; the parts' lowest and highest pace are what the host's changes did
 * to it within this run. The band is the prediction with every recorded
 * gap scaled by each (the replay's --speed rule: think times, sleeps and
 * start offsets divided by 1/pace), i.e. what the run would have predicted
 * had it gone at its fastest or its slowest part's pace throughout.
 *
 * What it cannot see: a run that was slow (or fast) all through has parts
 * that agree and a narrow band; a job whose parts do different work (a
 * scan, then a write-out) shows its phases as pace. The device's own time
 * is in each part too; it is re-modelled, not scaled.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "traces/replay/replay_int.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int ts_replay_band_pace(const struct ts_trace *t, const struct ts_wakes *w, unsigned parts,
			double *pace, char *err, size_t errlen)
{
	uint64_t mono = t->hdr.start_mono_ns, begin = UINT64_MAX, end = 0, last = 0;
	/* the command's span, as the wake rule takes it (augment.c) */
	for (size_t i = 0; w && i < w->nthreads; i++) {
		if (w->threads[i].start_ns >= mono)
			begin = TS_MIN(begin, w->threads[i].start_ns - mono);
		if (w->threads[i].end_ns >= mono)
			end = TS_MAX(end, w->threads[i].end_ns - mono);
	}
	bool span = begin != UINT64_MAX && end >= begin;
	if (!span)
		begin = 0, end = UINT64_MAX;
	uint64_t *sub = malloc((t->nrecs ? t->nrecs : 1) * sizeof(*sub));
	if (!sub) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	size_t n = 0;
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct ts_trace_rec *r = &t->recs[i];
		uint64_t done = TS_MAX(r->complete_ns, r->submit_ns);
		if (done < begin || r->submit_ns > end)
			continue; /* block mode's mount and unmount */
		sub[n++] = r->submit_ns;
		last = TS_MAX(last, done);
	}
	if (n < 2 * (size_t)parts) {
		snprintf(
		    err, errlen,
		    "--band %u: the recording has %zu requests in its span, fewer than 2 a part",
		    parts, n);
		free(sub);
		return -EINVAL;
	}
	qsort(sub, n, sizeof(*sub), cmp_u64);
	uint64_t stop = span ? TS_MAX(end, sub[n - 1]) : last;
	double whole = (double)(stop - sub[0]) / (double)n;
	if (!(whole > 0)) {
		snprintf(err, errlen, "--band %u: the recording's requests take no time", parts);
		free(sub);
		return -EINVAL;
	}
	for (unsigned k = 0; k < parts; k++) {
		size_t a = n * k / parts, b = n * (k + 1) / parts;
		uint64_t to = b < n ? sub[b] : stop;
		pace[k] = (double)(to - sub[a]) / (double)(b - a) / whole;
	}
	free(sub);
	return 0;
}

int ts_replay_predict_band(struct ts_replay_set *s, const char *tier, double lo, double hi,
			   struct ts_replay_result *res, char *err, size_t errlen)
{
	double speed = s->cfg.speed > 0 ? s->cfg.speed : 1.0;
	double f[2] = {lo, hi};
	uint64_t *out[2] = {&res->band_lo_ns, &res->band_hi_ns};
	uint64_t *first[2] = {&res->band_lo_first_ns, &res->band_hi_first_ns};
	int rc = 0;
	for (int i = 0; i < 2 && !rc; i++) {
		struct ts_replay_result r;
		memset(&r, 0, sizeof(r));
		/* a pace of f: every recorded gap f times as long */
		s->cfg.speed = speed / f[i];
		rc = ts_replay_predict(s, tier, &r, err, errlen);
		*out[i] = r.total_ns;
		*first[i] = ts_replay_from_first(&r);
	}
	s->cfg.speed = speed;
	return rc;
}
