/*
 * uring.h — the loader's io_uring reader: whole samples (a file under a
 * folder, or a range of an open file) read into caller-owned buffers, up to a
 * queue depth of samples in flight.
 *
 * The loop has the shape of liburing's examples/io_uring-cp.c: fill to queue
 * depth, submit once, wait for one completion, drain the rest with
 * io_uring_for_each_cqe + io_uring_cq_advance; short reads and -EAGAIN are
 * requeued for the remainder. A file sample is opened through io_uring too,
 * into a fixed-file slot, as one linked chain OPENAT → READ(_FIXED) → CLOSE,
 * so a file costs one submission instead of three system calls. The caller's
 * buffers can be registered once (READ_FIXED then skips the per-read page
 * pinning).
 */
#ifndef TS_PIPE_URING_H
#define TS_PIPE_URING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "core/ts.h"

/* One sample read. The caller fills the source, off, len, buf (and
 * buf_index when buf lies in registered buffer buf_index, else -1); the
 * reader sets res: 0 when all len bytes arrived, -errno, or TS_E_TRUNCATED
 * when the file ended first. */
struct ts_uring_io {
	int dirfd;
	const char *rel; /* path under dirfd, or NULL to read fd */
	int fd;
	uint64_t off;
	uint32_t len;
	uint32_t chunk;	 /* 0: one request; else requests of at most chunk bytes */
	uint8_t *buf;
	int buf_index;
	int res;
	void *user;
};

struct ts_uring_ops {
	/* Next read: 1 with *io filled, 0 when none is ready now, -1 when
	 * there will be no more. May block only when @may_block (nothing is
	 * in flight). */
	int (*next)(void *ctx, struct ts_uring_io *io, bool may_block);
	/* A read finished (successfully or not); io is reused afterwards. */
	void (*done)(void *ctx, struct ts_uring_io *io);
};

struct ts_uring_stats {
	uint64_t reads, bytes;
	uint64_t requeued;	 /* short reads and -EAGAIN resubmitted */
	uint64_t submits;	 /* io_uring_enter calls */
	uint64_t wait_ns;	 /* blocked in the kernel waiting for completions */
	uint64_t inflight_ns;	 /* ∫ reads in flight dt */
	uint64_t run_ns;	 /* time inside ts_uring_run */
	uint32_t inflight_max;
};

struct ts_uring;

enum {
	TS_URING_OPEN = 1 << 0,	 /* open files through io_uring (else openat(2)) */
	TS_URING_ASYNC = 1 << 1, /* hand reads straight to io_uring's workers */
	TS_URING_ASYNC_OPEN = 1 << 2, /* hand opens straight to io_uring's workers */
};

/* @bufs/@nbufs: buffers to register (may be 0); @flags: TS_URING_*.
 * ts_uring_fixed_bufs / ts_uring_opens say what took. */
TS_WUR int ts_uring_new(unsigned qd, const struct iovec *bufs, unsigned nbufs, unsigned flags,
			struct ts_uring **out, char *err, size_t errlen);
bool ts_uring_fixed_bufs(const struct ts_uring *r);
bool ts_uring_opens(const struct ts_uring *r);
/* Runs until next() returns -1 and every read has completed. Returns 0 or a
 * -errno from io_uring itself (per-read errors go to done()). */
TS_WUR int ts_uring_run(struct ts_uring *r, const struct ts_uring_ops *ops, void *ctx);
void ts_uring_stats(const struct ts_uring *r, struct ts_uring_stats *st);
void ts_uring_free(struct ts_uring *r);

#endif
