/*
 * uring_opens.c — reads DIR/f000 .. DIR/f<N-1> (each 4096 bytes of the
 * pattern below) with the loader's io_uring reader, run in this thread with
 * the flags the loader would use under the given options, checks every
 * byte, and prints "tid T": the thread that submitted. open_inline.sh looks
 * in a tierfs trace for the opens that thread sent itself.
 *
 *   uring_opens DIR N QD [OPTION=VALUE]...   (loader options, ts_pipe_opts)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/loader.h"
#include "pipeline/uring.h"

#define FILE_LEN 4096u

struct files {
	int dirfd;
	char (*name)[16];
	uint8_t *buf;
	unsigned n, next, done, bad;
};

static int files_next(void *ctx, struct ts_uring_io *io, bool may_block)
{
	(void)may_block;
	struct files *f = ctx;
	if (f->next == f->n)
		return -1;
	unsigned i = f->next++;
	io->dirfd = f->dirfd;
	io->rel = f->name[i];
	io->len = FILE_LEN;
	io->buf = f->buf + (size_t)i * FILE_LEN;
	io->user = (void *)(uintptr_t)i;
	return 1;
}

static void files_done(void *ctx, struct ts_uring_io *io)
{
	struct files *f = ctx;
	unsigned i = (unsigned)(uintptr_t)io->user;
	bool ok = io->res == 0;
	for (unsigned k = 0; ok && k < FILE_LEN; k++)
		ok = io->buf[k] == (uint8_t)(i * 31 + k);
	if (!ok) {
		fprintf(stderr, "%s: %s\n", f->name[i],
			io->res ? ts_strerror(io->res) : "bytes differ from what was written");
		f->bad++;
	}
	f->done++;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: uring_opens DIR N QD [OPTION=VALUE]...\n");
		return 2;
	}
	char err[512];
	struct ts_pipe_cfg cfg;
	memset(&cfg, 0, sizeof cfg);
	int rc = ts_opt_defaults(ts_pipe_opts, &cfg, err, sizeof err);
	for (int i = 4; i < argc && !rc; i++)
		rc = ts_opt_set_kv(ts_pipe_opts, &cfg, argv[i], err, sizeof err);
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	unsigned flags = ts_pipe_uring_flags(&cfg);
	ts_opt_free(ts_pipe_opts, &cfg);

	struct files f = { .n = (unsigned)strtoul(argv[2], NULL, 0) };
	unsigned qd = (unsigned)strtoul(argv[3], NULL, 0);
	f.dirfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	f.name = calloc(f.n ? f.n : 1, sizeof *f.name);
	f.buf = malloc((size_t)(f.n ? f.n : 1) * FILE_LEN);
	if (f.dirfd < 0 || !f.name || !f.buf || !qd) {
		fprintf(stderr, "%s: cannot open, or N/QD is 0\n", argv[1]);
		return 1;
	}
	/* Look every name up first, as the folder source's listing does: the
	 * opens below then find them in the dentry cache. */
	for (unsigned i = 0; i < f.n; i++) {
		struct stat sb;
		snprintf(f.name[i], sizeof f.name[i], "f%03u", i);
		if (fstatat(f.dirfd, f.name[i], &sb, 0) || sb.st_size != FILE_LEN) {
			fprintf(stderr, "%s/%s: missing or not %u bytes\n", argv[1], f.name[i],
				FILE_LEN);
			return 1;
		}
	}
	struct ts_uring *r;
	if ((rc = ts_uring_new(qd, NULL, 0, flags, &r, err, sizeof err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	const struct ts_uring_ops ops = { .next = files_next, .done = files_done };
	rc = ts_uring_run(r, &ops, &f);
	bool opens = ts_uring_opens(r);
	ts_uring_free(r);
	if (rc || f.done != f.n || f.bad) {
		fprintf(stderr, "io_uring: %s; %u of %u files read, %u bad\n",
			rc ? ts_strerror(rc) : "ok", f.done, f.n, f.bad);
		return 1;
	}
	if (!opens) {
		fprintf(stderr, "this kernel cannot open files through io_uring\n");
		return 77;
	}
	printf("tid %d\n", gettid());
	close(f.dirfd);
	free(f.name);
	free(f.buf);
	return 0;
}
