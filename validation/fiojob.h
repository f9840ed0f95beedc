/*
 * fiojob.h — what a closed-loop fio (or ioping) job achieves on a tier
 * model, in virtual time.
 *
 * fio keeps iodepth requests in flight in each of numjobs jobs: each
 * completion issues that slot's next request at once. The model is the one
 * tierfs uses (tier/tier.h), driven here by a virtual clock with no FUSE
 * floor, so the result is what an application on the emulated disk should
 * measure with O_DIRECT: IOPS, bandwidth and completion latency (mean,
 * p50, p99 from core/hist.h). bench/tier_target and `tiersim validate`
 * both run jobs through this one function.
 */
#ifndef TS_FIOJOB_H
#define TS_FIOJOB_H

#include <stdbool.h>
#include <stdint.h>

#include "core/ts.h"

#include "tier/tier.h"

/* Most windows one job reports (struct ts_fiojob, win_from). */
#define TS_FIOJOB_MAX_WIN 4

struct ts_fiojob {
	bool random;	   /* randread / randwrite; else sequential */
	bool write;	   /* write / randwrite; else read */
	uint64_t bs;	   /* bytes per request */
	unsigned iodepth;  /* requests in flight per job */
	unsigned numjobs;  /* jobs, each on its own file (fio's default) */
	uint64_t runtime;  /* ns; 0 = until size is done */
	uint64_t size;	   /* bytes each job's file holds (the offsets it covers) */
	uint64_t io_limit; /* bytes each job moves before it stops; 0 = runtime only */
	uint64_t count;	   /* requests in all before the job stops (ioping -c); 0 = no limit */
	uint64_t think_ns; /* idle time between a completion and the slot's next request (ioping -i) */
	/* Each job's requests reach the volume one at a time, in the order
	 * issued, while fio counts each from its own submission (fio's
	 * posixaio engine: glibc serves one file descriptor's requests one
	 * after another), so a completion latency is the wait behind the
	 * requests queued before it plus its own. */
	bool serial;
	uint64_t seed;	   /* offsets and latency samples */
	/* The burst bucket as a previous run left it: with bucket_set, it
	 * holds bucket_fill (0..1) of its size at t = 0 and the job's first
	 * requests go at t = idle_ns (the pause between the two runs); without,
	 * the bucket starts full and the job at once. */
	bool bucket_set;
	double bucket_fill;
	uint64_t idle_ns;
	/* The EBS limits of the instance the volume is attached to (all 0: none). */
	struct ts_tier_ebs ebs;
	/* A RAID-0 of this many volumes of the tier (0 or 1: one volume), each
	 * its own model, striped in chunks of raid_chunk bytes (0:
	 * TS_FIOJOB_RAID_CHUNK), the jobs on the array's one block device as
	 * fio on md0; a request across a chunk's end goes to both volumes and
	 * completes with the later part. The instance's limits above cap the
	 * array's volumes together (struct ts_tier_instance): their sum, not
	 * each one. */
	unsigned raid0;
	uint64_t raid_chunk;
	/* Windows of the run, [win_from, win_to) in ns from the job's start
	 * (after idle_ns): the result counts the completions inside each, the
	 * mean of fio's one-second IOPS log (write_iops_log, log_avg_msec=1000)
	 * over the seconds the window spans. */
	unsigned nwin;
	uint64_t win_from[TS_FIOJOB_MAX_WIN], win_to[TS_FIOJOB_MAX_WIN];
};

/* mdadm's default chunk (mdadm(8), --chunk: 512 KiB since mdadm 3.1):
 * ASSUMED for an array whose chunk was not published. */
#define TS_FIOJOB_RAID_CHUNK (512 * TS_KiB)
/* Most volumes in an array. */
#define TS_FIOJOB_MAX_RAID 64

struct ts_fiojob_result {
	uint64_t ios, bytes;
	uint64_t elapsed_ns; /* virtual time from the job's start to its last completion */
	double iops, mbps, mibps;
	double lat_mean_ns, lat_p50_ns, lat_p99_ns;
	double lat_stdev_ns; /* population standard deviation, as fio's and ioping's */
	double win_iops[TS_FIOJOB_MAX_WIN]; /* completions per second in each window */
};

/* Largest iodepth x numjobs one job may keep in flight. */
#define TS_FIOJOB_MAX_INFLIGHT 4096

/*
 * Runs @job on a fresh model of @tier at @capacity bytes (0 = the
 * profile's default), no page cache. Returns 0, -EINVAL (a field out of
 * range, with a message) or a model error.
 */
TS_WUR int ts_fiojob_run(const struct ts_tier_profile *tier, uint64_t capacity,
			 const struct ts_fiojob *job, struct ts_fiojob_result *out, char *err,
			 size_t errlen);

#endif
