/*
 * loop.c — loop devices: attach, detach, and the hop one adds (loop.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/files.h"
#include "core/ts.h"
#include "core/units.h"
#include "disk/loop.h"

#define LOOP_CONTROL "/dev/loop-control"
#define HOP_READ TS_LOOP_HOP_READ
_Static_assert(TS_LOOP_WINDOW_PAIRS <= TS_LOOP_HOP_PAIRS, "the passes share the reads' arrays");

int ts_loop_attach(int fd, uint32_t flags, unsigned block, int *loop_fd, char *err,
		   size_t errlen)
{
	int ctl = open(LOOP_CONTROL, O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		int e = errno;
		if (e == ENOENT || e == ENODEV || e == ENXIO)
			snprintf(err, errlen, "no loop device support: %s is missing (load the loop "
					      "module: modprobe loop)",
				 LOOP_CONTROL);
		else
			snprintf(err, errlen, "cannot open %s: %s", LOOP_CONTROL, strerror(e));
		return -e;
	}
	int rc = -EBUSY;
	for (int tries = 0; tries < 16 && rc == -EBUSY; tries++) {
		int nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0) {
			int e = errno;
			snprintf(err, errlen, "no free loop device (%s: %s); detach one with "
					      "losetup -d, or raise the loop module's max_loop",
				 LOOP_CONTROL, strerror(e));
			rc = -e;
			break;
		}
		char dev[32];
		snprintf(dev, sizeof(dev), "/dev/loop%d", nr);
		int lfd = open(dev, O_RDWR | O_CLOEXEC);
		if (lfd < 0) {
			int e = errno;
			snprintf(err, errlen, "cannot open %s: %s", dev, strerror(e));
			rc = -e;
			break;
		}
		struct loop_config cfg = { .fd = (uint32_t)fd, .block_size = block };
		cfg.info.lo_flags = flags;
		if (ioctl(lfd, LOOP_CONFIGURE, &cfg) == 0) {
			*loop_fd = lfd;
			rc = nr;
			break;
		}
		rc = -errno;
		close(lfd);
		if (rc != -EBUSY) /* EBUSY: taken between GET_FREE and CONFIGURE */
			snprintf(err, errlen, "cannot configure %s over the image: %s", dev,
				 strerror(-rc));
	}
	if (rc == -EBUSY)
		snprintf(err, errlen, "no free loop device: every one found was taken meanwhile");
	close(ctl);
	return rc;
}

void ts_loop_detach(int nr)
{
	char path[64], back[PATH_MAX];
	snprintf(path, sizeof(path), "/sys/block/loop%d/loop/backing_file", nr);
	for (int i = 0; i < 100; i++) {
		if (ts_first_line(path, back, sizeof(back)) != 0)
			return; /* detached */
		struct timespec ms20 = { 0, 20 * 1000000L };
		nanosleep(&ms20, NULL);
	}
	snprintf(path, sizeof(path), "/dev/loop%d", nr);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (ioctl(fd, LOOP_CLR_FD, 0)) {
			/* already detaching */
		}
		close(fd);
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

uint64_t ts_loop_hop_of(uint64_t *loop, uint64_t *direct, size_t n, unsigned batches,
			uint64_t *loop_med, uint64_t *direct_med)
{
	int64_t diff[64];
	uint64_t lm[64], dm[64];
	size_t per = batches ? n / batches : 0;

	if (loop_med)
		*loop_med = 0;
	if (direct_med)
		*direct_med = 0;
	if (!per || batches > TS_ARRAY_SIZE(diff))
		return 0;
	for (unsigned b = 0; b < batches; b++) {
		uint64_t *l = loop + b * per, *d = direct + b * per;
		qsort(l, per, sizeof(*l), ts_cmp_u64);
		qsort(d, per, sizeof(*d), ts_cmp_u64);
		lm[b] = l[(per - 1) / 2];
		dm[b] = d[(per - 1) / 2];
		diff[b] = (int64_t)lm[b] - (int64_t)dm[b];
	}
	int64_t sorted[64];
	memcpy(sorted, diff, batches * sizeof(*diff));
	qsort(sorted, batches, sizeof(*sorted), cmp_i64);
	int64_t mid = sorted[(batches - 1) / 2];
	for (unsigned b = 0; b < batches; b++) {
		if (diff[b] != mid)
			continue;
		if (loop_med)
			*loop_med = lm[b];
		if (direct_med)
			*direct_med = dm[b];
		break;
	}
	return mid > 0 ? (uint64_t)mid : 0;
}

/* One direct read of @len bytes at 0: its latency, or 0 with errno set. */
static uint64_t timed_read(int fd, void *buf, size_t len)
{
	uint64_t t0 = ts_now_ns();
	ssize_t got = pread(fd, buf, len, 0);
	if (got != (ssize_t)len) {
		if (got >= 0)
			errno = EIO; /* a short read leaves errno as it was */
		return 0;
	}
	uint64_t t = ts_now_ns() - t0;
	return t ? t : 1;
}

/* One pass over the first @len bytes of @fd through a shared read-only
 * map, a byte read from each page in order, the pages dropped from the
 * page cache first (the map gone, they are clean and unmapped): the time
 * the touches took, or 0 with errno set. The kernel's fault and readahead
 * read it in windows of the device's read_ahead_kb. */
static uint64_t mapped_pass(int fd, void *buf, size_t len)
{
	(void)buf;
	if (posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_DONTNEED))
		return 0;
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 0;
	const volatile unsigned char *b = p;
	unsigned sum = 0;
	uint64_t t0 = ts_now_ns();
	for (size_t off = 0; off < len; off += HOP_READ)
		sum += b[off];
	uint64_t t = ts_now_ns() - t0;
	munmap(p, len);
	(void)sum;
	return t ? t : 1;
}

/* @warmup + n pairs of @timed's (a read, or a mapped pass), a's then b's,
 * in turn; the pairs after the warm-up go to at and bt. 0, or -1 with
 * errno set and *failed naming the side (1: a, 2: b) that failed. */
static int timed_pairs(uint64_t (*timed)(int, void *, size_t), size_t warmup, int a,
		       size_t alen, int b, size_t blen, void *buf, uint64_t *at, uint64_t *bt,
		       size_t n, int *failed)
{
	for (size_t i = 0; i < warmup + n; i++) {
		uint64_t x = timed(a, buf, alen);
		uint64_t y = x ? timed(b, buf, blen) : 0;
		if (!x || !y) {
			*failed = x ? 2 : 1;
			return -1;
		}
		if (i >= warmup) {
			at[i - warmup] = x;
			bt[i - warmup] = y;
		}
	}
	return 0;
}

/* The window part (loop.h): @dev (the loop device, buffered) and @cached
 * (the file through FUSE's page cache), mapped in turn; then 128 KiB
 * O_DIRECT reads through the loop device and directly. */
static int window_part(int dev, int cached, int ddev, int direct, void *buf, uint64_t *lt,
		       uint64_t *dt, struct ts_loop_hop *out, int *failed, const char **what)
{
	const size_t n = (size_t)TS_LOOP_HOP_BATCHES * TS_LOOP_WINDOW_PAIRS;
	uint64_t lm = 0, cm = 0;

	*what = "a mapped pass";
	if (timed_pairs(mapped_pass, TS_LOOP_WINDOW_WARMUP, dev, TS_LOOP_WINDOW_FILE, cached,
			TS_LOOP_WINDOW_FILE, NULL, lt, dt, n, failed))
		return -1;
	uint64_t extra = ts_loop_hop_of(lt, dt, n, TS_LOOP_HOP_BATCHES, &lm, &cm);
	out->win_loop_ns = lm / TS_LOOP_WINDOWS;
	out->win_cached_ns = cm / TS_LOOP_WINDOWS;
	out->win_extra_ns = extra / TS_LOOP_WINDOWS;
	*what = "a 128 KiB direct read";
	const size_t m = (size_t)TS_LOOP_HOP_BATCHES * TS_LOOP_HOP_PAIRS;
	if (timed_pairs(timed_read, TS_LOOP_HOP_WARMUP, ddev, TS_LOOP_HOP_BIG, direct,
			TS_LOOP_HOP_BIG, buf, lt, dt, m, failed))
		return -1;
	out->big_hop_ns = ts_loop_hop_of(lt, dt, m, TS_LOOP_HOP_BATCHES, NULL, NULL);
	out->window_ns = out->win_extra_ns > out->big_hop_ns ? out->win_extra_ns - out->big_hop_ns
							     : 0;
	return 0;
}

int ts_loop_hop_measure(const char *calib_path, struct ts_loop_hop *out, char *err,
			size_t errlen)
{
	const size_t n = (size_t)TS_LOOP_HOP_BATCHES * TS_LOOP_HOP_PAIRS;
	uint64_t *lt = calloc(n, sizeof(*lt)), *dt = calloc(n, sizeof(*dt));
	void *buf = NULL;
	int ffd = -1, lfd = -1, dev = -1, direct = -1, nr = -1, rc = 0, failed = 0;
	int bdev = -1, cached = -1;
	char path[64], dio[8] = "";

	memset(out, 0, sizeof(*out));
	out->nr = -1;
	if (!lt || !dt || posix_memalign(&buf, 4096, TS_LOOP_HOP_BIG)) {
		snprintf(err, errlen, "loop hop: out of memory");
		rc = -ENOMEM;
		goto out;
	}
	/* the loop device's own open direct, as ever; @cached through
	 * FUSE's page cache (tierfs serves .tierfs/calib so when it is opened
	 * without O_DIRECT) */
	if ((ffd = open(calib_path, O_RDONLY | O_DIRECT | O_CLOEXEC)) < 0 ||
	    (direct = open(calib_path, O_RDONLY | O_DIRECT | O_CLOEXEC)) < 0 ||
	    (cached = open(calib_path, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "loop hop: cannot open %s: %s", calib_path, strerror(errno));
		goto out;
	}
	nr = ts_loop_attach(ffd, LO_FLAGS_DIRECT_IO | LO_FLAGS_AUTOCLEAR | LO_FLAGS_READ_ONLY, 0,
			    &lfd, err, errlen);
	if (nr < 0) {
		rc = nr;
		nr = -1;
		char why[256];
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "loop hop: %s", why);
		goto out;
	}
	out->nr = nr;
	snprintf(path, sizeof(path), "/sys/block/loop%d/loop/dio", nr);
	if (ts_first_line(path, dio, sizeof(dio)) || strcmp(dio, "1")) {
		rc = -EOPNOTSUPP;
		snprintf(err, errlen, "loop hop: /dev/loop%d could not use direct I/O over %s", nr,
			 calib_path);
		goto out;
	}
	snprintf(path, sizeof(path), "/dev/loop%d", nr);
	if ((dev = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "loop hop: cannot open %s: %s", path, strerror(errno));
		goto out;
	}
	if (timed_pairs(timed_read, TS_LOOP_HOP_WARMUP, dev, HOP_READ, direct, HOP_READ, buf, lt,
			dt, n, &failed)) {
		rc = -errno;
		snprintf(err, errlen, "loop hop: a 4 KiB direct read of %s failed: %s",
			 failed == 1 ? path : calib_path, strerror(errno));
		goto out;
	}
	out->hop_ns = ts_loop_hop_of(lt, dt, n, TS_LOOP_HOP_BATCHES, &out->loop_ns,
				     &out->direct_ns);
	/* the size part: a big read and a 4 KiB one, both through it */
	if (timed_pairs(timed_read, TS_LOOP_HOP_WARMUP, dev, TS_LOOP_HOP_BIG, dev, HOP_READ, buf,
			lt, dt, n, &failed)) {
		rc = -errno;
		snprintf(err, errlen, "loop hop: a %s direct read of %s failed: %s",
			 failed == 1 ? "128 KiB" : "4 KiB", path, strerror(errno));
		goto out;
	}
	out->big_ns = ts_loop_hop_of(lt, dt, n, TS_LOOP_HOP_BATCHES, &out->big_loop_ns, NULL);
	/* the window part: the device buffered, with its readahead */
	if ((bdev = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "loop hop: cannot open %s: %s", path, strerror(errno));
		goto out;
	}
	const char *what = "";
	if (window_part(bdev, cached, dev, direct, buf, lt, dt, out, &failed, &what)) {
		rc = -errno;
		snprintf(err, errlen, "loop hop: %s of %s failed: %s", what,
			 failed == 1 ? path : calib_path, strerror(errno));
		goto out;
	}
out:
	if (dev >= 0)
		close(dev);
	if (bdev >= 0)
		close(bdev);
	if (cached >= 0)
		close(cached);
	if (lfd >= 0)
		close(lfd); /* the last holder: autoclear detaches it */
	if (nr >= 0)
		ts_loop_detach(nr);
	if (direct >= 0)
		close(direct);
	if (ffd >= 0)
		close(ffd);
	free(buf);
	free(lt);
	free(dt);
	return rc;
}
