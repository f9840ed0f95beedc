/*
 * loop.h — loop devices for block mode: attaching one over an open file,
 * detaching it, and the hop a loop device adds to a request.
 *
 * In block mode a request the file system sends reaches tierfs through the
 * loop device: the block layer queues it, the loop worker wakes and reads
 * the image through FUSE, and its completion wakes the reader again. A
 * cloud VM's virtio or NVMe disk has none of the loop worker's part, so
 * tierfs takes it off the tier model's latency, as it takes off its own
 * FUSE round trip (fs/calib.c). ts_loop_hop_measure measures it: 4 KiB
 * direct reads of tierfs's .tierfs/calib file (each held for the same
 * fixed time, whatever the tier), through a loop device attached over that
 * file for the measurement and, alternately, directly; the hop is the
 * median over batches of the difference of the batch's medians. A larger
 * request costs the loop device's path more than a 4 KiB one (FUSE copies
 * its bytes into the page cache's pages, where a VM's disk moves them by
 * DMA inside the tier's latency): the same measurement of reads of
 * TS_LOOP_HOP_BIG through the loop device against 4 KiB ones through it
 * gives that part, taken off in proportion to a request's bytes past
 * 4 KiB (ts_loop_hop_size_ns).
 */
#ifndef TS_DISK_LOOP_H
#define TS_DISK_LOOP_H

#include <stddef.h>
#include <stdint.h>

#include "core/ts.h"

/* A free loop device configured over @fd with LO_FLAGS_* @flags and
 * logical block size @block (0: 512): its number, its descriptor in
 * *loop_fd; or -errno with one line in @err. */
TS_WUR int ts_loop_attach(int fd, uint32_t flags, unsigned block, int *loop_fd, char *err,
			  size_t errlen);

/* Detaches loop @nr if it is still attached after its autoclear has had
 * up to 2 s to act (LOOP_CLR_FD). */
void ts_loop_detach(int nr);

/* The measurement's shape: pairs of reads (one through the loop device,
 * one direct), after warm-up pairs left out, in batches. */
#define TS_LOOP_HOP_WARMUP 16
#define TS_LOOP_HOP_BATCHES 5
#define TS_LOOP_HOP_PAIRS 40 /* per batch */
/* the reads' sizes: the hop's, and the larger one of the size part (a
 * readahead window at read_ahead_kb 128) */
#define TS_LOOP_HOP_READ 4096
#define TS_LOOP_HOP_BIG (128 * 1024)
/* The window part's passes: TS_LOOP_WINDOWS readahead windows of
 * TS_LOOP_HOP_BIG (the calibration file's first TS_LOOP_WINDOW_FILE
 * bytes) mapped and touched page by page, after TS_LOOP_WINDOW_WARMUP
 * pairs, TS_LOOP_WINDOW_PAIRS pairs a batch. */
#define TS_LOOP_WINDOWS 8
#define TS_LOOP_WINDOW_FILE (TS_LOOP_WINDOWS * TS_LOOP_HOP_BIG)
#define TS_LOOP_WINDOW_WARMUP 2
#define TS_LOOP_WINDOW_PAIRS 8 /* per batch */

/* The hop from @n pairs of latencies (ns), @loop[i] through the loop
 * device and @direct[i] directly, taken in that order: the pairs cut into
 * @batches batches of n / batches (a remainder is left out), each batch's
 * median loop latency less its median direct one, and the median of those
 * differences (the lower middle one for an even count), clamped at 0. The
 * arrays are sorted in place, batch by batch. *loop_med and *direct_med
 * (may be NULL) get the medians of the batch whose difference was taken. */
uint64_t ts_loop_hop_of(uint64_t *loop, uint64_t *direct, size_t n, unsigned batches,
			uint64_t *loop_med, uint64_t *direct_med);

struct ts_loop_hop {
	uint64_t hop_ns;		  /* ts_loop_hop_of's */
	uint64_t loop_ns, direct_ns;	  /* the medians it was taken from */
	/* the size part: ts_loop_hop_of's over pairs of a TS_LOOP_HOP_BIG
	 * read and a 4 KiB one, both through the loop device, and the big
	 * reads' median it was taken from */
	uint64_t big_ns, big_loop_ns;
	/* the window part: a pass's time per window through the loop device
	 * (buffered, its readahead) and through FUSE's page cache (the
	 * medians of the batch ts_loop_hop_of took), their difference; what
	 * a 128 KiB O_DIRECT read costs through the loop device beyond
	 * directly (ts_loop_hop_of's); and the window part, the first less
	 * the second, clamped at 0 */
	uint64_t win_loop_ns, win_cached_ns, win_extra_ns, big_hop_ns, window_ns;
	int nr;				  /* the loop device used (detached since) */
};


/* Measures the hop over @calib_path (a file of at least TS_LOOP_HOP_BIG
 * bytes that a FUSE daemon serves with a fixed hold: tierfs's
 * .tierfs/calib): a loop device attached over it read-only with direct
 * I/O and autoclear, TS_LOOP_HOP_WARMUP + TS_LOOP_HOP_BATCHES x
 * TS_LOOP_HOP_PAIRS pairs of 4 KiB O_DIRECT reads at offset 0 (through
 * it, directly), then as many pairs through it of TS_LOOP_HOP_BIG and
 * 4 KiB (the size part), the device detached before it returns, whatever
 * happens. Needs root. 0, or -errno with one line in
 * @err. */
TS_WUR int ts_loop_hop_measure(const char *calib_path, struct ts_loop_hop *out, char *err,
			       size_t errlen);

#endif
