/*
 * test_fiojob.c — the closed-loop fio job of validation/fiojob.c in virtual
 * time, where the model is exact: a latency-bound loop gives QD / latency,
 * a cap-bound one gives the cap with latency QD / IOPS (Little's law), a
 * burst bucket lasts bucket / (burst - base) seconds, a latency's spread
 * comes back as its standard deviation, and count / io_size stop the job
 * where they should.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tcheck.h"
#include "tier/tier.h"
#include "validation/fiojob.h"

static const char prof[] =
	"tier \"fixed1ms\" { latency = { read = { fixed = \"1ms\" }, write = { fixed = \"1ms\" } } }\n"
	"tier \"cap1000\" { iops = 1000, latency = { read = { fixed = \"100us\" } } }\n"
	"tier \"bw\" { mibps = 100, latency = { read = { fixed = \"10us\" } } }\n"
	"tier \"burst\" { iops = 1000, burst = { kind = \"iops\", iops = 1100, bucket = 1000 },\n"
	"  latency = { write = { fixed = \"100us\" } } }\n"
	"tier \"stall\" { latency = { write = { fixed = \"100us\",\n"
	"  stall = { p = 0.25, lo = \"1ms\", hi = \"1ms\" } } } }\n";

static struct ts_fiojob_result run(const struct ts_tier_set *s, const char *tier,
				   struct ts_fiojob j)
{
	char err[256];
	struct ts_fiojob_result r = { 0 };
	if (!j.size)
		j.size = 64 << 20;
	if (ts_fiojob_run(ts_tier_set_find(s, tier), 0, &j, &r, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", tier, err);
		tc_failures++;
	}
	return r;
}

int main(void)
{
	char path[] = "/tmp/test_fiojob.XXXXXX", err[256];
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, prof, sizeof(prof) - 1) == (ssize_t)(sizeof(prof) - 1));
	close(fd);
	struct ts_tier_set *s;
	int rc = ts_tier_set_load(path, &s, err, sizeof(err));
	unlink(path);
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	struct ts_fiojob_result r;

	/* Latency-bound: 4 jobs x QD2 of 1 ms each = 8,000 IOPS. */
	r = run(s, "fixed1ms", (struct ts_fiojob){ .random = true, .bs = 4096, .iodepth = 2,
						   .numjobs = 4, .runtime = 2000000000ull });
	CHECK_NEAR(r.iops, 8000, 0.001);
	CHECK_NEAR(r.lat_mean_ns, 1e6, 1e-9);
	CHECK_NEAR(r.lat_p50_ns, 1e6, 0.01);
	CHECK(r.lat_stdev_ns < 1); /* a fixed latency has none */

	/* Cap-bound: QD32 on 1,000 IOPS waits 32 ms per request. */
	r = run(s, "cap1000", (struct ts_fiojob){ .random = true, .bs = 4096, .iodepth = 32,
						  .numjobs = 1, .runtime = 20000000000ull });
	CHECK_NEAR(r.iops, 1000, 0.01);
	CHECK_NEAR(r.lat_mean_ns, 32e6, 0.02);

	/* Bandwidth-bound: 1 MiB requests on 100 MiB/s. */
	r = run(s, "bw", (struct ts_fiojob){ .bs = 1 << 20, .iodepth = 8, .numjobs = 1,
					     .runtime = 10000000000ull });
	CHECK_NEAR(r.mibps, 100, 0.01);
	CHECK_NEAR(r.mbps, 100 * 1.048576, 0.01);

	/* A stall: a quarter of the writes take 1 ms more. One at a time for
	 * 40,000 writes: the median write is the body, the 99th percentile
	 * body + stall, the mean 100 us + 0.25 ms (the share's binomial
	 * spread is 0.2% of it, 0.6% of the mean). */
	r = run(s, "stall", (struct ts_fiojob){ .write = true, .random = true, .bs = 4096,
						.iodepth = 1, .numjobs = 1, .count = 40000 });
	CHECK_NEAR(r.lat_p50_ns, 100e3, 0.01);
	CHECK_NEAR(r.lat_p99_ns, 1100e3, 0.01);
	CHECK_NEAR(r.lat_mean_ns, 350e3, 0.01);
	/* Its standard deviation (ioping's mdev): two points 1 ms apart with
	 * shares 0.25 and 0.75, sqrt(0.25 x 0.75) x 1 ms = 433 us. */
	CHECK_NEAR(r.lat_stdev_ns, 433.0e3, 0.01);

	/* Serial (posixaio): four queued, the volume sees one at a time. A
	 * 1 ms write completes 1,000 a second, each after the four queued
	 * at its submission: 4 ms (the first three waited 1, 2 and 3 ms). */
	r = run(s, "fixed1ms", (struct ts_fiojob){ .write = true, .bs = 4096, .iodepth = 4,
						   .numjobs = 1, .runtime = 2000000000ull,
						   .serial = true });
	CHECK_NEAR(r.iops, 1000, 0.001);
	CHECK_NEAR(r.lat_p50_ns, 4e6, 0.01);
	CHECK_NEAR(r.lat_mean_ns, 4e6, 0.001);
	/* The same without serial: four at once, 4,000 a second, 1 ms each. */
	r = run(s, "fixed1ms", (struct ts_fiojob){ .write = true, .bs = 4096, .iodepth = 4,
						   .numjobs = 1, .runtime = 2000000000ull });
	CHECK_NEAR(r.iops, 4000, 0.001);
	CHECK_NEAR(r.lat_mean_ns, 1e6, 1e-9);
	/* Serial is one job on one volume. */
	{
		struct ts_fiojob j = { .bs = 4096, .iodepth = 2, .numjobs = 2, .size = 1 << 20,
				       .runtime = 1000000ull, .serial = true };
		CHECK(ts_fiojob_run(ts_tier_set_find(s, "fixed1ms"), 0, &j, &r, err, sizeof(err)) ==
		      -EINVAL);
		CHECK(strstr(err, "serial") != NULL);
	}

	/* Burst: 1,100 IOPS while 1,000 credits last (1,000 / 100 = 10 s), then
	 * 1,000: a 10 s run sees 1,100, a 20 s one 1,050. */
	r = run(s, "burst", (struct ts_fiojob){ .write = true, .random = true, .bs = 4096,
						.iodepth = 16, .numjobs = 1, .runtime = 10000000000ull });
	CHECK_NEAR(r.iops, 1100, 0.01);
	r = run(s, "burst", (struct ts_fiojob){ .write = true, .random = true, .bs = 4096,
						.iodepth = 16, .numjobs = 1, .runtime = 20000000000ull });
	CHECK_NEAR(r.iops, 1050, 0.01);

	/* The bucket as the run before left it: empty, then 0.5 s idle gathers
	 * 500 credits (at the baseline, 1,000/s), spent 100/s above it over
	 * 5 s at 1,100 IOPS; a 10 s run from there sees
	 * (5 x 1,100 + 5 x 1,000) / 10 = 1,050, with no idle 1,000. The
	 * runtime counts from the job's start, not from t = 0. */
	r = run(s, "burst", (struct ts_fiojob){ .write = true, .random = true, .bs = 4096,
						.iodepth = 16, .numjobs = 1, .runtime = 10000000000ull,
						.bucket_set = true, .idle_ns = 500000000ull });
	CHECK_NEAR(r.iops, 1050, 0.01);
	CHECK(r.elapsed_ns == 10000000000ull);
	r = run(s, "burst", (struct ts_fiojob){ .write = true, .random = true, .bs = 4096,
						.iodepth = 16, .numjobs = 1, .runtime = 10000000000ull,
						.bucket_set = true });
	CHECK_NEAR(r.iops, 1000, 0.01);

	/* Windows of the run, counted from the job's start (after the idle):
	 * the same 10 s run from 500 credits holds 1,100 for its first 5 s and
	 * 1,000 after, and a window across the drop reads its mean. */
	{
		struct ts_fiojob j = { .write = true, .random = true, .bs = 4096, .iodepth = 16,
				       .numjobs = 1, .size = 64 << 20, .runtime = 10000000000ull,
				       .bucket_set = true, .idle_ns = 500000000ull, .nwin = 3,
				       .win_from = { 1000000000ull, 6000000000ull, 3000000000ull },
				       .win_to = { 4000000000ull, 10000000000ull, 7000000000ull } };
		r = run(s, "burst", j);
		CHECK_NEAR(r.win_iops[0], 1100, 0.01);
		CHECK_NEAR(r.win_iops[1], 1000, 0.01);
		CHECK_NEAR(r.win_iops[2], 1050, 0.01);
		CHECK_NEAR(r.iops, 1050, 0.01);
		j.nwin = 1;
		j.win_from[0] = j.win_to[0];
		CHECK(ts_fiojob_run(ts_tier_set_find(s, "burst"), 0, &j, &r, err, sizeof(err)) ==
		      -EINVAL);
		CHECK(strstr(err, "window") != NULL);
	}

	/* ioping: 10 requests 1 s apart; count and io_size stop the job. */
	r = run(s, "fixed1ms", (struct ts_fiojob){ .bs = 4096, .iodepth = 1, .numjobs = 1,
						   .count = 10, .think_ns = 1000000000ull });
	CHECK(r.ios == 10);
	CHECK_NEAR(r.lat_mean_ns, 1e6, 1e-9);
	r = run(s, "fixed1ms", (struct ts_fiojob){ .bs = 4096, .iodepth = 4, .numjobs = 2,
						   .io_limit = 1 << 20 });
	CHECK(r.ios == 2 * 256 && r.bytes == 2u << 20);

	/* RAID-0: two 1,000-IOPS volumes give 2,000; one 1 MiB request on
	 * 100 MiB/s volumes striped in 512 KiB chunks moves half on each, so a
	 * QD1 job moves 200 MiB/s; with 1 MiB chunks each request lands whole
	 * on one volume and QD1 gets 100. */
	r = run(s, "cap1000", (struct ts_fiojob){ .random = true, .bs = 4096, .iodepth = 32,
						  .numjobs = 4, .runtime = 20000000000ull, .raid0 = 2 });
	CHECK_NEAR(r.iops, 2000, 0.01);
	r = run(s, "bw", (struct ts_fiojob){ .bs = 1 << 20, .iodepth = 1, .numjobs = 1,
					     .runtime = 10000000000ull, .raid0 = 2 });
	CHECK_NEAR(r.mibps, 200, 0.01);
	r = run(s, "bw", (struct ts_fiojob){ .bs = 1 << 20, .iodepth = 1, .numjobs = 1,
					     .runtime = 10000000000ull, .raid0 = 2,
					     .raid_chunk = 1 << 20 });
	CHECK_NEAR(r.mibps, 100, 0.01);

	/* Bad jobs are refused with a message. */
	struct ts_fiojob_result x;
	struct ts_fiojob bad = { .bs = 4096, .iodepth = 0, .numjobs = 1, .size = 1 << 20,
				 .runtime = 1 };
	CHECK(ts_fiojob_run(ts_tier_set_find(s, "fixed1ms"), 0, &bad, &x, err, sizeof(err)) < 0);
	bad.iodepth = 1;
	bad.runtime = 0;
	CHECK(ts_fiojob_run(ts_tier_set_find(s, "fixed1ms"), 0, &bad, &x, err, sizeof(err)) < 0);

	/* One instance's limits across an array bind the volumes' sum, as
	 * AWS's do: two 1,000-IOPS volumes under a 1,500-IOPS instance give
	 * 1,500 (not 2,000, nor each volume's share). Request k is admitted at
	 * k / 1,500 s - 10 ms (the limiter's tolerance) and done 100 us later,
	 * so the 20 s run completes k = 0 .. 30,014. Two 100 MiB/s volumes
	 * under 150 MiB/s: 150, not 200. */
	r = run(s, "cap1000", (struct ts_fiojob){ .random = true, .bs = 4096, .iodepth = 32,
						  .numjobs = 4, .runtime = 20000000000ull, .raid0 = 2,
						  .ebs = { .iops = 1500 } });
	CHECK_EQ_U64(r.ios, 30015);
	r = run(s, "bw", (struct ts_fiojob){ .bs = 1 << 20, .iodepth = 1, .numjobs = 1,
					     .runtime = 10000000000ull, .raid0 = 2,
					     .ebs = { .bps = 150.0 * (1 << 20) } });
	CHECK_NEAR(r.mibps, 150, 0.002);
	/* ... and below the instance's limits the volumes bind as before */
	r = run(s, "cap1000", (struct ts_fiojob){ .random = true, .bs = 4096, .iodepth = 32,
						  .numjobs = 4, .runtime = 20000000000ull, .raid0 = 2,
						  .ebs = { .iops = 3000 } });
	CHECK_NEAR(r.iops, 2000, 0.01);
	bad.runtime = 1;
	bad.raid0 = TS_FIOJOB_MAX_RAID + 1;
	CHECK(ts_fiojob_run(ts_tier_set_find(s, "fixed1ms"), 0, &bad, &x, err, sizeof(err)) < 0);
	CHECK(strstr(err, "RAID-0") != NULL);

	ts_tier_set_free(s);
	return tc_failures ? 1 : 0;
}
