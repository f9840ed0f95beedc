/*
 * shadow.c — a seeded random workload of writes, reads, truncates,
 * renames and unlinks done twice, on the tierfs mount and on a plain
 * directory (the shadow), comparing every result and errno on the way and
 * every file byte for byte at the end.
 *
 *   shadow MOUNTPOINT SHADOW BACKING [SEED [OPS]]
 *
 * Operations go through short-lived opens and through a few long-lived
 * descriptors (which keep working across renames and unlinks), with
 * O_APPEND writes among them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rng.h"
#include "tests/tcheck.h"

#define NNAMES 12
#define MAXLEN (96 * 1024)
#define MAXOFF (384 * 1024)
#define NFDS 3

static const char *const names[NNAMES] = {
	"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "sub/f0", "sub/f1", "sub/g", "sub/h",
};

struct side {
	const char *root;
	int fd[NFDS];
};

static char *path(const struct side *s, const char *name)
{
	static char buf[2][4096];
	static int i;
	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", s->root, name);
	return buf[i];
}

/* A result: the return value, or -errno. */
static long res(long rc)
{
	return rc < 0 ? -errno : rc;
}

static int failures_at_op = -1;

static void compare(int op, const char *what, long a, long b)
{
	if (a != b) {
		fprintf(stderr, "op %d (%s): mount returned %ld, shadow %ld\n", op, what, a, b);
		tc_failures++;
		if (failures_at_op < 0)
			failures_at_op = op;
	}
}

static void compare_files(const struct side *a, const struct side *b)
{
	char *x = malloc(MAXOFF + 2 * MAXLEN), *y = malloc(MAXOFF + 2 * MAXLEN);
	for (int i = 0; i < NNAMES; i++) {
		struct stat sa, sb;
		long ra = res(stat(path(a, names[i]), &sa));
		long rb = res(stat(path(b, names[i]), &sb));
		compare(-1, names[i], ra, rb);
		if (ra || rb)
			continue;
		CHECK_EQ_U64(sa.st_size, sb.st_size);
		int fa = open(path(a, names[i]), O_RDONLY), fb = open(path(b, names[i]), O_RDONLY);
		ssize_t na = pread(fa, x, MAXOFF + 2 * MAXLEN, 0);
		ssize_t nb = pread(fb, y, MAXOFF + 2 * MAXLEN, 0);
		CHECK(na == nb && na >= 0 && memcmp(x, y, (size_t)na) == 0);
		close(fa);
		close(fb);
	}
	free(x);
	free(y);
}

/* Sorted names of a directory, leaving out libfuse's .fuse_hidden files
 * (unlinked files still open). */
static int list(const char *dir, char out[][64], int max)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)) && n < max)
		if (de->d_name[0] != '.')
			snprintf(out[n++], 64, "%.63s", de->d_name);
	if (d)
		closedir(d);
	qsort(out, (size_t)n, 64, (int (*)(const void *, const void *))strcmp);
	return n;
}

static void compare_dirs(const struct side *a, const struct side *b, const char *sub)
{
	static char la[64][64], lb[64][64];
	int na = list(path(a, sub), la, 64), nb = list(path(b, sub), lb, 64);
	CHECK(na == nb);
	for (int i = 0; i < na && i < nb; i++)
		CHECK(strcmp(la[i], lb[i]) == 0);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: shadow MOUNTPOINT SHADOW BACKING [SEED [OPS]]\n");
		return 2;
	}
	uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 0) : 42;
	int nops = argc > 5 ? atoi(argv[5]) : 3000;
	struct side s[2] = { { .root = argv[1] }, { .root = argv[2] } };
	struct ts_rng rng;
	char *wbuf = malloc(MAXLEN), *ra = malloc(MAXLEN), *rb = malloc(MAXLEN);
	int counts[8] = { 0 };

	ts_rng_seed(&rng, seed);
	for (int k = 0; k < 2; k++) {
		CHECK(mkdir(path(&s[k], "sub"), 0755) == 0);
		for (int j = 0; j < NFDS; j++)
			s[k].fd[j] = -1;
	}
	for (int op = 0; op < nops; op++) {
		const char *n1 = names[ts_rng_below(&rng, NNAMES)];
		const char *n2 = names[ts_rng_below(&rng, NNAMES)];
		uint64_t off = ts_rng_below(&rng, MAXOFF);
		size_t len = 1 + ts_rng_below(&rng, MAXLEN - 1);
		int j = (int)ts_rng_below(&rng, NFDS);
		uint64_t kind = ts_rng_below(&rng, 100);
		long r[2];

		for (size_t i = 0; i < len; i++)
			wbuf[i] = (char)(ts_rng_u64(&rng) & 0xff);
		if (kind < 25) { /* write through a fresh open */
			bool append = kind < 5;
			for (int k = 0; k < 2; k++) {
				int fd = open(path(&s[k], n1),
					      O_WRONLY | O_CREAT | (append ? O_APPEND : 0), 0644);
				r[k] = res(fd);
				if (fd >= 0) {
					r[k] = res(pwrite(fd, wbuf, len, (off_t)off));
					close(fd);
				}
			}
			compare(op, "write", r[0], r[1]);
			counts[0]++;
		} else if (kind < 45) { /* read through a fresh open */
			for (int k = 0; k < 2; k++) {
				char *buf = k ? rb : ra;
				int fd = open(path(&s[k], n1), O_RDONLY);
				r[k] = res(fd);
				if (fd >= 0) {
					r[k] = res(pread(fd, buf, len, (off_t)off));
					close(fd);
				}
			}
			compare(op, "read", r[0], r[1]);
			if (r[0] > 0 && r[0] == r[1] && memcmp(ra, rb, (size_t)r[0]) != 0) {
				fprintf(stderr, "op %d: read of %s differs\n", op, n1);
				tc_failures++;
			}
			counts[1]++;
		} else if (kind < 55) { /* truncate by name */
			for (int k = 0; k < 2; k++)
				r[k] = res(truncate(path(&s[k], n1), (off_t)off));
			compare(op, "truncate", r[0], r[1]);
			counts[2]++;
		} else if (kind < 65) { /* rename, maybe replacing */
			for (int k = 0; k < 2; k++)
				r[k] = res(rename(path(&s[k], n1), path(&s[k], n2)));
			compare(op, "rename", r[0], r[1]);
			counts[3]++;
		} else if (kind < 70) { /* unlink */
			for (int k = 0; k < 2; k++)
				r[k] = res(unlink(path(&s[k], n1)));
			compare(op, "unlink", r[0], r[1]);
			counts[4]++;
		} else if (kind < 75) { /* (re)open a long-lived descriptor */
			for (int k = 0; k < 2; k++) {
				if (s[k].fd[j] >= 0)
					close(s[k].fd[j]);
				s[k].fd[j] = open(path(&s[k], n1), O_RDWR | O_CREAT, 0644);
				r[k] = s[k].fd[j] >= 0 ? 0 : -errno; /* descriptors differ */
			}
			compare(op, "open", r[0], r[1]);
			counts[5]++;
		} else { /* IO on a long-lived descriptor */
			const char *what = kind < 85 ? "fd write" : kind < 95 ? "fd read" : "ftruncate";
			for (int k = 0; k < 2; k++) {
				int fd = s[k].fd[j];
				char *buf = k ? rb : ra;
				if (fd < 0)
					r[k] = -EBADF;
				else if (kind < 85)
					r[k] = res(pwrite(fd, wbuf, len, (off_t)off));
				else if (kind < 95)
					r[k] = res(pread(fd, buf, len, (off_t)off));
				else
					r[k] = res(ftruncate(fd, (off_t)off));
			}
			compare(op, what, r[0], r[1]);
			if (kind >= 85 && kind < 95 && r[0] > 0 && r[0] == r[1] &&
			    memcmp(ra, rb, (size_t)r[0]) != 0) {
				fprintf(stderr, "op %d: fd read differs\n", op);
				tc_failures++;
			}
			counts[6]++;
		}
		if (tc_failures > 20)
			break;
	}
	for (int k = 0; k < 2; k++)
		for (int j = 0; j < NFDS; j++)
			if (s[k].fd[j] >= 0)
				close(s[k].fd[j]);
	compare_files(&s[0], &s[1]);
	compare_dirs(&s[0], &s[1], ".");
	compare_dirs(&s[0], &s[1], "sub");
	printf("%d ops (seed %llu): %d writes, %d reads, %d truncates, %d renames, %d unlinks, "
	       "%d opens, %d fd ops\n",
	       nops, (unsigned long long)seed, counts[0], counts[1], counts[2], counts[3],
	       counts[4], counts[5], counts[6]);
	if (failures_at_op >= 0)
		fprintf(stderr, "first difference at op %d\n", failures_at_op);
	free(wbuf);
	free(ra);
	free(rb);
	return tc_exit();
}
