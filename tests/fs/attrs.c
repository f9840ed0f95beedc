/*
 * attrs.c — attributes cached in the kernel, and kept true, through a
 * tierfs mount.
 *
 *   attrs MOUNTPOINT SHADOW BACKING [later]
 *
 * A stat() of a file the kernel holds is answered from its cache (the
 * daemon counts far fewer getattrs than stat() calls), and every op that
 * changes a file's attributes shows on every name of it at once: the link
 * count of a hard link's other names after link, unlink and a rename that
 * replaces one (also inside a folder renamed since the names were seen),
 * their size after a write, truncate, ftruncate, fallocate and an open
 * with O_TRUNC, their mode after chmod, times after utimens, both names
 * after RENAME_EXCHANGE, and the same on a kernel-cached (cached=) file.
 * "later": the mount cannot wait for its invalidations (max_threads=1), so
 * each check waits up to 5 s for the right value; mounted with a long
 * attr_timeout, only an invalidation brings it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/fs/paths.h"
#include "tests/tcheck.h"

static const char *mnt;
static bool later;

static char *m(const char *rel)
{
	return tc_under(mnt, rel);
}

static void make(const char *rel, size_t bytes)
{
	char buf[4096] = { 0 };
	int fd = open(m(rel), O_CREAT | O_TRUNC | O_WRONLY, 0644);
	CHECK(fd >= 0);
	for (size_t done = 0; fd >= 0 && done < bytes; done += sizeof(buf))
		CHECK(write(fd, buf, bytes - done < sizeof(buf) ? bytes - done : sizeof(buf)) > 0);
	if (fd >= 0)
		close(fd);
}

enum field { NLINK, SIZE, MODE, MTIME };

static long long field_of(const struct stat *st, enum field f)
{
	switch (f) {
	case NLINK:
		return (long long)st->st_nlink;
	case SIZE:
		return (long long)st->st_size;
	case MODE:
		return (long long)(st->st_mode & 07777);
	case MTIME:
		return (long long)st->st_mtim.tv_sec;
	}
	return -1;
}

/* stat(@rel)'s @f is @want: at once, or within 5 s when later. */
static void expect_at(int line, const char *rel, enum field f, long long want)
{
	static const char *const names[] = { "st_nlink", "st_size", "mode", "st_mtime" };
	struct stat st;
	long long got = -1;
	for (int tries = 0; tries < (later ? 500 : 1); tries++) {
		if (tries)
			usleep(10000);
		got = stat(m(rel), &st) ? -errno : field_of(&st, f);
		if (got == want)
			return;
	}
	fprintf(stderr, "%s:%d: stat(%s).%s = %lld, expected %lld\n", __FILE__, line, rel,
		names[f], got, want);
	tc_failures++;
}
#define EXPECT(rel, f, want) expect_at(__LINE__, rel, f, want)

/* Every name looked up, so the kernel holds (and caches) each of them. */
static void look(const char *a, const char *b, const char *c)
{
	struct stat st;
	const char *names[] = { a, b, c };
	for (int i = 0; i < 3; i++)
		if (names[i])
			CHECK(stat(m(names[i]), &st) == 0);
}

/* The daemon's count of getattrs (.tierfs/stats: ops.getattr.count). */
static long long getattrs(void)
{
	char buf[1 << 16];
	int fd = open(m(".tierfs/stats"), O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	const char *op = strstr(buf, "\"getattr\"");
	const char *c = op ? strstr(op, "\"count\":") : NULL;
	return c ? strtoll(c + 8, NULL, 10) : -1;
}

int main(int argc, char **argv)
{
	struct stat st;

	if (argc < 4) {
		fprintf(stderr, "usage: attrs MOUNTPOINT SHADOW BACKING [later]\n");
		return 2;
	}
	mnt = argv[1];
	later = argc > 4 && strcmp(argv[4], "later") == 0;

	/* Cached: 20 stat()s of a file the kernel has looked up reach the
	 * daemon as far fewer getattrs (with attr_timeout=0: all 20). */
	make("plain", 100);
	CHECK(stat(m("plain"), &st) == 0);
	long long before = getattrs();
	for (int i = 0; i < 20; i++)
		CHECK(stat(m("plain"), &st) == 0 && st.st_size == 100);
	long long seen = getattrs() - before;
	if (before < 0 || seen >= 10) {
		fprintf(stderr, "%s:%d: 20 stat()s made %lld getattrs (expected fewer than 10)\n",
			__FILE__, __LINE__, seen);
		tc_failures++;
	}
	/* The size a write through the same name gives, at once. */
	int fd = open(m("plain"), O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, "abc", 3) == 3);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 103);
	close(fd);
	CHECK(stat(m("plain"), &st) == 0 && st.st_size == 103);

	/* Link counts: three names, each looked up before every change. */
	make("a", 10);
	CHECK(link(m("a"), m("b")) == 0);
	EXPECT("a", NLINK, 2);
	EXPECT("b", NLINK, 2);
	CHECK(link(m("b"), m("c")) == 0);
	EXPECT("a", NLINK, 3);
	EXPECT("b", NLINK, 3);
	EXPECT("c", NLINK, 3);
	CHECK(unlink(m("a")) == 0);
	EXPECT("b", NLINK, 2);
	EXPECT("c", NLINK, 2);

	/* Size, mode and times through one name, seen through the other. */
	fd = open(m("b"), O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, "x", 1, 4095) == 1);
	EXPECT("c", SIZE, 4096);
	CHECK(ftruncate(fd, 5000) == 0);
	EXPECT("c", SIZE, 5000);
	CHECK(fallocate(fd, 0, 0, 8192) == 0);
	EXPECT("c", SIZE, 8192);
	close(fd);
	look("b", "c", NULL);
	CHECK(truncate(m("b"), 77) == 0);
	EXPECT("c", SIZE, 77);
	look("b", "c", NULL);
	fd = open(m("c"), O_WRONLY | O_TRUNC);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	EXPECT("b", SIZE, 0);
	look("b", "c", NULL);
	CHECK(chmod(m("b"), 0600) == 0);
	EXPECT("c", MODE, 0600);
	struct timespec tv[2] = { { 1000000, 0 }, { 2000000, 0 } };
	CHECK(utimensat(AT_FDCWD, m("c"), tv, 0) == 0);
	EXPECT("b", MTIME, 2000000);

	/* A rename that replaces a name of the file: the other's count. */
	make("other", 1);
	look("b", "c", "other");
	CHECK(rename(m("other"), m("b")) == 0);
	EXPECT("c", NLINK, 1);
	EXPECT("b", NLINK, 1);

	/* RENAME_EXCHANGE of two hard-linked files' names. */
	make("p1", 1);
	make("q1", 2);
	CHECK(link(m("p1"), m("p2")) == 0 && link(m("q1"), m("q2")) == 0);
	look("p1", "p2", NULL);
	look("q1", "q2", NULL);
	CHECK(renameat2(AT_FDCWD, m("p1"), AT_FDCWD, m("q1"), RENAME_EXCHANGE) == 0);
	CHECK(unlink(m("q1")) == 0); /* now p's */
	EXPECT("p2", NLINK, 1);
	CHECK(unlink(m("p1")) == 0); /* now q's */
	EXPECT("q2", NLINK, 1);

	/* A name inside a folder renamed after it was seen. */
	CHECK(mkdir(m("d"), 0755) == 0);
	make("d/f", 3);
	CHECK(link(m("d/f"), m("g")) == 0);
	look("d/f", "g", NULL);
	CHECK(rename(m("d"), m("d2")) == 0);
	look("d2/f", NULL, NULL);
	CHECK(unlink(m("g")) == 0);
	EXPECT("d2/f", NLINK, 1);

	/* A kernel-cached file (cached=, *.mdb by default): written through
	 * one name with write(), its size on the other. */
	make("k.mdb", 10);
	CHECK(link(m("k.mdb"), m("k2.mdb")) == 0);
	look("k.mdb", "k2.mdb", NULL);
	fd = open(m("k.mdb"), O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, "12345", 5) == 5);
	if (fd >= 0)
		close(fd);
	/* a cached handle's op cannot wait for its invalidations: a moment */
	later = true;
	EXPECT("k2.mdb", SIZE, 15);
	return tc_exit();
}
