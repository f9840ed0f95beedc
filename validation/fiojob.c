/*
 * fiojob.c — a closed-loop fio job on the tier model in virtual time (see
 * fiojob.h). Slots are kept in a heap by completion time; the earliest
 * completion is recorded and its slot issues its next request at that
 * instant (plus the think time), exactly as fio's libaio / io_uring loop
 * refills a queue. Slot s belongs to job s / iodepth, which has its own
 * file and its own sequential offset.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/heap.h"
#include "core/hist.h"
#include "core/rng.h"
#include "validation/fiojob.h"

struct slot {
	unsigned job;
	uint64_t issued;
};

struct run {
	const struct ts_fiojob *job;
	struct ts_tier *t[TS_FIOJOB_MAX_RAID]; /* the volumes: one, or a RAID-0's */
	unsigned nt;
	uint64_t chunk;
	struct ts_rng rng;
	uint64_t *seq_off;   /* per job */
	uint64_t *job_bytes; /* issued per job */
	uint64_t *busy;	     /* per job, serial: when its last request completes */
	uint64_t issued;     /* requests issued in all */
};

/* Whether @job may issue another request. */
static bool may_issue(const struct run *r, unsigned job)
{
	const struct ts_fiojob *j = r->job;
	if (j->count && r->issued >= j->count)
		return false;
	return !j->io_limit || r->job_bytes[job] < j->io_limit;
}

/* Issues the next request of @s's job at @now; returns its completion. */
static uint64_t issue(struct run *r, struct slot *s, uint64_t now)
{
	const struct ts_fiojob *j = r->job;
	uint64_t blocks = j->size / j->bs, off;
	if (j->random) {
		off = ts_rng_below(&r->rng, blocks) * j->bs;
	} else {
		off = r->seq_off[s->job];
		r->seq_off[s->job] = (off + j->bs) % (blocks * j->bs);
	}
	struct ts_tier_req q = {
		.op = j->write ? TS_TIER_WRITE : TS_TIER_READ,
		.file = s->job + 1,
		.off = off,
		.len = j->bs,
		.size = j->size,
		.direct = true,
	};
	s->issued = now;
	r->job_bytes[s->job] += j->bs;
	r->issued++;
	if (j->serial) {
		/* the volume sees it once the job's previous one is done */
		now = TS_MAX(now, r->busy[s->job]);
		uint64_t end = ts_tier_submit(r->t[0], now, &q, NULL);
		r->busy[s->job] = end;
		return end;
	}
	if (r->nt == 1)
		return ts_tier_submit(r->t[0], now, &q, NULL);
	/* RAID-0: chunk k of the array is chunk k / nt of volume k % nt; the
	 * request completes when its last part does. */
	uint64_t end = now;
	for (uint64_t a = off, left = j->bs; left;) {
		uint64_t k = a / r->chunk, in = a % r->chunk, n = TS_MIN(left, r->chunk - in);
		struct ts_tier_req part = q;
		part.off = k / r->nt * r->chunk + in;
		part.len = n;
		part.size = 0; /* the volume's device: no file end */
		uint64_t e = ts_tier_submit(r->t[k % r->nt], now, &part, NULL);
		end = TS_MAX(end, e); /* TS_MAX evaluates its arguments twice */
		a += n;
		left -= n;
	}
	return end;
}

int ts_fiojob_run(const struct ts_tier_profile *tier, uint64_t capacity,
		  const struct ts_fiojob *job, struct ts_fiojob_result *out, char *err,
		  size_t errlen)
{
	uint64_t inflight = (uint64_t)job->iodepth * job->numjobs;
	if (!job->bs || !job->iodepth || !job->numjobs || inflight > TS_FIOJOB_MAX_INFLIGHT ||
	    job->size < job->bs || (!job->runtime && !job->io_limit && !job->count)) {
		snprintf(err, errlen,
			 "fio job: needs bs > 0, size >= bs, 1 <= iodepth x numjobs <= %d, and a "
			 "runtime, a size to move or a request count",
			 TS_FIOJOB_MAX_INFLIGHT);
		return -EINVAL;
	}
	if (job->serial && (job->raid0 > 1 || job->numjobs > 1)) {
		snprintf(err, errlen, "fio job: serial (posixaio) is modelled for one job on one "
				      "volume, whose requests then reach it in time order");
		return -EINVAL;
	}
	if (job->nwin > TS_FIOJOB_MAX_WIN) {
		snprintf(err, errlen, "fio job: at most %d windows", TS_FIOJOB_MAX_WIN);
		return -EINVAL;
	}
	for (unsigned w = 0; w < job->nwin; w++)
		if (job->win_from[w] >= job->win_to[w]) {
			snprintf(err, errlen, "fio job: window %u ends before it starts", w);
			return -EINVAL;
		}
	if (job->raid0 > TS_FIOJOB_MAX_RAID) {
		snprintf(err, errlen, "fio job: a RAID-0 of at most %d volumes", TS_FIOJOB_MAX_RAID);
		return -EINVAL;
	}
	struct ts_tier_cfg cfg = { .profile = tier, .capacity = capacity, .seed = job->seed,
				   .ebs = job->ebs };
	struct run r = { .job = job, .nt = job->raid0 > 1 ? job->raid0 : 1,
			 .chunk = job->raid_chunk ? job->raid_chunk : TS_FIOJOB_RAID_CHUNK };
	/* An array's volumes share their instance's limits: one pair of
	 * limiters for all of them, as AWS caps the instance's EBS traffic. */
	struct ts_tier_instance *inst = NULL;
	if (r.nt > 1 && ts_tier_ebs_any(&job->ebs)) {
		int irc = ts_tier_instance_new(&job->ebs, tier, capacity, &inst, err, errlen);
		if (irc)
			return irc;
		cfg.ebs = (struct ts_tier_ebs){ 0 };
		cfg.instance = inst;
	}
	struct ts_heap h = { 0 };
	struct ts_hist *hist = malloc(sizeof(*hist));
	struct slot *slots = calloc(inflight, sizeof(*slots));
	r.seq_off = calloc(job->numjobs, sizeof(*r.seq_off));
	r.job_bytes = calloc(job->numjobs, sizeof(*r.job_bytes));
	r.busy = calloc(job->numjobs, sizeof(*r.busy));
	int rc = -ENOMEM;
	if (!hist || !slots || !r.seq_off || !r.job_bytes || !r.busy ||
	    ts_heap_reserve(&h, inflight)) {
		snprintf(err, errlen, "fio job: out of memory");
		goto out;
	}
	for (unsigned v = 0; v < r.nt; v++) {
		cfg.seed = job->seed + v; /* each volume its own latency samples */
		if ((rc = ts_tier_new(&cfg, &r.t[v], err, errlen)))
			goto out;
	}
	ts_hist_init(hist);
	ts_rng_seed(&r.rng, job->seed ^ 0x9e3779b97f4a7c15ull);
	uint64_t t0 = 0; /* the job's start */
	if (job->bucket_set) {
		for (unsigned v = 0; v < r.nt; v++)
			ts_tier_bucket_set(r.t[v], 0, job->bucket_fill);
		t0 = job->idle_ns;
	}

	/* Every slot issues at t0 (fio fills the queue at once). */
	for (uint64_t i = 0; i < inflight; i++) {
		slots[i].job = (unsigned)(i / job->iodepth);
		if (!may_issue(&r, slots[i].job))
			continue;
		uint64_t done = issue(&r, &slots[i], t0);
		if ((rc = ts_heap_push(&h, done, i, &slots[i])))
			goto out;
	}
	double sum_ns = 0, sum2_ns = 0;
	uint64_t n = 0, bytes = 0, last = t0, win_n[TS_FIOJOB_MAX_WIN] = { 0 };
	bool timed_out = false;
	while (h.n) {
		const struct ts_heap_item *top = ts_heap_top(&h);
		uint64_t now = top->key;
		struct slot *s = top->p;
		if (job->runtime && now - t0 > job->runtime) {
			timed_out = true;
			break;
		}
		uint64_t lat = now - s->issued;
		ts_hist_add(hist, lat);
		sum_ns += (double)lat;
		sum2_ns += (double)lat * (double)lat;
		n++;
		bytes += job->bs;
		last = now;
		for (unsigned w = 0; w < job->nwin; w++)
			win_n[w] += now - t0 >= job->win_from[w] && now - t0 < job->win_to[w];
		if (may_issue(&r, s->job)) {
			uint64_t next = now + job->think_ns;
			ts_heap_replace_top(&h, issue(&r, s, next), top->tie);
		} else {
			(void)ts_heap_pop(&h);
		}
	}
	/* A timed job is judged over its runtime, as fio divides by it. */
	uint64_t span = timed_out ? job->runtime : last - t0;
	double secs = span ? (double)span / 1e9 : 0;
	double mean = n ? sum_ns / (double)n : 0;
	*out = (struct ts_fiojob_result){
		.ios = n,
		.bytes = bytes,
		.elapsed_ns = span,
		.iops = secs > 0 ? (double)n / secs : 0,
		.mbps = secs > 0 ? (double)bytes / 1e6 / secs : 0,
		.mibps = secs > 0 ? (double)bytes / (double)TS_MiB / secs : 0,
		.lat_mean_ns = mean,
		.lat_p50_ns = (double)ts_hist_percentile(hist, 50),
		.lat_p99_ns = (double)ts_hist_percentile(hist, 99),
		.lat_stdev_ns = n ? sqrt(fmax(sum2_ns / (double)n - mean * mean, 0)) : 0,
	};
	for (unsigned w = 0; w < job->nwin; w++)
		out->win_iops[w] = (double)win_n[w] * 1e9 / (double)(job->win_to[w] - job->win_from[w]);
	rc = 0;
out:
	for (unsigned v = 0; v < r.nt; v++)
		ts_tier_free(r.t[v]);
	ts_tier_instance_free(inst);
	ts_heap_free(&h);
	free(hist);
	free(slots);
	free(r.seq_off);
	free(r.job_bytes);
	free(r.busy);
	return rc;
}
