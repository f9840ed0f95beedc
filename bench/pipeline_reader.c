/*
 * pipeline_reader.c — the reader side of bench/pipeline.sh: reads a set of
 * whole files one way and prints one line "samples bytes seconds".
 *
 *   pipeline_reader uring  DIR PREFIX N QD [noreg] [noopen] [inlineopen] [async]
 *       the loader's io_uring reader alone (pipeline/uring.c): files
 *       DIR/PREFIX0 .. DIR/PREFIX<N-1> in that order, QD in flight, bytes
 *       read into registered slots and dropped; opens handed to io_uring's
 *       workers as the loader does (inlineopen: tried inline first)
 *   pipeline_reader naive  DIR PREFIX N
 *       one thread: open, fstat, pread to the end, close, file after file
 *   pipeline_reader loader DIR QD [OPTION=VALUE]...
 *       the whole loader (folder source, decode=none, no shuffle, batch
 *       256, prefetch 4, then the options given) with a consumer that
 *       releases every batch at once
 *   pipeline_reader link DIR PREFIX N TO
 *       hard-links DIR/PREFIX<i> as TO/<i, zero-padded>, so the loader's
 *       sorted listing reads the same inodes in fio's order
 *
 * The file names follow fio's default (jobname.jobnum.filenum), so fio and
 * these readers read the same files in the same order.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "pipeline/loader.h"
#include "pipeline/uring.h"

struct files {
	char **path;
	uint32_t *len;
	uint64_t n, next, done, bytes, errors;
	uint8_t *arena;
	size_t slot;
	int *free;
	unsigned nfree;
};

static int load_list(struct files *f, const char *dir, const char *prefix, uint64_t n)
{
	f->path = calloc(n, sizeof *f->path);
	f->len = calloc(n, sizeof *f->len);
	if (!f->path || !f->len)
		return -1;
	f->n = n;
	uint32_t max = 0;
	for (uint64_t i = 0; i < n; i++) {
		char p[4096];
		snprintf(p, sizeof p, "%s/%s%llu", dir, prefix, (unsigned long long)i);
		struct stat sb;
		if (stat(p, &sb)) {
			perror(p);
			return -1;
		}
		f->path[i] = strdup(p);
		f->len[i] = (uint32_t)sb.st_size;
		if (f->len[i] > max)
			max = f->len[i];
	}
	f->slot = ((size_t)max + 4095) & ~(size_t)4095;
	return 0;
}

static int u_next(void *ctx, struct ts_uring_io *io, bool may_block)
{
	struct files *f = ctx;
	if (f->next >= f->n)
		return -1;
	if (!f->nfree)
		return 0;
	int s = f->free[--f->nfree];
	uint64_t i = f->next++;
	io->dirfd = AT_FDCWD;
	io->rel = f->path[i];
	io->len = f->len[i];
	io->buf = f->arena + (size_t)s * f->slot;
	io->buf_index = s;
	io->user = (void *)(intptr_t)s;
	return 1;
}

static void u_done(void *ctx, struct ts_uring_io *io)
{
	struct files *f = ctx;
	if (io->res)
		f->errors++;
	else
		f->bytes += io->len;
	f->done++;
	f->free[f->nfree++] = (int)(intptr_t)io->user;
}

static const struct ts_uring_ops u_ops = { .next = u_next, .done = u_done };

static int run_uring(struct files *f, unsigned qd, bool reg, unsigned flags)
{
	f->arena = aligned_alloc(4096, f->slot * qd);
	f->free = calloc(qd, sizeof *f->free);
	struct iovec *iov = calloc(qd, sizeof *iov);
	if (!f->arena || !f->free || !iov)
		return 1;
	for (unsigned i = 0; i < qd; i++) {
		f->free[f->nfree++] = (int)i;
		iov[i].iov_base = f->arena + i * f->slot;
		iov[i].iov_len = f->slot;
	}
	struct ts_uring *r;
	char err[256];
	if (ts_uring_new(qd, iov, reg ? qd : 0, flags, &r, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	uint64_t t0 = ts_now_ns();
	int rc = ts_uring_run(r, &u_ops, f);
	uint64_t t1 = ts_now_ns();
	fprintf(stderr, "fixed buffers: %s, opens through io_uring: %s\n",
		ts_uring_fixed_bufs(r) ? "yes" : "no", ts_uring_opens(r) ? "yes" : "no");
	ts_uring_free(r);
	free(iov);
	if (rc || f->errors) {
		fprintf(stderr, "io_uring reader: %s, %llu failed reads\n", ts_strerror(rc),
			(unsigned long long)f->errors);
		return 1;
	}
	printf("%llu %llu %.6f\n", (unsigned long long)f->done, (unsigned long long)f->bytes,
	       (double)(t1 - t0) / 1e9);
	return 0;
}

static int run_naive(struct files *f)
{
	uint8_t *buf = malloc(f->slot ? f->slot : 4096);
	uint64_t t0 = ts_now_ns();
	for (uint64_t i = 0; i < f->n; i++) {
		int fd = open(f->path[i], O_RDONLY | O_CLOEXEC);
		struct stat sb;
		if (fd < 0 || fstat(fd, &sb)) {
			perror(f->path[i]);
			return 1;
		}
		off_t off = 0;
		while (off < sb.st_size) {
			ssize_t r = pread(fd, buf, (size_t)(sb.st_size - off), off);
			if (r <= 0) {
				perror(f->path[i]);
				return 1;
			}
			off += r;
		}
		close(fd);
		f->bytes += (uint64_t)sb.st_size;
		f->done++;
	}
	uint64_t t1 = ts_now_ns();
	free(buf);
	printf("%llu %llu %.6f\n", (unsigned long long)f->done, (unsigned long long)f->bytes,
	       (double)(t1 - t0) / 1e9);
	return 0;
}

static int run_loader(const char *dir, const char *qd, char **extra, int nextra)
{
	struct ts_pipe_cfg cfg = { 0 };
	char err[1024];
	struct ts_pipe *p;
	const char *kv[] = { "source=folder", "decode=none", "shuffle=false", "batch=256",
			     "prefetch=4", "mem_limit=8GiB" };
	int rc = ts_opt_defaults(ts_pipe_opts, &cfg, err, sizeof err);
	for (size_t i = 0; i < TS_ARRAY_SIZE(kv) && !rc; i++)
		rc = ts_opt_set_kv(ts_pipe_opts, &cfg, kv[i], err, sizeof err);
	if (!rc)
		rc = ts_opt_set(ts_pipe_opts, &cfg, "path", dir, err, sizeof err);
	if (!rc)
		rc = ts_opt_set(ts_pipe_opts, &cfg, "qd", qd, err, sizeof err);
	for (int i = 0; i < nextra && !rc; i++)
		rc = ts_opt_set_kv(ts_pipe_opts, &cfg, extra[i], err, sizeof err);
	if (!rc)
		rc = ts_pipe_new(&cfg, &p, err, sizeof err);
	ts_opt_free(ts_pipe_opts, &cfg);
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	uint64_t t0 = ts_now_ns(), n = 0, bytes = 0;
	if (ts_pipe_start(p))
		return 1;
	for (;;) {
		struct ts_batch *b;
		int64_t w = ts_pipe_next_batch(p, &b);
		if (w < 0) {
			fprintf(stderr, "%s\n", ts_pipe_error(p));
			return 1;
		}
		if (!b)
			break;
		n += b->n;
		for (uint32_t i = 0; i < b->n; i++)
			bytes += b->s[i].len;
		ts_pipe_batch_release(p, b);
	}
	uint64_t t1 = ts_now_ns();
	struct ts_pipe_stats st;
	ts_pipe_stats(p, &st);
	fprintf(stderr, "loader: %llu errors, reader in flight %.1f on average, fixed buffers %s, "
			"decode %s, workers busy %.2f s, waiting %.2f s\n",
		(unsigned long long)st.errors, st.reader_inflight_mean,
		st.fixed_buffers ? "yes" : "no", st.decode_note, st.decode.busy_ns / 1e9,
		st.decode.wait_in_ns / 1e9);
	ts_pipe_free(p);
	printf("%llu %llu %.6f\n", (unsigned long long)n, (unsigned long long)bytes,
	       (double)(t1 - t0) / 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	struct files f = { 0 };
	if (argc >= 6 && !strcmp(argv[1], "uring")) {
		bool reg = true;
		unsigned flags = TS_URING_OPEN | TS_URING_ASYNC_OPEN;
		for (int i = 6; i < argc; i++) {
			reg &= strcmp(argv[i], "noreg") != 0;
			if (!strcmp(argv[i], "noopen"))
				flags &= ~(unsigned)TS_URING_OPEN;
			if (!strcmp(argv[i], "inlineopen"))
				flags &= ~(unsigned)TS_URING_ASYNC_OPEN;
			if (!strcmp(argv[i], "async"))
				flags |= TS_URING_ASYNC;
		}
		if (load_list(&f, argv[2], argv[3], strtoull(argv[4], NULL, 0)))
			return 1;
		return run_uring(&f, (unsigned)strtoul(argv[5], NULL, 0), reg, flags);
	}
	if (argc == 5 && !strcmp(argv[1], "naive")) {
		if (load_list(&f, argv[2], argv[3], strtoull(argv[4], NULL, 0)))
			return 1;
		return run_naive(&f);
	}
	if (argc == 6 && !strcmp(argv[1], "link")) {
		uint64_t n = strtoull(argv[4], NULL, 0);
		for (uint64_t i = 0; i < n; i++) {
			char from[4096], to[4096];
			snprintf(from, sizeof from, "%s/%s%llu", argv[2], argv[3],
				 (unsigned long long)i);
			snprintf(to, sizeof to, "%s/%08llu", argv[5], (unsigned long long)i);
			if (link(from, to)) {
				perror(to);
				return 1;
			}
		}
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "loader"))
		return run_loader(argv[2], argv[3], argv + 4, argc - 4);
	fprintf(stderr, "usage: pipeline_reader uring DIR PREFIX N QD [noreg] [noopen] [inlineopen] "
			"[async]\n"
			"       pipeline_reader naive DIR PREFIX N\n"
			"       pipeline_reader loader DIR QD [OPTION=VALUE]...\n"
			"       pipeline_reader link DIR PREFIX N TO\n");
	return 2;
}
