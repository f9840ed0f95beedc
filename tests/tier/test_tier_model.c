/*
 * test_tier_model.c — the tier model in virtual time, where it is exact:
 * caps reached, burst buckets draining and refilling on the vendor's
 * schedule, latency percentiles matching the profile, queueing once a cap
 * binds, I/O accounting, slots, faults, runtime switch, determinism.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/opt.h"

#include "tests/tier/driver.h"
#include "tier/tier_json.h"
#include "tests/tcheck.h"

static struct ts_tier_set *set;

/* @tier at @cap_gib on an instance with EBS limits @ebs (NULL: none). */
static struct ts_tier *model_on(const char *tier, uint64_t cap_gib, uint64_t seed,
				const struct ts_tier_ebs *ebs)
{
	char err[512];
	const struct ts_tier_profile *p;
	if (ts_tier_set_lookup(set, tier, &p, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	struct ts_tier_cfg cfg = { .profile = p, .capacity = cap_gib * TS_GiB, .seed = seed };
	if (ebs)
		cfg.ebs = *ebs;
	struct ts_tier *t;
	if (ts_tier_new(&cfg, &t, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	return t;
}

static struct ts_tier *model(const char *tier, uint64_t cap_gib, uint64_t seed)
{
	return model_on(tier, cap_gib, seed, NULL);
}

static double json_num(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);
	if (b)
		v = json_object_get(v, b);
	return json_number_value(v);
}

/* 4 KiB random reads at QD32 reach ssd-cloud's IOPS cap at 500 GiB; 1 MiB
 * reads reach its MB/s cap. */
static void test_caps(void)
{
	struct ts_tier *t = model("ssd-cloud", 500, 1);
	struct drv d;
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 32, 0);
	double iops = drv_rate(&d, 5000, 100000);
	fprintf(stderr, "ssd-cloud 500 GiB 4k randread QD32: %.1f IOPS (cap 15000)\n", iops);
	CHECK_NEAR(iops, 15000, 0.01);
	CHECK(d.bound[TS_TIER_BOUND_IOPS] > d.issued / 2);

	drv_init(&d, t, TS_TIER_READ, DRV_SEQ, TS_MiB, 32, drv_now(&d));
	double mibps = drv_rate(&d, 1000, 20000);
	fprintf(stderr, "ssd-cloud 500 GiB 1M read QD32: %.2f MiB/s (cap 256)\n", mibps);
	CHECK_NEAR(mibps, 256, 0.01);
	ts_tier_free(t);

	/* Reads and writes share a combined cap. */
	t = model("ssd-cloud", 500, 1);
	struct drv r, w;
	drv_init(&r, t, TS_TIER_READ, DRV_RANDOM, 4096, 16, 0);
	drv_init(&w, t, TS_TIER_WRITE, DRV_RANDOM, 4096, 16, 0);
	for (int i = 0; i < 4000; i++)
		drv_now(&r) <= drv_now(&w) ? (void)drv_step(&r) : (void)drv_step(&w);
	uint64_t t0 = TS_MIN(drv_now(&r), drv_now(&w)), n0 = r.issued + w.issued;
	for (int i = 0; i < 60000; i++)
		drv_now(&r) <= drv_now(&w) ? (void)drv_step(&r) : (void)drv_step(&w);
	uint64_t t1 = TS_MIN(drv_now(&r), drv_now(&w));
	double mixed = (double)(r.issued + w.issued - n0) / ((double)(t1 - t0) / 1e9);
	CHECK_NEAR(mixed, 15000, 0.01);
	ts_tier_free(t);

	/* Directional caps: nvme-local writes at min{0.85*C, 1200} MiB/s. */
	t = model("nvme-local", 440, 1);
	drv_init(&d, t, TS_TIER_WRITE, DRV_SEQ, TS_MiB, 8, 0);
	mibps = drv_rate(&d, 1000, 20000);
	fprintf(stderr, "nvme-local 440 GiB 1M write QD8: %.2f MiB/s (cap 374)\n", mibps);
	CHECK_NEAR(mibps, 374, 0.01);
	drv_init(&d, t, TS_TIER_READ, DRV_SEQ, TS_MiB, 8, drv_now(&d));
	mibps = drv_rate(&d, 1000, 20000);
	CHECK_NEAR(mibps, 616, 0.01);
	ts_tier_free(t);
}

/* One row of the gp2 doc table: burst for @burst_s, refill in @refill_s. */
static void gp2_row(uint64_t gib, double baseline, double burst_s, double refill_s)
{
	struct ts_tier *t = model("aws-gp2", gib, 1);
	struct drv d;
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 32, 0);
	uint64_t tb = 0;
	while (!tb) {
		struct ts_tier_done done = drv_step(&d);
		if (done.bound == TS_TIER_BOUND_BURST)
			tb = d.last_now;
		if (d.last_now > 100000 * TS_NS_PER_S)
			break;
	}
	double burst = (double)tb / 1e9;
	double rate = drv_rate(&d, 1000, (uint64_t)(baseline * 60));
	fprintf(stderr, "aws-gp2 %llu GiB: burst %.1f s (doc %.0f), then %.1f IOPS (doc %.0f)\n",
		(unsigned long long)gib, burst, burst_s, rate, baseline);
	CHECK_NEAR(burst, burst_s, 0.01);
	CHECK_NEAR(rate, baseline, 0.01);

	/* Idle: the bucket refills at the baseline. Probe it with one I/O
	 * after 99% and after 100% of the refill time. */
	uint64_t idle = drv_now(&d) + 1 * TS_NS_PER_S; /* let the queue drain */
	struct ts_tier_req r = { .op = TS_TIER_READ, .file = 9, .off = 0, .len = 4096 };
	ts_tier_submit(t, idle, &r, NULL);
	json_t *o = ts_tier_stats_json(t);
	double empty = json_num(o, "bucket", "credits");
	json_decref(o);
	ts_tier_submit(t, idle + (uint64_t)(0.99 * refill_s * 1e9), &r, NULL);
	o = ts_tier_stats_json(t);
	double almost = json_num(o, "bucket", "credits");
	json_decref(o);
	r.off = 1 << 20;
	ts_tier_submit(t, idle + (uint64_t)(refill_s * 1e9), &r, NULL);
	o = ts_tier_stats_json(t);
	double full = json_num(o, "bucket", "credits");
	json_decref(o);
	fprintf(stderr, "  refill: %.0f credits at 99%% of %.0f s, %.0f at 100%%\n", almost,
		refill_s, full);
	CHECK(empty < 0.01 * 5.4e6);
	CHECK(almost < 0.995 * 5.4e6);
	CHECK(full >= 5.4e6 - 2);
	ts_tier_free(t);
}

/* AWS doc (general-purpose.md) table: volume size, baseline IOPS, burst
 * duration at 3,000 IOPS from a full bucket, time to refill an empty one. */
static void test_gp2_20(void)
{
	gp2_row(20, 100, 1862, 54000);
}

static void test_gp2_100(void)
{
	gp2_row(100, 300, 2000, 18000);
}

static void test_gp2_334(void)
{
	gp2_row(334, 1002, 2703, 5389);
}

static void test_gp2_750(void)
{
	gp2_row(750, 2250, 7200, 2400);
}

static void test_gp2_1000(void)
{
	/* 1 TiB and up: no burst, 3 IOPS/GiB. */
	struct ts_tier *t = model("aws-gp2", 1000, 1);
	struct drv d;
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 32, 0);
	CHECK_NEAR(drv_rate(&d, 1000, 30000), 3000, 0.01);
	CHECK_EQ_U64(d.bound[TS_TIER_BOUND_BURST], 0);
	/* The doc's example: 256 KiB I/O on a 3,000-IOPS gp2 hits 250 MiB/s at
	 * 1,000 IOPS. */
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 256 * TS_KiB, 32, drv_now(&d));
	CHECK_NEAR(drv_rate(&d, 1000, 20000), 1000, 0.01);
	ts_tier_free(t);
}

/* The bucket as a previous run left it (ts_tier_bucket_set): empty at t = 0,
 * it gathers the baseline's credits while idle and spends them at the
 * burst rate, then the volume runs at its baseline. */
static double credits_after(struct ts_tier *t, uint64_t now)
{
	struct ts_tier_req r = { .op = TS_TIER_READ, .file = 9, .off = 0, .len = 4096 };
	ts_tier_submit(t, now, &r, NULL);
	json_t *o = ts_tier_stats_json(t);
	double c = json_num(o, "bucket", "credits");
	json_decref(o);
	return c;
}

static void test_bucket_set(void)
{
	/* 20 GiB gp2: baseline 100 IOPS, burst 3,000. Empty at 0, one probe
	 * at 60 s finds 6,000 credits less its own. */
	struct ts_tier *t = model("aws-gp2", 20, 1);
	ts_tier_bucket_set(t, 0, 0);
	CHECK_NEAR(credits_after(t, 60 * TS_NS_PER_S), 6000 - 1, 1e-6);
	ts_tier_free(t);

	/* Empty, then 60 s idle, then QD32 for 200 s: 200 x 100 + 6,000 reads. */
	t = model("aws-gp2", 20, 1);
	ts_tier_bucket_set(t, 0, 0);
	struct drv d;
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 32, 60 * TS_NS_PER_S);
	uint64_t end = 260 * TS_NS_PER_S, n = 0, burst = 0;
	while (drv_now(&d) < end) {
		struct ts_tier_done done = drv_step(&d);
		if (d.last_now <= end)
			n++;
		burst += done.bound == TS_TIER_BOUND_BURST;
	}
	fprintf(stderr, "aws-gp2 20 GiB, empty + 60 s idle: %llu reads in 200 s (26,000)\n",
		(unsigned long long)n);
	CHECK_NEAR((double)n, 26000, 0.01);
	CHECK(burst > n / 2);
	ts_tier_free(t);

	/* Fractions clamp to [0, 1] (NaN: empty); a tier without a bucket
	 * ignores it. */
	t = model("aws-gp2", 20, 1);
	ts_tier_bucket_set(t, 0, 2);
	CHECK_NEAR(credits_after(t, 0), 5.4e6 - 1, 1e-9);
	ts_tier_bucket_set(t, TS_NS_PER_S, 0.0 / 0.0);
	CHECK_NEAR(credits_after(t, 2 * TS_NS_PER_S), 100 - 1, 1e-6);
	ts_tier_free(t);
	t = model("ssd-cloud", 500, 1);
	ts_tier_bucket_set(t, 0, 0);
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 32, 0);
	CHECK_NEAR(drv_rate(&d, 5000, 100000), 15000, 0.01);
	ts_tier_free(t);
}

/* st1: throughput credits in 1 MiB units. */
static void test_st1(void)
{
	/* 500 GiB: baseline 40/1024*500 = 19.53 MiB/s, burst 122.07 MiB/s,
	 * 500 GiB of credits: the burst lasts 512000 MiB / (122.07 - 19.53)
	 * MiB/s = 4993 s. */
	const double base = 40.0 / 1024 * 500, burst = 250.0 / 1024 * 500;
	const double dur = 500.0 * 1024 / (burst - base);
	struct ts_tier *t = model("aws-st1", 500, 1);
	struct drv d;
	drv_init(&d, t, TS_TIER_READ, DRV_SEQ, TS_MiB, 4, 0);
	double r1 = drv_rate(&d, 1000, 100000);
	uint64_t tb = 0;
	while (!tb) {
		if (drv_step(&d).bound == TS_TIER_BOUND_BURST)
			tb = d.last_now;
	}
	double r2 = drv_rate(&d, 1000, 20000);
	fprintf(stderr, "aws-st1 500 GiB: 1M seq %.2f MiB/s for %.0f s (model %.0f), then %.2f\n",
		r1, (double)tb / 1e9, dur, r2);
	CHECK_NEAR(r1, burst, 0.01);
	CHECK_NEAR((double)tb / 1e9, dur, 0.01);
	CHECK_NEAR(r2, base, 0.01);
	ts_tier_free(t);

	/* Each random I/O <= 1 MiB costs a full 1 MiB: 4 KiB random reads run
	 * at burst MiB/s as I/O per second... */
	t = model("aws-st1", 500, 1);
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 32, 0);
	double iops = drv_rate(&d, 1000, 20000);
	CHECK_NEAR(iops, burst, 0.01);
	ts_tier_free(t);
	/* ...while sequential 4 KiB reads merge into 1 MiB units. */
	t = model("aws-st1", 500, 1);
	drv_init(&d, t, TS_TIER_READ, DRV_SEQ, 4096, 1, 0);
	for (int i = 0; i < 256 * 100; i++)
		drv_step(&d);
	CHECK_EQ_U64(d.dev_ios, 100);
	ts_tier_free(t);
}

/* An instance's EBS limits above the volume's: a t3.medium (AWS "Amazon
 * EBS-optimized instances": 2,000 IOPS and 43.43 MB/s baseline, 11,800 and
 * 260.57 MB/s at most) holds a 16,000-IOPS, 1,000 MiB/s gp3 to its own
 * maximum, and once its bucket is spent, to its baseline. */
/* The start of the first whole second (after the first) in which @d
 * issues fewer than @below requests: where a burst bucket ran out, now
 * that what the instance holds reports as instance-bound, its burst or
 * not. 0: none within 1,000 s. */
static uint64_t rate_drop(struct drv *d, double below)
{
	uint64_t sec = d->last_now / TS_NS_PER_S, n = 0;
	bool whole = false; /* the second counted began at its start */
	while (d->last_now < 1000 * TS_NS_PER_S) {
		(void)drv_step(d);
		uint64_t s = d->last_now / TS_NS_PER_S;
		if (s != sec) {
			if (whole && (double)n < below)
				return sec * TS_NS_PER_S;
			whole = true;
			sec = s;
			n = 0;
		}
		n++;
	}
	return 0;
}

static void test_ebs(void)
{
	const double mib = 1048576;
	struct ts_tier_ebs t3 = { .iops = 2000, .max_iops = 11800, .bps = 43.43e6,
				  .max_bps = 260.57e6, .burst_s = 1800 };
	/* The volume alone: its own cap, with gp3's short-run excess. */
	struct ts_tier *t = model("aws-gp3-16k", 36, 1);
	struct drv d;
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 256, 0);
	double alone = drv_rate(&d, 1000, 50000);
	ts_tier_free(t);
	t = model_on("aws-gp3-16k", 36, 1, &t3);
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 256, 0);
	double iops = drv_rate(&d, 1000, 50000);
	fprintf(stderr, "gp3 16,000 IOPS 4k randread QD256: %.0f alone, %.0f on a t3.medium\n",
		alone, iops);
	CHECK_NEAR(alone, 16000 * 1.0988, 0.01);
	CHECK_NEAR(iops, 11800, 0.01);
	/* held by the instance, so instance-bound; the volume holds none */
	CHECK(d.bound[TS_TIER_BOUND_INSTANCE] > d.issued / 2);
	CHECK_EQ_U64(d.bound[TS_TIER_BOUND_IOPS] + d.bound[TS_TIER_BOUND_BW] +
			     d.bound[TS_TIER_BOUND_BURST],
		     0);
	CHECK_EQ_U64(d.dev_ios, d.issued); /* counted once, by the volume */
	/* Sequential 4 KiB reads merge into 256 KiB I/Os at the instance as at
	 * the volume, so its throughput binds, not its IOPS (unmerged: 46 MiB/s). */
	drv_init(&d, t, TS_TIER_READ, DRV_SEQ, 4096, 256, drv_now(&d));
	double seq = drv_rate(&d, 10000, 200000) * 4096 / mib;
	fprintf(stderr, "gp3 4k seq read QD256 on a t3.medium: %.1f MiB/s (260.57 MB/s)\n", seq);
	CHECK_NEAR(seq, 260.57e6 / mib, 0.01);
	ts_tier_free(t);

	/* The IOPS bucket runs out: with a 60 s burst, 11,800 IOPS for 60 s,
	 * then the baseline; the throughput bucket the same way. */
	t3.burst_s = 60;
	t = model_on("aws-gp3-16k", 36, 1, &t3);
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 256, 0);
	uint64_t tb = rate_drop(&d, (11800 + 2000) / 2);
	double base = drv_rate(&d, 1000, 20000);
	CHECK(d.bound[TS_TIER_BOUND_INSTANCE] > d.issued / 2);
	fprintf(stderr, "t3.medium IOPS: burst %.2f s (60), then %.1f IOPS (2,000)\n",
		(double)tb / 1e9, base);
	CHECK_NEAR((double)tb / 1e9, 60, 0.01);
	CHECK_NEAR(base, 2000, 0.01);
	ts_tier_free(t);

	t = model_on("aws-gp3-16k", 36, 1, &t3);
	drv_init(&d, t, TS_TIER_READ, DRV_SEQ, TS_MiB, 16, 0);
	double burst = drv_rate(&d, 100, 5000) * TS_MiB;
	tb = rate_drop(&d, (260.57e6 + 43.43e6) / 2 / TS_MiB);
	double bbase = drv_rate(&d, 100, 2000) * TS_MiB;
	fprintf(stderr, "t3.medium 1M reads: %.2f MB/s for %.2f s (60), then %.2f MB/s\n",
		burst / 1e6, (double)tb / 1e9, bbase / 1e6);
	CHECK_NEAR(burst, 260.57e6, 0.01);
	CHECK_NEAR((double)tb / 1e9, 60, 0.01);
	CHECK_NEAR(bbase, 43.43e6, 0.01);
	/* A tier switch keeps the instance's limits. */
	char err[256];
	CHECK(!ts_tier_switch(t, ts_tier_set_find(set, "aws-io2"), 500 * TS_GiB, err, sizeof(err)));
	CHECK_NEAR(drv_rate(&d, 100, 2000) * TS_MiB, 43.43e6, 0.01);
	ts_tier_free(t);

	/* A volume below the instance's limits holds its requests itself: the
	 * 3,000-IOPS gp3 on a t3.medium is IOPS-bound, never instance-bound. */
	t = model_on("aws-gp3", 36, 1, &t3);
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 256, 0);
	CHECK_NEAR(drv_rate(&d, 1000, 20000), 3000 * 1.0988, 0.01); /* with its excess, as above */
	CHECK(d.bound[TS_TIER_BOUND_IOPS] > d.issued / 2);
	CHECK_EQ_U64(d.bound[TS_TIER_BOUND_INSTANCE], 0);
	ts_tier_free(t);

	/* Limits that are not rates are refused. */
	struct ts_tier_cfg bad = { .profile = ts_tier_set_find(set, "aws-gp3"),
				   .ebs = { .iops = -1 } };
	CHECK(ts_tier_new(&bad, &t, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "EBS limits") != NULL);
}

/* EBS accounting: sequential I/O merges into io_unit units; random does
 * not; a large request counts several. A latency-free tier shows the caps
 * alone. */
static void test_accounting(void)
{
	CHECK(drv_add_tiers(set, "tier_acct_test",
			    "tier \"acct\" { iops = 100, mibps = 1000, io_unit = \"256KiB\",\n"
			    "  merge_sequential = true }\n") == 0);
	struct ts_tier *t = model("acct", 0, 1);
	struct drv d;
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 4, 0);
	CHECK_NEAR(drv_rate(&d, 100, 3000), 100, 0.01);
	/* 64 sequential 4 KiB reads are one I/O: 6,400 reads/s. */
	drv_init(&d, t, TS_TIER_READ, DRV_SEQ, 4096, 4, drv_now(&d));
	CHECK_NEAR(drv_rate(&d, 1000, 200000), 6400, 0.01);
	CHECK_NEAR((double)d.dev_ios, (double)d.issued / 64, 0.01);
	/* A 1 MiB request counts 4 I/Os: 25 per second. */
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, TS_MiB, 4, drv_now(&d));
	CHECK_NEAR(drv_rate(&d, 100, 2000), 25, 0.01);
	ts_tier_free(t);

	/* gp3: merged sequential 4 KiB I/O is latency-bound at QD32, not
	 * IOPS-bound: 32 x 4 KiB per 3.16 ms. */
	t = model("aws-gp3", 500, 1);
	drv_init(&d, t, TS_TIER_READ, DRV_SEQ, 4096, 32, 0);
	double r = drv_rate(&d, 1000, 100000);
	CHECK(r > 3000 * 2);
	CHECK_NEAR((double)d.dev_ios, (double)d.issued / 64, 0.02);
	ts_tier_free(t);
}

/* A small read merges into the I/O of the one that ended where it starts
 * only while that one is being served (back to back included): one that
 * completed was charged, and a later read adjacent to it by chance is an
 * I/O of its own. Exact in virtual time: 1 ms reads, no cap in the way. */
static void test_merge_window(void)
{
	CHECK(drv_add_tiers(set, "tier_merge_test",
			    "tier \"mergelat\" { iops = 100000, io_unit = \"256KiB\",\n"
			    "  merge_sequential = true,\n"
			    "  latency = { read = { fixed = \"1ms\" } } }\n") == 0);
	struct ts_tier *t = model("mergelat", 0, 1);
	struct ts_tier_done d;
	struct ts_tier_req q = { .op = TS_TIER_READ, .file = 1, .off = 0, .len = 4096, .direct = true };
	uint64_t end = ts_tier_submit(t, 0, &q, &d);
	CHECK_EQ_U64(end, 1000000);
	CHECK_EQ_U64(d.dev_ios, 1);
	q.off = 4096; /* at 0.5 ms the first is in flight: one I/O with it */
	end = ts_tier_submit(t, 500000, &q, &d);
	CHECK_EQ_U64(d.dev_ios, 0);
	CHECK_EQ_U64(end, 1500000);
	q.off = 8192; /* back to back: at the second's completion */
	end = ts_tier_submit(t, 1500000, &q, &d);
	CHECK_EQ_U64(d.dev_ios, 0);
	q.off = 12288; /* 1 ns after the third completed: an I/O of its own */
	end = ts_tier_submit(t, end + 1, &q, &d);
	CHECK_EQ_U64(d.dev_ios, 1);
	q.off = 16384; /* 10 s later, adjacent by chance: the same */
	ts_tier_submit(t, 10000000000ull, &q, &d);
	CHECK_EQ_U64(d.dev_ios, 1);
	ts_tier_free(t);
}

/* With a page cache above, one submit can send several requests down: a
 * write of one dirty chunk in two runs of pages. Each run's stream is in
 * flight until its own write completes, not forever, and not only until
 * the cache answers the request that set the writeback off. */
static void test_merge_window_cached(void)
{
	CHECK(drv_add_tiers(set, "tier_merge_cached_test",
			    "tier \"mergewb\" { iops = 100000, io_unit = \"256KiB\",\n"
			    "  merge_sequential = true,\n"
			    "  latency = { read = { fixed = \"1ms\" }, write = { fixed = \"1ms\" } } }\n") ==
	      0);
	char err[512];
	const struct ts_tier_profile *p;
	CHECK(ts_tier_set_lookup(set, "mergewb", &p, err, sizeof(err)) == 0);
	struct ts_tier_cfg cfg = { .profile = p, .seed = 1, .mem = 64 * TS_MiB };
	struct ts_tier *t;
	CHECK(ts_tier_new(&cfg, &t, err, sizeof(err)) == 0);
	struct ts_tier_done d;
	/* pages 0 and 2 of file 1 dirty at 0: one chunk, two runs */
	struct ts_tier_req q = { .op = TS_TIER_WRITE, .file = 1, .off = 0, .len = 4096 };
	ts_tier_submit(t, 0, &q, &d);
	CHECK_EQ_U64(d.dev_ios, 0);
	q.off = 8192;
	ts_tier_submit(t, 0, &q, &d);
	CHECK_EQ_U64(d.dev_ios, 0);
	/* at 30 s they expire: a buffered write to file 2 sets off their
	 * writeback (two 4 KiB writes, done at 30.001 s and 30.00101 s) and
	 * is answered from memory */
	const uint64_t x = 30 * TS_NS_PER_S;
	q.file = 2;
	q.off = 0;
	uint64_t end = ts_tier_submit(t, x, &q, &d);
	CHECK_EQ_U64(d.dev_ios, 0);
	CHECK(end < x + 1000000);
	/* at 30.0005 s the second run's write is in flight: one I/O with it */
	q = (struct ts_tier_req){ .op = TS_TIER_WRITE, .file = 1, .off = 12288, .len = 4096,
				  .direct = true };
	ts_tier_submit(t, x + 500000, &q, &d);
	CHECK_EQ_U64(d.dev_ios, 0);
	/* 10 s later, adjacent to the first run by chance: an I/O of its own */
	q.off = 4096;
	ts_tier_submit(t, x + 10 * TS_NS_PER_S, &q, &d);
	CHECK_EQ_U64(d.dev_ios, 1);
	ts_tier_free(t);
}

/* At QD1 the model's latency percentiles are the profile's. */
static void test_latency(void)
{
	static const struct {
		const char *tier;
		double p50, p99;
	} cases[] = {
		{ "ssd-cloud", 1e6, 2e6 },
		{ "essd-pl3", 130e3, 255e3 },
		{ "nvme-local", 50e3, 98e3 },
		{ "aws-gp2", 353e3, 816e3 }, /* fitted to ioping on gp2 (tier/tiers.lua) */
	};
	for (size_t i = 0; i < TS_ARRAY_SIZE(cases); i++) {
		struct ts_tier *t = model(cases[i].tier, 0, 7);
		struct drv d;
		drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 1, 0);
		d.lat = malloc(1024 * sizeof(double));
		d.caplat = 1024;
		for (int k = 0; k < 200000; k++)
			drv_step(&d);
		double p50 = drv_pct(&d, 50), p99 = drv_pct(&d, 99);
		fprintf(stderr, "%s QD1 4k randread: p50 %.1f us (profile %.1f), p99 %.1f us (%.1f)\n",
			cases[i].tier, p50 / 1e3, cases[i].p50 / 1e3, p99 / 1e3, cases[i].p99 / 1e3);
		CHECK_NEAR(p50, cases[i].p50, 0.01);
		CHECK_NEAR(p99, cases[i].p99, 0.02);
		CHECK_EQ_U64(d.bound[TS_TIER_BOUND_LATENCY], d.issued);
		/* The stats' histogram agrees within its bucket error (0.78%). */
		json_t *o = ts_tier_stats_json(t);
		json_t *rd = json_object_get(json_object_get(o, TS_STATS_KEY_OPS), "read");
		CHECK_NEAR(json_number_value(json_object_get(rd, "lat_p50_ns")), p50, 0.015);
		CHECK_NEAR(json_number_value(json_object_get(rd, "lat_p99_ns")), p99, 0.025);
		CHECK_EQ_U64(json_integer_value(json_object_get(rd, TS_STATS_KEY_COUNT)), 200000);
		json_decref(o);
		free(d.lat);
		ts_tier_free(t);
	}
}

/* Below the cap latency does not depend on QD; once the cap binds it grows
 * with QD as Little's law says: mean latency = QD / cap. */
static void test_queueing(void)
{
	double base = 0, prev = 0;
	static const unsigned qds[] = { 1, 2, 4, 8, 32, 64, 128 };
	for (size_t i = 0; i < TS_ARRAY_SIZE(qds); i++) {
		struct ts_tier *t = model("ssd-cloud", 500, 3);
		struct drv d;
		drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, qds[i], 0);
		drv_rate(&d, 2000, 0);
		d.lat_sum = 0;
		d.issued = 0;
		double iops = drv_rate(&d, 0, 60000);
		double mean = d.lat_sum / (double)d.issued;
		fprintf(stderr, "ssd-cloud QD%-3u: %8.1f IOPS, mean latency %7.1f us\n", qds[i], iops,
			mean / 1e3);
		if (qds[i] == 1)
			base = mean;
		else if (qds[i] <= 8)
			CHECK_NEAR(mean, base, 0.005); /* 8 x 1 ms = 8,000/s < 15,000 */
		else {
			CHECK_NEAR(iops, 15000, 0.01);
			CHECK_NEAR(mean, qds[i] / 15000.0 * 1e9, 0.01);
			CHECK(mean > prev * 1.5);
		}
		prev = mean;
		ts_tier_free(t);
	}
}

/* A device with 4 slots and a fixed 1 ms latency serves 4,000 IOPS at any
 * QD >= 4; queueing in the slots shows in latency. */
static void test_slots(void)
{
	CHECK(drv_add_tiers(set, "tier_slots_test",
			    "tier \"four\" { parallel = 4,\n"
			    "  latency = { read = { fixed = \"1ms\" } } }\n") == 0);
	static const unsigned qds[] = { 1, 4, 16 };
	for (size_t i = 0; i < TS_ARRAY_SIZE(qds); i++) {
		struct ts_tier *t = model("four", 0, 1);
		struct drv d;
		drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, qds[i], 0);
		double iops = drv_rate(&d, 100, 10000);
		double mean = d.lat_sum / (double)d.issued;
		CHECK_NEAR(iops, 1000.0 * TS_MIN(qds[i], 4), 1e-6);
		CHECK_NEAR(mean, 1e6 * TS_MAX(1.0, qds[i] / 4.0), 0.01);
		if (qds[i] > 4)
			CHECK(d.bound[TS_TIER_BOUND_SLOTS] > d.issued / 2);
		ts_tier_free(t);
	}
}

/* A cap released in windows (cap_window): 1,000 IOPS in 100 ms windows
 * lets 100 requests through at the start of each window and holds the
 * rest to the next. 50 workers at a fixed 1 ms: the first window admits
 * them at 0 and again at 1 ms (its 100), the third round waits for 100 ms;
 * from then on each window admits the 50 held ones at its start (waited
 * 98 ms, done in 99) and the 50 they free 1 ms later (done in 1 ms). Even
 * spacing (no window) would make every request wait 50 / 1,000 = 50 ms.
 * Exact, in virtual time. */
static void test_cap_window(void)
{
	CHECK(drv_add_tiers(set, "tier_window_test",
			    "tier \"win\" { iops = 1000, cap_window = \"100ms\",\n"
			    "  latency = { read = { fixed = \"1ms\" }, write = { fixed = \"1ms\" } } }\n"
			    "tier \"win-rw\" { read_iops = 1000, write_iops = 500,\n"
			    "  cap_window = \"10ms\", io_unit = \"256KiB\",\n"
			    "  latency = { read = { fixed = \"1ms\" }, write = { fixed = \"1ms\" } } }\n"
			    "tier \"even\" { iops = 1000,\n"
			    "  latency = { read = { fixed = \"1ms\" } } }\n") == 0);
	const uint64_t ms = TS_NS_PER_MS;
	struct ts_tier *t = model("win", 0, 1);
	struct drv d;
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 50, 0);
	for (int i = 0; i < 1000; i++) {
		uint64_t now = drv_now(&d);
		double before = d.lat_sum;
		struct ts_tier_done done = drv_step(&d);
		/* Rounds of 50: round 2w (w >= 1) is issued at 100(w - 1) + 2
		 * ms and held to 100w ms; round 2w + 1 is issued at 100w + 1
		 * ms and passes; round 0 is issued at 0. */
		uint64_t round = (uint64_t)i / 50, w = round / 2;
		uint64_t want = round == 0	   ? 0
				: round % 2 == 0 ? (100 * (w - 1) + 2) * ms
						 : (100 * w + 1) * ms;
		CHECK_EQ_U64(now, want);
		bool held = round >= 2 && round % 2 == 0;
		CHECK(done.bound == (held ? TS_TIER_BOUND_IOPS : TS_TIER_BOUND_LATENCY));
		CHECK_EQ_U64((uint64_t)(d.lat_sum - before), (held ? 99 : 1) * ms);
	}
	/* Latency: half the requests 1 ms, half 99 ms (the first window's 100
	 * aside); the mean is Little's law's 50 / 1,000 s. */
	d.lat_sum = 0;
	d.issued = 0;
	double iops = drv_rate(&d, 0, 100000);
	CHECK_NEAR(iops, 1000, 1e-3);
	CHECK_NEAR(d.lat_sum / (double)d.issued, 50e6, 1e-3);
	ts_tier_free(t);

	/* Even spacing, the same load: every request waits about 50 ms. */
	t = model("even", 0, 1);
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 50, 0);
	d.lat = NULL;
	drv_rate(&d, 1000, 0);
	d.lat_sum = 0;
	d.issued = 0;
	CHECK_NEAR(drv_rate(&d, 0, 100000), 1000, 1e-3);
	CHECK_NEAR(d.lat_sum / (double)d.issued, 50e6, 1e-3);
	ts_tier_free(t);

	/* Per direction, and a request of several I/Os: 1 MiB writes cost 4
	 * I/Os of 256 KiB against 500 IOPS, 5 I/Os a 10 ms window. One writer:
	 * the first write takes 4 of the 0 ms window's 5, the second its last
	 * 1 and 3 of the next window's (its excess), the third the 10 ms
	 * window's last 2 and 2 of the next, and so on: 5 writes every 4
	 * windows, 500 IOPS. Reads keep their own 10 a window. */
	t = model("win-rw", 0, 1);
	struct ts_tier_req w = { .op = TS_TIER_WRITE, .file = 1, .off = 0, .len = TS_MiB };
	struct ts_tier_req rd = { .op = TS_TIER_READ, .file = 2, .off = 0, .len = 4096 };
	static const uint64_t wadm[] = { 0, 1, 10, 20, 30, 40, 41, 50, 60, 70 };
	uint64_t now = 0;
	for (size_t i = 0; i < TS_ARRAY_SIZE(wadm); i++) {
		w.off = i * TS_MiB;
		uint64_t end = ts_tier_submit(t, now, &w, NULL);
		CHECK_EQ_U64(end, wadm[i] * ms + ms);
		now = end;
	}
	/* 12 reads at 95 ms: 10 pass, 2 wait for 100 ms. */
	for (int i = 0; i < 12; i++) {
		rd.off = (uint64_t)i * 4096;
		CHECK_EQ_U64(ts_tier_submit(t, 95 * ms, &rd, NULL), (i < 10 ? 96 : 101) * ms);
	}
	ts_tier_free(t);

	/* No bound from the even spacing is claimed for a windowed tier. */
	const struct ts_tier_profile *p = ts_tier_set_find(set, "win");
	struct ts_tier_limits lim;
	char err[256];
	CHECK(ts_tier_effective(p, TS_GiB, &lim, err, sizeof(err)) == 0);
	CHECK(ts_tier_read_iops_cap(p, &lim) == 0);
	struct ts_tier_read_ios rio;
	ts_tier_read_ios(p, &lim, &rio);
	CHECK(rio.peak == 0);
	CHECK(ts_tier_read_iops_cap(ts_tier_set_find(set, "even"), &lim) == 1000);
}

/* Same seed, same completions; another seed, other completions. */
static void test_determinism(void)
{
	uint64_t h[3] = { 0 };
	for (int k = 0; k < 3; k++) {
		struct ts_tier *t = model("essd-pl1", 500, k == 2 ? 99 : 5);
		struct drv d;
		drv_init(&d, t, k ? TS_TIER_READ : TS_TIER_READ, DRV_RANDOM, 16384, 8, 0);
		for (int i = 0; i < 20000; i++) {
			drv_step(&d);
			h[k] = h[k] * 1000003 ^ drv_now(&d);
		}
		ts_tier_free(t);
	}
	CHECK(h[0] == h[1]);
	CHECK(h[0] != h[2]);
}

/* A model that keeps no queue depth (no_qd, a virtual run's) times every
 * request as one that does, and reports none; the other reports the
 * requests in flight, QD8's at most. */
static void test_no_qd(void)
{
	char err[512];
	const struct ts_tier_profile *p;
	CHECK(!ts_tier_set_lookup(set, "essd-pl1", &p, err, sizeof(err)));
	struct ts_tier *t[2];
	struct drv d[2];
	for (int k = 0; k < 2; k++) {
		struct ts_tier_cfg cfg = { .profile = p, .capacity = 500 * TS_GiB, .seed = 5,
					   .no_qd = k == 1 };
		CHECK(!ts_tier_new(&cfg, &t[k], err, sizeof(err)));
		drv_init(&d[k], t[k], TS_TIER_READ, DRV_RANDOM, 16384, 8, 0);
	}
	bool same = true;
	uint32_t most = 0;
	for (int i = 0; i < 20000; i++) {
		drv_step(&d[0]);
		drv_step(&d[1]);
		same &= drv_now(&d[0]) == drv_now(&d[1]);
		struct ts_tier_stats st;
		ts_tier_stats(t[0], &st);
		most = TS_MAX(most, st.queue_depth);
		ts_tier_stats(t[1], &st);
		same &= st.queue_depth == 0;
	}
	CHECK(same);
	CHECK(most >= 1 && most <= 8);
	for (int k = 0; k < 2; k++)
		ts_tier_free(t[k]);
}

/* A runtime switch to another tier changes the caps from then on. */
static void test_switch(void)
{
	struct ts_tier *t = model("ssd-cloud", 500, 1);
	struct drv d;
	drv_init(&d, t, TS_TIER_READ, DRV_RANDOM, 4096, 32, 0);
	CHECK_NEAR(drv_rate(&d, 1000, 30000), 15000, 0.01);
	char err[256];
	CHECK(ts_tier_switch(t, ts_tier_set_find(set, "ultra-cloud"), 0, err, sizeof(err)) == 0);
	CHECK_NEAR(drv_rate(&d, 1000, 10000), 3000, 0.01);
	CHECK(strcmp(ts_tier_profile(t)->name, "ultra-cloud") == 0);
	/* A capacity the tier does not offer is refused; the model is unchanged. */
	CHECK(ts_tier_switch(t, ts_tier_set_find(set, "essd-pl3"), 100 * TS_GiB, err,
			     sizeof(err)) == -ERANGE);
	CHECK(strcmp(ts_tier_profile(t)->name, "ultra-cloud") == 0);
	ts_tier_free(t);
}

static void test_faults(void)
{
	struct ts_tier *t = model("ssd-cloud", 500, 1);
	struct ts_tier_fault f = {
		.op = TS_TIER_READ, .file = 3, .off = 4096, .len = 4096, .probability = 1, .err = -EIO
	};
	CHECK(ts_tier_fault_add(t, &f) == 0);
	f.op = TS_TIER_WRITE;
	f.file = UINT64_MAX;
	f.len = 0;
	f.probability = 0.25;
	f.err = -ENOSPC;
	CHECK(ts_tier_fault_add(t, &f) == 0);
	f.err = 5;
	CHECK(ts_tier_fault_add(t, &f) == -EINVAL);

	struct ts_tier_done done;
	struct ts_tier_req r = { .op = TS_TIER_READ, .file = 3, .off = 0, .len = 4096 };
	ts_tier_submit(t, 0, &r, &done);
	CHECK(done.err == 0);
	r.off = 6000;
	uint64_t end = ts_tier_submit(t, 10, &r, &done);
	CHECK(done.err == -EIO && end == 10);
	r.file = 4;
	ts_tier_submit(t, 20, &r, &done);
	CHECK(done.err == 0);
	int nerr = 0;
	r.op = TS_TIER_WRITE;
	for (int i = 0; i < 4000; i++) {
		ts_tier_submit(t, 1000 + (uint64_t)i * TS_NS_PER_MS, &r, &done);
		nerr += done.err == -ENOSPC;
	}
	CHECK(nerr > 900 && nerr < 1100);
	json_t *o = ts_tier_stats_json(t);
	json_t *wr = json_object_get(json_object_get(o, TS_STATS_KEY_OPS), "write");
	CHECK_EQ_U64(json_integer_value(json_object_get(wr, TS_STATS_KEY_ERRORS)), (uint64_t)nerr);
	json_decref(o);
	ts_tier_fault_clear(t);
	ts_tier_submit(t, 10 * TS_NS_PER_S, &r, &done);
	CHECK(done.err == 0);
	ts_tier_free(t);
}

/* The text form of a rule (tierfs's fault=) parses, prints back the same,
 * refuses bad fields naming them; path globs match by name or whole path. */
static void test_fault_text(void)
{
	static const struct {
		const char *in, *out;
	} good[] = {
		{ "read:EIO", "read:EIO:1" },
		{ "read:EIO:0.01", "read:EIO:0.01" },
		{ "write:ENOSPC:path=*.rec", "write:ENOSPC:1:path=*.rec" },
		{ "any:5:off=4k-8k:0.5", "any:EIO:0.5:off=4096-8192" },
		{ "meta:ENOENT:path=/train/n0144*", "meta:ENOENT:1:path=/train/n0144*" },
		{ "fdatasync:EROFS:1", "fdatasync:EROFS:1" },
	};
	char err[256], buf[512];
	for (size_t i = 0; i < TS_ARRAY_SIZE(good); i++) {
		struct ts_tier_fault f, g;
		CHECK(ts_tier_fault_parse(good[i].in, &f, err, sizeof(err)) == 0);
		CHECK(f.file == UINT64_MAX);
		ts_tier_fault_format(&f, buf, sizeof(buf));
		if (strcmp(buf, good[i].out))
			fprintf(stderr, "%s -> %s, expected %s\n", good[i].in, buf, good[i].out);
		CHECK(strcmp(buf, good[i].out) == 0);
		CHECK(ts_tier_fault_parse(buf, &g, err, sizeof(err)) == 0);
		CHECK(f.op == g.op && f.err == g.err && f.probability == g.probability &&
		      f.off == g.off && f.len == g.len && strcmp(f.path, g.path) == 0);
	}
	static const struct {
		const char *in, *names;
	} bad[] = {
		{ "read", "expected OP:ERRNO" },
		{ "reed:EIO", "op 'reed'" },
		{ "read:EIOO", "'EIOO' is not an errno" },
		{ "read:0", "'0' is not an errno" },
		{ "read:EIO:1.5", "probability '1.5'" },
		{ "read:EIO:off=8k-4k", "'off=8k-4k'" },
		{ "read:EIO:path=", "path= needs a glob" },
		{ "read:EIO:0.5:0.5", "unexpected '0.5'" },
		{ "read:EIO:size=4", "unexpected 'size=4'" },
	};
	for (size_t i = 0; i < TS_ARRAY_SIZE(bad); i++) {
		struct ts_tier_fault f;
		err[0] = 0;
		CHECK(ts_tier_fault_parse(bad[i].in, &f, err, sizeof(err)) == TS_E_PARSE);
		if (!strstr(err, bad[i].names))
			fprintf(stderr, "%s: got '%s'\n", bad[i].in, err);
		CHECK(strstr(err, bad[i].names) != NULL);
	}

	/* Globs: a name without '/' matches the last component; one with a
	 * '/' the whole path, '*' crossing '/'. No path: no match. */
	struct ts_tier *t = model("unlimited", 0, 1);
	struct ts_tier_fault f;
	CHECK(ts_tier_fault_parse("read:EIO:path=s017.jpg", &f, err, sizeof(err)) == 0);
	CHECK(ts_tier_fault_add(t, &f) == 0);
	CHECK(ts_tier_fault_parse("any:EACCES:path=*/n0144*", &f, err, sizeof(err)) == 0);
	CHECK(ts_tier_fault_add(t, &f) == 0);
	static const struct {
		enum ts_tier_op op;
		const char *path;
		int err;
	} cases[] = {
		{ TS_TIER_READ, "/cls/s017.jpg", -EIO },
		{ TS_TIER_WRITE, "/cls/s017.jpg", 0 },
		{ TS_TIER_READ, "/cls/s0170.jpg", 0 },
		{ TS_TIER_READ, "/s017.jpg/x", 0 },
		{ TS_TIER_READ, NULL, 0 },
		{ TS_TIER_READ, "/train/n01440764/x.JPEG", -EACCES },
		{ TS_TIER_META, "/train/n01440764", -EACCES },
		{ TS_TIER_WRITE, "/val/n01443537/y.JPEG", -EACCES },
		{ TS_TIER_READ, "/train/n01530575/x.JPEG", 0 },
	};
	for (size_t i = 0; i < TS_ARRAY_SIZE(cases); i++) {
		struct ts_tier_done d;
		struct ts_tier_req r = {
			.op = cases[i].op, .file = 1, .len = 4096, .path = cases[i].path
		};
		ts_tier_submit(t, 0, &r, &d);
		if (d.err != cases[i].err)
			fprintf(stderr, "%s: err %d, expected %d\n", cases[i].path, d.err,
				cases[i].err);
		CHECK(d.err == cases[i].err);
	}
	struct ts_tier_fault list[TS_TIER_MAX_FAULTS];
	CHECK(ts_tier_fault_list(t, list, TS_TIER_MAX_FAULTS) == 2);
	CHECK(strcmp(list[1].path, "*/n0144*") == 0);
	json_t *o = ts_tier_stats_json(t);
	json_t *fo = json_object_get(o, "faults");
	CHECK_EQ_U64(json_integer_value(json_object_get(fo, "rules")), 2);
	CHECK_EQ_U64(json_integer_value(json_object_get(fo, "injected")), 4);
	json_decref(o);
	ts_tier_fault_clear(t);
	CHECK(ts_tier_fault_list(t, list, TS_TIER_MAX_FAULTS) == 0);
	ts_tier_free(t);
}

/* unlimited: no latency, no cap; floor_ns never makes time run backwards. */
static void test_unlimited_floor(void)
{
	char err[256];
	const struct ts_tier_profile *p = ts_tier_set_find(set, "unlimited");
	struct ts_tier_cfg cfg = { .profile = p };
	struct ts_tier *t;
	CHECK(ts_tier_new(&cfg, &t, err, sizeof(err)) == 0);
	struct ts_tier_req r = { .op = TS_TIER_READ, .file = 1, .off = 0, .len = TS_MiB };
	CHECK_EQ_U64(ts_tier_submit(t, 12345, &r, NULL), 12345);
	ts_tier_free(t);

	/* ssd-cloud with a 300 us floor: injected latency is 300 us less. */
	cfg.profile = ts_tier_set_find(set, "ssd-cloud");
	cfg.seed = 4;
	struct ts_tier *a, *b;
	CHECK(ts_tier_new(&cfg, &a, err, sizeof(err)) == 0);
	cfg.floor_ns = 300000;
	CHECK(ts_tier_new(&cfg, &b, err, sizeof(err)) == 0);
	for (int i = 0; i < 1000; i++) {
		uint64_t now = (uint64_t)i * 10 * TS_NS_PER_MS;
		uint64_t ea = ts_tier_submit(a, now, &r, NULL), eb = ts_tier_submit(b, now, &r, NULL);
		CHECK_EQ_U64(eb, ea - now > 300000 ? ea - 300000 : now);
	}
	ts_tier_free(a);
	ts_tier_free(b);
	/* Too small a page cache is refused with a message. */
	cfg.mem = 64 * TS_KiB;
	CHECK(ts_tier_new(&cfg, &a, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "mem") != NULL);
}

struct thr {
	struct ts_tier *t;
	uint64_t file, bytes;
};

static void *hammer(void *arg)
{
	struct thr *h = arg;
	struct ts_rng r;
	ts_rng_seed(&r, h->file);
	uint64_t now = 0;
	for (int i = 0; i < 50000; i++) {
		struct ts_tier_req q = { .op = i % 5 ? TS_TIER_READ : TS_TIER_WRITE,
					 .file = h->file,
					 .off = ts_rng_below(&r, 4096) * 4096,
					 .len = 4096 * (1 + ts_rng_below(&r, 4)) };
		now = ts_tier_submit(h->t, now, &q, NULL);
		h->bytes += q.len;
		if (i % 10000 == 0)
			json_decref(ts_tier_stats_json(h->t)); /* stats read while others submit */
	}
	return NULL;
}

/* Several threads at once (tierfs's FUSE workers): every request is
 * counted, nothing is lost or torn (run under ASan/UBSan in CI). */
static void test_threads(void)
{
	char err[256];
	struct ts_tier_cfg cfg = { .profile = ts_tier_set_find(set, "essd-pl1"),
				   .mem = 64 * TS_MiB,
				   .seed = 1 };
	struct ts_tier *t;
	CHECK(ts_tier_new(&cfg, &t, err, sizeof(err)) == 0);
	pthread_t th[4];
	struct thr h[4];
	for (int i = 0; i < 4; i++) {
		h[i] = (struct thr){ .t = t, .file = (uint64_t)i + 1 };
		CHECK(pthread_create(&th[i], NULL, hammer, &h[i]) == 0);
	}
	uint64_t bytes = 0;
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		bytes += h[i].bytes;
	}
	json_t *o = ts_tier_stats_json(t);
	json_t *ops = json_object_get(o, TS_STATS_KEY_OPS);
	uint64_t n = (uint64_t)json_integer_value(json_object_get(json_object_get(ops, TS_STATS_KEY_READ), "count")) +
		     (uint64_t)json_integer_value(json_object_get(json_object_get(ops, TS_STATS_KEY_WRITE), "count"));
	uint64_t b = (uint64_t)json_integer_value(json_object_get(json_object_get(ops, TS_STATS_KEY_READ), "bytes")) +
		     (uint64_t)json_integer_value(json_object_get(json_object_get(ops, TS_STATS_KEY_WRITE), "bytes"));
	CHECK_EQ_U64(n, 200000);
	CHECK_EQ_U64(b, bytes);
	json_decref(o);
	ts_tier_free(t);
}

/* The configuration's option table: what tierfs -o and Lua setters use. */
static void test_options(void)
{
	struct ts_tier_cfg cfg;
	char err[256];
	CHECK(ts_opt_defaults(ts_tier_cfg_opts, &cfg, err, sizeof(err)) == 0);
	CHECK_EQ_U64(cfg.seed, 1);
	CHECK_EQ_U64(cfg.mem, 0);
	CHECK(ts_opt_set_kv(ts_tier_cfg_opts, &cfg, "mem=4GiB", err, sizeof(err)) == 0);
	CHECK(ts_opt_set_kv(ts_tier_cfg_opts, &cfg, "capacity=500GiB", err, sizeof(err)) == 0);
	CHECK(ts_opt_set_kv(ts_tier_cfg_opts, &cfg, "floor=40us", err, sizeof(err)) == 0);
	CHECK(ts_opt_set_kv(ts_tier_cfg_opts, &cfg, "mem_rate=8GB/s", err, sizeof(err)) == 0);
	CHECK_EQ_U64(cfg.mem, 4 * TS_GiB);
	CHECK_EQ_U64(cfg.capacity, 500 * TS_GiB);
	CHECK_EQ_U64(cfg.floor_ns, 40000);
	CHECK_EQ_U64(cfg.mem_bps, 8000000000ULL);
	CHECK(ts_opt_set_kv(ts_tier_cfg_opts, &cfg, "mem=lots", err, sizeof(err)) != 0);
	ts_opt_free(ts_tier_cfg_opts, &cfg);
}

/* ---- Keyed draws (ts_tier_draw_keyed) ------------------------------------ */

/* A tier with no caps and no slots: a request's time is its draw alone. */
static struct ts_tier *keyed_model(uint64_t seed, bool keyed)
{
	static bool added;
	if (!added) {
		CHECK(drv_add_tiers(set, "tier_keyed_test",
				    "tier \"keyed\" { latency = {\n"
				    "  read = { p50 = \"1ms\", p99 = \"2ms\" },\n"
				    "  write = { lo = \"100us\", hi = \"300us\",\n"
				    "    stall = { p = 0.05, lo = \"10ms\", hi = \"20ms\" } },\n"
				    "  meta = { fixed = \"50us\" } } }\n") == 0);
		added = true;
	}
	struct ts_tier *t = model("keyed", 0, seed);
	if (keyed)
		ts_tier_draw_keyed(t, true);
	return t;
}

/* Request @i's time: a 4 KiB read of file 1 at i's block, keyed 3i+7
 * (none given without keyed draws), issued at @now. */
static uint64_t keyed_read(struct ts_tier *t, bool keyed, uint64_t i, uint64_t now)
{
	if (keyed)
		ts_tier_draw_key(t, 3 * i + 7);
	struct ts_tier_req q = { .op = TS_TIER_READ, .file = 1, .off = i * 4096, .len = 4096,
				 .direct = true };
	return ts_tier_submit(t, now, &q, NULL) - now;
}

#define KEYED_N 1000
#define KEYED_GONE 500 /* the request the second run leaves out */

/* @lat[i] for requests 0..KEYED_N-1 one after another (@gone: that one
 * left out, lat 0), keyed or from the stream. */
static void keyed_run(uint64_t seed, bool keyed, uint64_t gone, uint64_t *lat)
{
	struct ts_tier *t = keyed_model(seed, keyed);
	uint64_t now = 0;
	for (uint64_t i = 0; i < KEYED_N; i++) {
		lat[i] = i == gone ? 0 : keyed_read(t, keyed, i, now);
		now += lat[i];
	}
	ts_tier_free(t);
}

/* One request left out: every other request keeps its latency with keyed
 * draws; from the stream, every later one takes another draw (what a
 * replay with the recording's seed did). */
static void test_keyed_removed(void)
{
	static uint64_t a[KEYED_N], b[KEYED_N], sa[KEYED_N], sb[KEYED_N];
	keyed_run(5, true, UINT64_MAX, a);
	keyed_run(5, true, KEYED_GONE, b);
	keyed_run(5, false, UINT64_MAX, sa);
	keyed_run(5, false, KEYED_GONE, sb);
	unsigned same = 0, stream_after = 0, stream_keyed = 0;
	for (unsigned i = 0; i < KEYED_N; i++) {
		same += i != KEYED_GONE && a[i] == b[i];
		stream_after += i > KEYED_GONE && sa[i] == sb[i];
		stream_keyed += a[i] == sa[i];
	}
	fprintf(stderr, "one of %d left out: keyed %u of %d the same; the stream %u of %d after it; "
		"keyed and stream alike %u\n", KEYED_N, same, KEYED_N - 1, stream_after,
		KEYED_N - 1 - KEYED_GONE, stream_keyed);
	CHECK(same == KEYED_N - 1);
	CHECK(stream_after < 5);
	/* the stream's draws at the same seed are not the keyed ones */
	CHECK(stream_keyed < 5);
	/* the same keys in another order: the same latencies */
	struct ts_tier *t = keyed_model(5, true);
	unsigned back = 0;
	for (uint64_t i = KEYED_N; i-- > 0;)
		back += keyed_read(t, true, i, 1000000000ULL * i) == a[i];
	ts_tier_free(t);
	CHECK(back == KEYED_N);
}

/* Requests added under one key: a metadata read and a read of another
 * file before a data read leave its draw; a repeat of one request under
 * the same key takes a draw of its own, the first its draw as before. */
static void test_keyed_added(void)
{
	static uint64_t a[KEYED_N];
	keyed_run(5, true, UINT64_MAX, a);
	struct ts_tier *t = keyed_model(5, true);
	ts_tier_draw_key(t, 3 * 300 + 7);
	struct ts_tier_req m = { .op = TS_TIER_META, .file = 1 };
	struct ts_tier_req o = { .op = TS_TIER_READ, .file = 99, .off = 0, .len = 4096, .direct = true };
	CHECK_EQ_U64(ts_tier_submit(t, 0, &m, NULL), 50000);
	uint64_t other = ts_tier_submit(t, 0, &o, NULL);
	uint64_t lat = keyed_read(t, true, 300, 0);
	CHECK_EQ_U64(lat, a[300]);
	uint64_t again = keyed_read(t, true, 300, 0);
	CHECK(again != lat);
	CHECK(other != lat);
	/* the key given again starts its count again: the first draw again */
	ts_tier_draw_key(t, 1);
	CHECK_EQ_U64(keyed_read(t, true, 300, 0), a[300]);
	ts_tier_free(t);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

#define KEYED_DRAWS 100000

/* The distributions are the profile's: 100,000 keyed reads at seeds 5 and
 * 6 each have the lognormal's p50 (1 ms) and p99 (2 ms); uniform writes
 * lie in 100-300 us with 5% stalled 10-20 ms on top; a fixed metadata
 * time is fixed. Same seed, same draws; another seed, other draws. */
static void test_keyed_dist(void)
{
	static uint64_t lat[2][KEYED_DRAWS];
	uint64_t h[3] = { 0 };
	for (int s = 0; s < 3; s++) {
		struct ts_tier *t = keyed_model(s == 1 ? 6 : 5, true);
		uint64_t now = 0;
		unsigned stalled = 0, body_out = 0, meta_off = 0;
		uint64_t body[KEYED_DRAWS / 4], nbody = 0;
		for (uint64_t i = 0; i < KEYED_DRAWS; i++) {
			uint64_t l = keyed_read(t, true, i, now);
			now += l;
			h[s] = h[s] * 1000003 ^ l;
			if (s < 2)
				lat[s][i] = l;
			if (i % 4)
				continue;
			struct ts_tier_req w = { .op = TS_TIER_WRITE, .file = 2, .off = i * 4096,
						 .len = 4096, .direct = true };
			uint64_t wl = ts_tier_submit(t, now, &w, NULL) - now;
			struct ts_tier_req m = { .op = TS_TIER_META, .file = 3 + i };
			meta_off += ts_tier_submit(t, now, &m, NULL) - now != 50000;
			if (wl >= 10000000) {
				stalled++;
				body_out += wl > 20300000;
			} else {
				body_out += wl < 100000 || wl > 300000;
				body[nbody++] = wl;
			}
		}
		ts_tier_free(t);
		if (s == 2)
			break;
		qsort(lat[s], KEYED_DRAWS, sizeof(uint64_t), cmp_u64);
		qsort(body, nbody, sizeof(uint64_t), cmp_u64);
		double p50 = (double)lat[s][KEYED_DRAWS / 2], p99 = (double)lat[s][KEYED_DRAWS / 100 * 99];
		double share = (double)stalled / (KEYED_DRAWS / 4);
		fprintf(stderr, "seed %d: %d keyed reads p50 %.1f us (profile 1000), p99 %.1f us "
			"(2000); writes stalled %.4f (0.05), body p50 %.1f us (200)\n", s ? 6 : 5,
			KEYED_DRAWS, p50 / 1e3, p99 / 1e3, share, (double)body[nbody / 2] / 1e3);
		CHECK_NEAR(p50, 1e6, 0.01);
		CHECK_NEAR(p99, 2e6, 0.02);
		CHECK_NEAR(share, 0.05, 0.1);
		CHECK_NEAR((double)body[nbody / 2], 200000, 0.02);
		CHECK_EQ_U64(body_out, 0);
		CHECK_EQ_U64(meta_off, 0);
	}
	CHECK(h[0] == h[2]);
	CHECK(h[0] != h[1]);
}

int main(int argc, char **argv)
{
	char err[512];
	if (ts_tier_set_load_default(&set, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	const char *only = argc > 1 ? argv[1] : NULL;
	int ran = 0;
#define RUN(f)                                                  \
	do {                                                    \
		if (!only || strcmp(only, #f) == 0) {           \
			f();                                    \
			ran++;                                  \
		}                                               \
	} while (0)
	/* The one list of cases: meson.build makes a test of each RUN(test_NAME)
	 * line, one per line, tab-indented. */
	RUN(test_caps);
	RUN(test_gp2_20);
	RUN(test_gp2_100);
	RUN(test_gp2_334);
	RUN(test_gp2_750);
	RUN(test_gp2_1000);
	RUN(test_bucket_set);
	RUN(test_st1);
	RUN(test_ebs);
	RUN(test_accounting);
	RUN(test_merge_window);
	RUN(test_merge_window_cached);
	RUN(test_latency);
	RUN(test_queueing);
	RUN(test_slots);
	RUN(test_cap_window);
	RUN(test_determinism);
	RUN(test_no_qd);
	RUN(test_switch);
	RUN(test_faults);
	RUN(test_fault_text);
	RUN(test_unlimited_floor);
	RUN(test_threads);
	RUN(test_options);
	RUN(test_keyed_removed);
	RUN(test_keyed_added);
	RUN(test_keyed_dist);
	ts_tier_set_free(set);
	if (!ran) {
		fprintf(stderr, "no test named %s\n", only);
		return 1;
	}
	return tc_exit();
}
