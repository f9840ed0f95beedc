/*
 * calib.c — per-mount self-calibration of the FUSE round trip.
 *
 * Whatever the tier model asks for, a request through FUSE costs at least
 * one round trip: the kernel queues it, a daemon thread wakes, replies, the
 * kernel wakes the caller. On these machines that is tens of microseconds —
 * close to a local NVMe's latency — so it must be measured and taken off
 * the injected latency, or every modeled latency comes out too long.
 *
 * Once the mount is up (started from init(), on its own thread, because
 * init() runs inside the request loop) this reads MOUNT/.tierfs/calib, 4 KiB
 * with O_DIRECT, a few hundred times from the application side. The daemon
 * serves each read as it serves a modeled one — read 4 KiB from a file in
 * memory, sleep until a due time, reply — with the due time fixed at
 * TS_FS_CALIB_SLEEP_NS after arrival. The median latency seen by the caller
 * (the lowest of four batches' medians) minus that sleep is the floor: the
 * round trip plus the lateness of waking from a sleep, which a read served
 * without sleeping would leave out (it is several microseconds here). The model's latency is then charged as
 * (target - floor) inside the daemon, so the caller sees the target. Tiers
 * whose p50 latency is below the floor cannot be emulated; that is warned
 * about.
 *
 * With loop_hop=measure (block mode: tiersim disk mount asks for it), the
 * hop a loop device adds is measured next, the same way, against the same
 * file: a loop device attached over MOUNT/.tierfs/calib for the
 * measurement, 4 KiB direct reads through it and directly in turn
 * (disk/loop.h). It is taken off the model's latency with the floor, as
 * on a cloud VM the disk's requests pass through no loop worker; so are
 * its size part (128 KiB reads through it against 4 KiB ones) and its
 * window part (the file mapped through it against through FUSE's page
 * cache, each read in the kernel's readahead windows, beyond what a
 * 128 KiB direct read adds through it) on each read. With
 * loop_hop=DURATION the hop is given, not measured. Only then is the mount
 * reported ready.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/ts.h"
#include "core/units.h"
#include "disk/issue.h"
#include "disk/loop.h"
#include "fs/daemon.h"

_Static_assert(TS_FS_CALIB_FILE_SIZE == TS_LOOP_WINDOW_FILE, "the window part maps .tierfs/calib");

#define CALIB_WARMUP 16
#define CALIB_SAMPLES 200
#define CALIB_BATCHES 4

/* Median round trip of a 4 KiB O_DIRECT read through the mount, or -errno. */
static int64_t measure(struct ts_fs *fs)
{
	char path[4200];
	uint64_t *t = calloc(CALIB_SAMPLES, sizeof(*t));
	void *buf = NULL;
	int64_t res;

	snprintf(path, sizeof(path), "%s/%s/calib", fs->mountpoint, TS_FS_CTL_NAME);
	if (!t || posix_memalign(&buf, 4096, TS_FS_CALIB_SIZE)) {
		free(t);
		return -ENOMEM;
	}
	int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		res = -errno;
		goto out;
	}
	for (int i = 0; i < CALIB_WARMUP + CALIB_SAMPLES; i++) {
		uint64_t t0 = ts_now_ns();
		ssize_t got = pread(fd, buf, TS_FS_CALIB_SIZE, 0);
		if (got != TS_FS_CALIB_SIZE) {
			/* A short read leaves errno as it was: report it as EIO. */
			res = got < 0 ? -errno : -EIO;
			close(fd);
			goto out;
		}
		if (i >= CALIB_WARMUP)
			t[i - CALIB_WARMUP] = ts_now_ns() - t0;
	}
	close(fd);
	/* The lowest of the batches' medians: a burst of load from other
	 * processes during one batch does not inflate the floor. */
	uint64_t best = UINT64_MAX;
	for (int b = 0; b < CALIB_BATCHES; b++) {
		uint64_t *batch = t + b * (CALIB_SAMPLES / CALIB_BATCHES);
		qsort(batch, CALIB_SAMPLES / CALIB_BATCHES, sizeof(*t), ts_cmp_u64);
		best = TS_MIN(best, batch[CALIB_SAMPLES / CALIB_BATCHES / 2]);
	}
	res = (int64_t)(best - TS_MIN(best, TS_FS_CALIB_SLEEP_NS));
out:
	free(buf);
	free(t);
	return res;
}

/* Tell the waiting parent (if any) how the mount went; on failure, stop
 * the daemon: the signal handler libfuse installed ends the loop and main()
 * unmounts. */
static void ready(struct ts_fs *fs, char status)
{
	if (fs->ready_fd >= 0) {
		if (write(fs->ready_fd, &status, 1) != 1)
			ts_fs_log(fs, LOG_ERR, "tierfs: cannot report readiness: %s",
				  strerror(errno));
		close(fs->ready_fd);
		fs->ready_fd = -1;
	}
	if (status) {
		fs->failed = true;
		kill(getpid(), SIGTERM);
	} else if (fs->daemonized) {
		/* From now on the daemon speaks through syslog only. */
		int nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (nul >= 0) {
			dup2(nul, 2);
			close(nul);
		}
	}
}

static void *calib_main(void *arg)
{
	struct ts_fs *fs = arg;
	char s[32];
	int rc;

	if (fs->o.calib) {
		int64_t floor = measure(fs);
		if (floor < 0) {
			if (__atomic_load_n(&fs->stopping, __ATOMIC_ACQUIRE))
				ts_fs_log(fs, LOG_INFO, "tierfs: stopped during the self-calibration");
			else
				ts_fs_log(fs, LOG_ERR,
					  "tierfs: self-calibration through %s failed: %s",
					  fs->mountpoint, ts_strerror((int)floor));
			ready(fs, 1);
			return NULL;
		}
		fs->floor_ns = (uint64_t)floor;
		ts_fs_log(fs, LOG_INFO,
			  "tierfs: FUSE round trip %s (lowest median of %d x %d 4 KiB direct "
			  "reads, sleep included), taken off every modeled latency",
			  ts_fmt_duration(s, sizeof(s), fs->floor_ns), CALIB_BATCHES,
			  CALIB_SAMPLES / CALIB_BATCHES);
	} else {
		fs->floor_ns = fs->cfg.floor_ns;
	}
	if (!strcmp(fs->loop_hop_label, "measured")) {
		char path[4200], err[512], l[32], d[32], w[32], b[32];
		struct ts_loop_hop h;
		snprintf(path, sizeof(path), "%s/%s/calib", fs->mountpoint, TS_FS_CTL_NAME);
		rc = ts_loop_hop_measure(path, &h, err, sizeof(err));
		if (rc) {
			ts_fs_log(fs, LOG_ERR, "tierfs: %s", err);
			ready(fs, 1);
			return NULL;
		}
		fs->loop_hop_ns = h.hop_ns;
		fs->loop_hop_loop_ns = h.loop_ns;
		fs->loop_hop_direct_ns = h.direct_ns;
		fs->loop_hop_big_ns = h.big_ns;
		fs->loop_hop_window_ns = h.window_ns;
		ts_fs_log(fs, LOG_INFO,
			  "tierfs: loop device hop %s (measured: median over %d batches of %d "
			  "4 KiB direct reads' median through /dev/loop%d, %s, less directly, "
			  "%s), taken off every modeled latency with the FUSE round trip",
			  ts_fmt_duration(s, sizeof(s), fs->loop_hop_ns), TS_LOOP_HOP_BATCHES,
			  TS_LOOP_HOP_PAIRS, h.nr, ts_fmt_duration(l, sizeof(l), h.loop_ns),
			  ts_fmt_duration(d, sizeof(d), h.direct_ns));
		ts_fs_log(fs, LOG_INFO,
			  "tierfs: a 128 KiB request %s more than a 4 KiB one through the loop "
			  "device (measured the same way, 128 KiB reads' median %s), taken off "
			  "each request in proportion to its bytes past 4 KiB",
			  ts_fmt_duration(s, sizeof(s), fs->loop_hop_big_ns),
			  ts_fmt_duration(l, sizeof(l), h.big_loop_ns));
		ts_fs_log(fs, LOG_INFO,
			  "tierfs: a readahead window %s more through the loop device than its "
			  "128 KiB direct read pays (measured: median over %d batches of %d "
			  "mapped passes' median through /dev/loop%d, %s a window, less through "
			  "FUSE's page cache, %s, per window: %s; less 128 KiB direct reads through "
			  "it less directly, %s), taken off each read",
			  ts_fmt_duration(s, sizeof(s), fs->loop_hop_window_ns), TS_LOOP_HOP_BATCHES,
			  TS_LOOP_WINDOW_PAIRS, h.nr, ts_fmt_duration(l, sizeof(l), h.win_loop_ns),
			  ts_fmt_duration(d, sizeof(d), h.win_cached_ns),
			  ts_fmt_duration(w, sizeof(w), h.win_extra_ns),
			  ts_fmt_duration(b, sizeof(b), h.big_hop_ns));
	} else if (fs->loop_hop_ns) {
		ts_fs_log(fs, LOG_INFO,
			  "tierfs: loop device hop %s (given), taken off every modeled latency "
			  "with the FUSE round trip",
			  ts_fmt_duration(s, sizeof(s), fs->loop_hop_ns));
	}
	if (strcmp(fs->o.loop_issue, "off")) {
		char err[300];
		if (ts_issue_open(&fs->issue, fs->mountpoint, err, sizeof(err))) {
			fs->loop_issue_label = "unavailable";
			ts_fs_log(fs, LOG_WARNING,
				  "tierfs: loop_issue: %s; each device request is charged from its "
				  "receipt instead, less the mount's measured hop",
				  err);
		} else if (fs->issue_watch) {
			fs->loop_issue_label = "watched";
			ts_fs_log(fs, LOG_INFO,
				  "tierfs: the loop device's requests watched from their issue "
				  "(block:block_rq_issue and block_rq_complete, through BPF): each "
				  "charged from its receipt, less the mount's hop; the kernel's "
				  "completion compared with the model's from the issue (stats)");
		} else {
			fs->loop_issue_label = "measured per request";
			ts_fs_log(fs, LOG_INFO,
				  "tierfs: the loop device's requests timed from their issue "
				  "(block:block_rq_issue and block_rq_complete, through BPF): each "
				  "charged from its issue, its reply earlier by the means of the "
				  "last %d replies' hop to the completion (per size) and lateness "
				  "(measured per request)",
				  TS_ISSUE_WINDOW);
		}
	}
	if (!fs->o.bare) {
		char err[256];
		rc = ts_fs_model_start(fs, err, sizeof(err));
		if (!rc && strcmp(fs->o.cache, "cold")) {
			uint64_t nf, nb;
			rc = ts_fs_model_warm(fs, !strcmp(fs->o.cache, "written"), &nf, &nb, err,
					      sizeof(err));
			if (!rc)
				ts_fs_log(fs, LOG_INFO,
					  "tierfs: page-cache model %s: %llu files, %s under %s "
					  "(at most mem resident)",
					  fs->o.cache, (unsigned long long)nf,
					  ts_fmt_size(s, sizeof(s), nb), fs->backing);
		}
		if (!rc && fs->o.trace)
			rc = ts_fs_trace_open(fs, err, sizeof(err));
		if (rc) {
			ts_fs_log(fs, LOG_ERR, "tierfs: %s", err);
			ready(fs, 1);
			return NULL;
		}
	}
	__atomic_store_n(&fs->calibrated, true, __ATOMIC_RELEASE);
	ts_fs_log(fs, LOG_INFO, "tierfs: %s mounted on %s (%s)", fs->backing, fs->mountpoint,
		  fs->o.bare ? "bare passthrough" : fs->o.tier);
	ready(fs, 0);
	return NULL;
}

void ts_fs_calib_start(struct ts_fs *fs)
{
	if (pthread_create(&fs->calib_thread, NULL, calib_main, fs) == 0) {
		fs->calib_started = true;
		return;
	}
	ts_fs_log(fs, LOG_ERR, "tierfs: cannot start the self-calibration thread");
	ready(fs, 1);
}

void ts_fs_calib_join(struct ts_fs *fs)
{
	if (fs->calib_started)
		pthread_join(fs->calib_thread, NULL);
	fs->calib_started = false;
}
