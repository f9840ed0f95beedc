/*
 * test_uring.c — the io_uring reader alone: short reads are requeued for the
 * remainder until every byte is in (driven exactly with a pipe that gets 3
 * bytes per loop turn), whole files come in through the OPENAT → READ →
 * CLOSE chain (the open tried inline or given to a worker at once) or
 * openat(2), into registered buffers or not, and a missing
 * file or one shorter than asked is reported per read.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/uring.h"
#include "tests/tcheck.h"
#include "tests/pipeline/tp.h"

/* ---- a pipe fed 3 bytes per loop turn ---- */
struct feed {
	int rfd, wfd;
	uint8_t buf[30];
	unsigned sent, issued, done;
	int res;
};

static int feed_next(void *ctx, struct ts_uring_io *io, bool may_block)
{
	struct feed *f = ctx;
	if (!f->issued) {
		f->issued = 1;
		io->fd = f->rfd;
		io->len = sizeof f->buf;
		io->buf = f->buf;
		return 1;
	}
	if (f->done)
		return -1;
	if (f->sent < sizeof f->buf) {
		uint8_t chunk[3] = { (uint8_t)f->sent, (uint8_t)(f->sent + 1), (uint8_t)(f->sent + 2) };
		if (write(f->wfd, chunk, 3) == 3)
			f->sent += 3;
	}
	return 0;
}

static void feed_done(void *ctx, struct ts_uring_io *io)
{
	struct feed *f = ctx;
	f->done = 1;
	f->res = io->res;
}

/* ---- a list of files ---- */
struct files {
	const char *dir;
	const char *name[4];
	uint32_t len[4];
	int res[4];
	uint8_t *buf;
	unsigned n, next, done;
};

static int files_next(void *ctx, struct ts_uring_io *io, bool may_block)
{
	struct files *f = ctx;
	if (f->next == f->n)
		return -1;
	unsigned i = f->next++;
	io->dirfd = open(f->dir, O_RDONLY | O_DIRECTORY);
	io->rel = f->name[i];
	io->len = f->len[i];
	io->buf = f->buf + i * 65536;
	io->buf_index = (int)i;
	io->user = (void *)(uintptr_t)i;
	return 1;
}

static void files_done(void *ctx, struct ts_uring_io *io)
{
	struct files *f = ctx;
	f->res[(uintptr_t)io->user] = io->res;
	close(io->dirfd);
	f->done++;
}

int main(void)
{
	char err[256];
	struct ts_uring *r;
	struct ts_uring_stats st;

	struct feed fd = { 0 };
	int p[2];
	CHECK(pipe(p) == 0);
	fd.rfd = p[0];
	fd.wfd = p[1];
	const struct ts_uring_ops feed_ops = { .next = feed_next, .done = feed_done };
	CHECK(ts_uring_new(2, NULL, 0, TS_URING_OPEN, &r, err, sizeof err) == 0);
	CHECK(ts_uring_run(r, &feed_ops, &fd) == 0);
	ts_uring_stats(r, &st);
	ts_uring_free(r);
	CHECK_EQ_U64(fd.res, 0);
	CHECK_EQ_U64(st.requeued, 9); /* 30 bytes, 3 per read: 1 read + 9 requeued */
	CHECK_EQ_U64(st.reads, 1);
	CHECK_EQ_U64(st.bytes, 30);
	for (unsigned i = 0; i < 30; i++)
		CHECK(fd.buf[i] == i);
	close(p[0]);
	close(p[1]);

	char dir[] = "/tmp/ts_uring_XXXXXX";
	const char *tmp = getenv("TMPDIR");
	char dbuf[300];
	snprintf(dbuf, sizeof dbuf, "%s/ts_uring_XXXXXX", tmp ? tmp : "/tmp");
	char *d = mkdtemp(tmp ? dbuf : dir);
	CHECK(d != NULL);
	uint8_t *want = malloc(65536);
	for (unsigned i = 0; i < 65536; i++)
		want[i] = (uint8_t)(i * 7 + 3);
	char path[400];
	snprintf(path, sizeof path, "%s/a", d);
	CHECK(tp_write_file(path, want, 65536) == 0);
	snprintf(path, sizeof path, "%s/b", d);
	CHECK(tp_write_file(path, want, 1000) == 0);
	for (int mode = 0; mode < 16; mode++) {
		bool opens = mode & 1, reg = mode & 2, async = mode & 4, async_open = mode & 8;
		struct files f = { .dir = d, .name = { "a", "b", "missing", "b" },
				   .len = { 65536, 1000, 10, 2000 }, .n = 4 };
		f.buf = aligned_alloc(4096, 4 * 65536);
		struct iovec iov[4];
		for (int i = 0; i < 4; i++)
			iov[i] = (struct iovec){ f.buf + i * 65536, 65536 };
		const struct ts_uring_ops ops = { .next = files_next, .done = files_done };
		unsigned fl = (opens ? TS_URING_OPEN : 0) | (async ? TS_URING_ASYNC : 0) |
			      (async_open ? TS_URING_ASYNC_OPEN : 0);
		CHECK(ts_uring_new(4, iov, reg ? 4 : 0, fl, &r, err, sizeof err) == 0);
		CHECK(ts_uring_opens(r) == opens);
		CHECK(ts_uring_fixed_bufs(r) == reg);
		CHECK(ts_uring_run(r, &ops, &f) == 0);
		ts_uring_stats(r, &st);
		ts_uring_free(r);
		CHECK_EQ_U64(f.done, 4);
		CHECK_EQ_U64(f.res[0], 0);
		CHECK(!memcmp(f.buf, want, 65536));
		CHECK_EQ_U64(f.res[1], 0);
		CHECK(!memcmp(f.buf + 65536, want, 1000));
		CHECK(f.res[2] == -ENOENT);
		CHECK(f.res[3] == TS_E_TRUNCATED); /* 1000 bytes, then end of file */
		CHECK(st.requeued >= 1);
		CHECK_EQ_U64(st.reads, 2);
		CHECK_EQ_U64(st.bytes, 65536 + 1000);
		free(f.buf);
	}
	free(want);
	tp_rmrf(d);
	return tc_exit();
}
