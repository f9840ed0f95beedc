/* uring.c — the io_uring sample reader (see uring.h). */
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "pipeline/uring.h"

enum { ST_OPEN, ST_READ, ST_CLOSE };

/* One sample in flight. Its address (plus the stage in the low bits) is the
 * user_data of every SQE it owns. */
struct req {
	struct ts_uring_io io;
	uint32_t done;	  /* bytes already read */
	unsigned pending; /* CQEs still to come for the current attempt */
	int open_res, read_res;
	int fd;		  /* openat(2) fd when not opening through io_uring */
	unsigned slot;	  /* its fixed-file slot */
} __attribute__((aligned(8)));

struct ts_uring {
	struct io_uring ring;
	unsigned qd;
	bool fixed_bufs, opens, async, async_opens;
	struct req *reqs;
	struct req **free;
	unsigned nfree, inflight;
	uint64_t t_last;
	struct ts_uring_stats st;
};

#define ADD(field, v) __atomic_fetch_add(&r->st.field, (v), __ATOMIC_RELAXED)

int ts_uring_new(unsigned qd, const struct iovec *bufs, unsigned nbufs, unsigned flags,
		 struct ts_uring **out, char *err, size_t errlen)
{
	struct ts_uring *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	r->qd = qd;
	r->reqs = calloc(qd, sizeof *r->reqs);
	r->free = calloc(qd, sizeof *r->free);
	if (!r->reqs || !r->free) {
		free(r->reqs);
		free(r->free);
		free(r);
		return -ENOMEM;
	}
	/* Three SQEs per file (open, read, close). Single issuer with deferred
	 * task work keeps completions on this thread; older kernels refuse
	 * the flags and get a plain ring. */
	struct io_uring_params p = { .flags = IORING_SETUP_SINGLE_ISSUER |
					      IORING_SETUP_DEFER_TASKRUN };
	int rc = io_uring_queue_init_params(qd * 3, &r->ring, &p);
	if (rc == -EINVAL) {
		memset(&p, 0, sizeof p);
		rc = io_uring_queue_init_params(qd * 3, &r->ring, &p);
	}
	if (rc) {
		snprintf(err, errlen, "io_uring_queue_init(%u entries): %s", qd * 3,
			 ts_strerror(rc));
		free(r->reqs);
		free(r->free);
		free(r);
		return rc;
	}
	/* An open or read that would block (a cold inode, a FUSE round trip)
	 * goes to io_uring's worker threads, by default at most 4 per CPU for
	 * bounded work: let as many run as there are samples in flight. */
	unsigned workers[2] = { qd, 0 };
	(void)io_uring_register_iowq_max_workers(&r->ring, workers);
	if (nbufs)
		r->fixed_bufs = io_uring_register_buffers(&r->ring, bufs, nbufs) == 0;
	if (flags & TS_URING_OPEN)
		r->opens = io_uring_register_files_sparse(&r->ring, qd) == 0;
	r->async = flags & TS_URING_ASYNC;
	r->async_opens = flags & TS_URING_ASYNC_OPEN;
	for (unsigned i = 0; i < qd; i++) {
		r->reqs[i].slot = i;
		r->free[r->nfree++] = &r->reqs[qd - 1 - i];
	}
	*out = r;
	return 0;
}

bool ts_uring_fixed_bufs(const struct ts_uring *r)
{
	return r->fixed_bufs;
}

bool ts_uring_opens(const struct ts_uring *r)
{
	return r->opens;
}

void ts_uring_free(struct ts_uring *r)
{
	if (!r)
		return;
	io_uring_queue_exit(&r->ring);
	free(r->reqs);
	free(r->free);
	free(r);
}

void ts_uring_stats(const struct ts_uring *r, struct ts_uring_stats *st)
{
	__atomic_load(&r->st.reads, &st->reads, __ATOMIC_RELAXED);
	__atomic_load(&r->st.bytes, &st->bytes, __ATOMIC_RELAXED);
	__atomic_load(&r->st.requeued, &st->requeued, __ATOMIC_RELAXED);
	__atomic_load(&r->st.submits, &st->submits, __ATOMIC_RELAXED);
	__atomic_load(&r->st.wait_ns, &st->wait_ns, __ATOMIC_RELAXED);
	__atomic_load(&r->st.inflight_ns, &st->inflight_ns, __ATOMIC_RELAXED);
	__atomic_load(&r->st.run_ns, &st->run_ns, __ATOMIC_RELAXED);
	__atomic_load(&r->st.inflight_max, &st->inflight_max, __ATOMIC_RELAXED);
}

static struct io_uring_sqe *get_sqe(struct ts_uring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
	if (!sqe) {
		/* The ring holds 3×qd entries, so this only happens if a
		 * kernel gave us fewer; flush and retry. */
		ADD(submits, 1);
		if (io_uring_submit(&r->ring) >= 0)
			sqe = io_uring_get_sqe(&r->ring);
	}
	return sqe;
}

static void account(struct ts_uring *r, int delta)
{
	uint64_t now = ts_now_ns();
	ADD(inflight_ns, (now - r->t_last) * r->inflight);
	r->t_last = now;
	r->inflight = (unsigned)((int)r->inflight + delta);
	if (r->inflight > r->st.inflight_max)
		__atomic_store_n(&r->st.inflight_max, r->inflight, __ATOMIC_RELAXED);
}

static void prep_read(struct ts_uring *r, struct io_uring_sqe *sqe, struct req *q, int fd,
		      bool fixed_file)
{
	uint8_t *dst = q->io.buf + q->done;
	unsigned len = q->io.len - q->done;
	if (q->io.chunk && len > q->io.chunk)
		len = q->io.chunk;
	uint64_t off = q->io.off + q->done;
	if (r->fixed_bufs && q->io.buf_index >= 0)
		io_uring_prep_read_fixed(sqe, fd, dst, len, off, q->io.buf_index);
	else
		io_uring_prep_read(sqe, fd, dst, len, off);
	if (fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
	/* A buffered read is first tried inline in the submitting thread,
	 * where page-cache copies run one after the other; IOSQE_ASYNC gives
	 * them to io_uring's workers at once, to run on every core. On the
	 * 2-vCPU host this was measured on it gained nothing for the reader
	 * alone and made the whole loader slower (the workers compete with
	 * the decode pool and the consumer), so the loader leaves it off. */
	if (r->async)
		sqe->flags |= IOSQE_ASYNC;
	io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)q | ST_READ);
}

/* Queues one attempt for @q (the remainder after q->done bytes). */
static int queue(struct ts_uring *r, struct req *q)
{
	q->open_res = 0;
	q->read_res = 0;
	if (!q->io.rel) {
		struct io_uring_sqe *sqe = get_sqe(r);
		if (!sqe)
			return -EBUSY;
		prep_read(r, sqe, q, q->io.fd, false);
		q->pending = 1;
		return 0;
	}
	if (!r->opens) {
		if (q->fd < 0) {
			q->fd = openat(q->io.dirfd, q->io.rel, O_RDONLY | O_CLOEXEC);
			if (q->fd < 0)
				return -errno;
		}
		struct io_uring_sqe *sqe = get_sqe(r);
		if (!sqe)
			return -EBUSY;
		prep_read(r, sqe, q, q->fd, false);
		q->pending = 1;
		return 0;
	}
	/* OPENAT → READ → CLOSE. The open links to the read (a failed open
	 * cancels the rest); the read hard-links to the close so the slot is
	 * closed even when the read comes up short. */
	struct io_uring_sqe *o = get_sqe(r), *rd = o ? get_sqe(r) : NULL,
			    *c = rd ? get_sqe(r) : NULL;
	if (!c)
		return -EBUSY;
	/* No O_CLOEXEC: a direct descriptor has no fd to close on exec, and
	 * the kernel refuses the flag with a fixed slot. */
	io_uring_prep_openat_direct(o, q->io.dirfd, q->io.rel, O_RDONLY, 0, q->slot);
	o->flags |= IOSQE_IO_LINK;
	/* io_uring first tries an open inline, in this thread, and gives it
	 * to a worker only if the path is not in the dentry cache. Where an
	 * open of a cached name still waits (FUSE sends FUSE_OPEN to its
	 * daemon and waits for the reply whatever O_NONBLOCK says; network
	 * filesystems revalidate), the inline attempt holds this thread for
	 * the whole round trip: no completion is reaped and nothing else is
	 * submitted meanwhile, and the queue drains to the one open. Through
	 * tierfs on ssd-cloud (1 ms per open) that was ~2 requests in flight
	 * at QD 16 for the first second of a run, while the names listed at
	 * start were still cached. IOSQE_ASYNC sends the open to a worker at
	 * once; the linked read is then issued from this thread when the
	 * open completes. */
	if (r->async_opens)
		o->flags |= IOSQE_ASYNC;
	io_uring_sqe_set_data64(o, (uint64_t)(uintptr_t)q | ST_OPEN);
	prep_read(r, rd, q, (int)q->slot, true);
	rd->flags |= IOSQE_IO_HARDLINK;
	io_uring_prep_close_direct(c, q->slot);
	io_uring_sqe_set_data64(c, (uint64_t)(uintptr_t)q | ST_CLOSE);
	q->pending = 3;
	return 0;
}

static void finish(struct ts_uring *r, struct req *q, int res, const struct ts_uring_ops *ops,
		   void *ctx)
{
	if (q->fd >= 0) {
		close(q->fd);
		q->fd = -1;
	}
	q->io.res = res;
	if (!res) {
		ADD(reads, 1);
		ADD(bytes, q->io.len);
	}
	account(r, -1);
	ops->done(ctx, &q->io);
	r->free[r->nfree++] = q;
}

/* Every CQE of an attempt is in: done, requeue, or fail. */
static void settle(struct ts_uring *r, struct req *q, const struct ts_uring_ops *ops, void *ctx)
{
	int res = q->read_res;
	if (q->open_res < 0) {
		finish(r, q, q->open_res, ops, ctx);
		return;
	}
	if (res == -EAGAIN || res == -EINTR) {
		res = 0;
	} else if (res < 0) {
		finish(r, q, res, ops, ctx);
		return;
	} else if (res == 0 && q->done < q->io.len) {
		finish(r, q, TS_E_TRUNCATED, ops, ctx);
		return;
	}
	bool whole_chunk = q->io.chunk && (uint32_t)res == q->io.chunk;
	q->done += (uint32_t)res;
	if (q->done >= q->io.len) {
		finish(r, q, 0, ops, ctx);
		return;
	}
	if (!whole_chunk) /* the next chunk of a chunked read is no requeue */
		ADD(requeued, 1);
	int rc = queue(r, q);
	if (rc)
		finish(r, q, rc, ops, ctx);
}

int ts_uring_run(struct ts_uring *r, const struct ts_uring_ops *ops, void *ctx)
{
	bool eof = false;
	int rc = 0;
	uint64_t t0 = ts_now_ns();
	r->t_last = t0;
	for (;;) {
		while (!eof && r->nfree) {
			struct req *q = r->free[r->nfree - 1];
			memset(&q->io, 0, sizeof q->io);
			q->io.buf_index = -1;
			q->io.fd = -1;
			int got = ops->next(ctx, &q->io, r->inflight == 0);
			if (got < 0)
				eof = true;
			if (got <= 0)
				break;
			r->nfree--;
			q->done = 0;
			q->fd = -1;
			account(r, +1);
			int qrc = queue(r, q);
			if (qrc)
				finish(r, q, qrc, ops, ctx);
		}
		if (!r->inflight) {
			if (eof)
				break;
			continue;
		}
		uint64_t tw = ts_now_ns();
		ADD(submits, 1);
		int s = io_uring_submit_and_wait(&r->ring, 1);
		ADD(wait_ns, ts_now_ns() - tw);
		if (s < 0 && s != -EINTR && s != -EAGAIN && s != -EBUSY) {
			rc = s;
			break;
		}
		struct io_uring_cqe *cqe;
		unsigned head, seen = 0;
		io_uring_for_each_cqe(&r->ring, head, cqe)
		{
			uint64_t ud = io_uring_cqe_get_data64(cqe);
			struct req *q = (struct req *)(uintptr_t)(ud & ~(uint64_t)7);
			switch (ud & 7) {
			case ST_OPEN: q->open_res = cqe->res; break;
			case ST_READ: q->read_res = cqe->res; break;
			default: break; /* close: nothing to keep */
			}
			seen++;
			if (--q->pending == 0)
				settle(r, q, ops, ctx);
		}
		io_uring_cq_advance(&r->ring, seen);
	}
	if (rc) {
		/* The ring itself failed: hand every read in flight back as
		 * failed; io_uring_queue_exit (in ts_uring_free, before the
		 * caller frees its buffers) cancels what the kernel still holds. */
		for (unsigned i = 0; i < r->qd; i++) {
			struct req *q = &r->reqs[i];
			bool busy = true;
			for (unsigned k = 0; k < r->nfree && busy; k++)
				busy = r->free[k] != q;
			if (busy)
				finish(r, q, rc, ops, ctx);
		}
	}
	ADD(run_ns, ts_now_ns() - t0);
	return rc;
}
