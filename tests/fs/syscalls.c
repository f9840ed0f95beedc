/*
 * syscalls.c — a POSIX syscall battery through a tierfs mount.
 *
 *   syscalls MOUNTPOINT SHADOW BACKING
 *
 * Every operation tierfs passes through is called on the mount and its
 * effect checked, on the mount and in BACKING: create/open/read/write,
 * truncate/ftruncate, rename with RENAME_NOREPLACE and RENAME_EXCHANGE,
 * unlink (also of an open file), mkdir/rmdir, symlink/readlink, link,
 * chmod/chown/utimens, statfs, flush/release, fsync/fdatasync, fallocate
 * (also punching a hole), mknod (FIFO), readdir, access, O_APPEND, and mmap:
 * shared read/write on a kernel-cached file (*.mdb), private on a direct-IO
 * one.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "tests/fs/paths.h"
#include "tests/tcheck.h"

static const char *mnt, *backing;

static char *m(const char *rel)
{
	return tc_under(mnt, rel);
}

static char *b(const char *rel)
{
	static char buf[8][4096];
	static int i;
	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", backing, rel);
	return buf[i];
}

static ssize_t slurp(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	ssize_t got = read(fd, buf, n);
	close(fd);
	return got;
}

static int spit(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	int rc = close(fd);
	return n == (ssize_t)strlen(text) && rc == 0 ? 0 : -EIO;
}

static void test_files(void)
{
	char buf[8192];
	struct stat st;

	int fd = open(m("f"), O_RDWR | O_CREAT | O_EXCL, 0640);
	CHECK(fd >= 0);
	CHECK(open(m("f"), O_RDWR | O_CREAT | O_EXCL, 0640) < 0 && errno == EEXIST);
	CHECK(write(fd, "hello world", 11) == 11);
	CHECK(pwrite(fd, "HELLO", 5, 0) == 5);
	CHECK(pread(fd, buf, sizeof(buf), 0) == 11 && memcmp(buf, "HELLO world", 11) == 0);
	CHECK(pread(fd, buf, sizeof(buf), 100) == 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 11 && (st.st_mode & 0777) == 0640);
	/* A write past the end leaves a hole that reads as zeros. */
	CHECK(pwrite(fd, "x", 1, 5000) == 1);
	CHECK(pread(fd, buf, sizeof(buf), 0) == 5001 && buf[11] == 0 && buf[4999] == 0 &&
	      buf[5000] == 'x');
	CHECK(fsync(fd) == 0);
	CHECK(fdatasync(fd) == 0);
	CHECK(ftruncate(fd, 3) == 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 3);
	CHECK(close(fd) == 0); /* flush + release */
	CHECK(slurp(b("f"), buf, sizeof(buf)) == 3 && memcmp(buf, "HEL", 3) == 0);

	CHECK(truncate(m("f"), 100) == 0);
	CHECK(stat(m("f"), &st) == 0 && st.st_size == 100);
	CHECK(stat(b("f"), &st) == 0 && st.st_size == 100);
	CHECK(stat(m("nonexistent"), &st) < 0 && errno == ENOENT);

	/* O_TRUNC and O_APPEND. */
	fd = open(m("f"), O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0);
	close(fd);
	CHECK(spit(m("app"), "ab") == 0);
	fd = open(m("app"), O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, "cd", 2) == 2);
	close(fd);
	CHECK(slurp(m("app"), buf, sizeof(buf)) == 4 && memcmp(buf, "abcd", 4) == 0);

	/* A large transfer, bigger than one FUSE request. */
	size_t big = 3 * 1024 * 1024 + 123;
	char *wbuf = malloc(big), *rbuf = malloc(big);
	for (size_t i = 0; i < big; i++)
		wbuf[i] = (char)(i * 7 + i / 4096);
	fd = open(m("big"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, wbuf, big) == (ssize_t)big);
	CHECK(pread(fd, rbuf, big, 0) == (ssize_t)big && memcmp(wbuf, rbuf, big) == 0);
	close(fd);
	CHECK(slurp(b("big"), rbuf, big) > 0 && memcmp(wbuf, rbuf, 4096) == 0);
	free(wbuf);
	free(rbuf);

	/* Unlink while open: the handle keeps working. */
	fd = open(m("gone"), O_RDWR | O_CREAT, 0644);
	CHECK(fd >= 0 && write(fd, "abc", 3) == 3);
	CHECK(unlink(m("gone")) == 0);
	CHECK(access(m("gone"), F_OK) < 0 && errno == ENOENT);
	CHECK(pwrite(fd, "Z", 1, 1) == 1 && pread(fd, buf, 3, 0) == 3 && memcmp(buf, "aZc", 3) == 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 3);
	CHECK(ftruncate(fd, 1) == 0);
	close(fd);
}

static void test_names(void)
{
	char buf[256];
	struct stat st, st2;

	CHECK(mkdir(m("d"), 0750) == 0);
	CHECK(stat(b("d"), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0750);
	CHECK(mkdir(m("d"), 0750) < 0 && errno == EEXIST);
	CHECK(mkdir(m("d/sub"), 0755) == 0);
	CHECK(rmdir(m("d")) < 0 && errno == ENOTEMPTY);
	CHECK(rmdir(m("d/sub")) == 0);

	/* rename, plain and with flags. */
	CHECK(spit(m("d/a"), "AAA") == 0);
	CHECK(spit(m("d/b"), "BBBB") == 0);
	CHECK(rename(m("d/a"), m("d/c")) == 0);
	CHECK(access(m("d/a"), F_OK) < 0 && access(m("d/c"), F_OK) == 0);
	CHECK(renameat2(AT_FDCWD, m("d/c"), AT_FDCWD, m("d/b"), RENAME_NOREPLACE) < 0 &&
	      errno == EEXIST);
	CHECK(renameat2(AT_FDCWD, m("d/c"), AT_FDCWD, m("d/b"), RENAME_EXCHANGE) == 0);
	CHECK(slurp(m("d/b"), buf, sizeof(buf)) == 3 && memcmp(buf, "AAA", 3) == 0);
	CHECK(slurp(m("d/c"), buf, sizeof(buf)) == 4 && memcmp(buf, "BBBB", 4) == 0);
	CHECK(slurp(b("d/c"), buf, sizeof(buf)) == 4);
	CHECK(renameat2(AT_FDCWD, m("d/c"), AT_FDCWD, m("d/e"), RENAME_NOREPLACE) == 0);
	CHECK(rename(m("d/e"), m("d/b")) == 0); /* replaces */
	CHECK(slurp(m("d/b"), buf, sizeof(buf)) == 4);
	CHECK(rename(m("d/b"), m("moved")) == 0); /* across directories */
	CHECK(access(b("moved"), F_OK) == 0);

	/* Hard links. */
	CHECK(link(m("moved"), m("d/hard")) == 0);
	CHECK(stat(m("moved"), &st) == 0 && stat(m("d/hard"), &st2) == 0);
	CHECK(st.st_ino == st2.st_ino && st.st_nlink == 2);
	CHECK(unlink(m("moved")) == 0);
	CHECK(stat(m("d/hard"), &st2) == 0 && st2.st_nlink == 1);
	CHECK(slurp(m("d/hard"), buf, sizeof(buf)) == 4);

	/* Symlinks: the link itself through lstat/readlink, the target
	 * through stat (the kernel follows it). */
	CHECK(symlink("hard", m("d/sym")) == 0);
	CHECK(lstat(m("d/sym"), &st) == 0 && S_ISLNK(st.st_mode));
	ssize_t n = readlink(m("d/sym"), buf, sizeof(buf));
	CHECK(n == 4 && memcmp(buf, "hard", 4) == 0);
	CHECK(readlink(b("d/sym"), buf, sizeof(buf)) == 4);
	CHECK(stat(m("d/sym"), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 4);
	CHECK(symlink("/nowhere/at/all", m("d/dangling")) == 0);
	CHECK(stat(m("d/dangling"), &st) < 0 && errno == ENOENT);
	CHECK(unlink(m("d/dangling")) == 0);

	/* Modes, owners, times. */
	CHECK(chmod(m("d/hard"), 0604) == 0);
	CHECK(stat(b("d/hard"), &st) == 0 && (st.st_mode & 0777) == 0604);
	if (geteuid() == 0) {
		CHECK(chown(m("d/hard"), 1234, 5678) == 0);
		CHECK(stat(b("d/hard"), &st) == 0 && st.st_uid == 1234 && st.st_gid == 5678);
		CHECK(lchown(m("d/sym"), 4321, 8765) == 0);
		CHECK(lstat(b("d/sym"), &st) == 0 && st.st_uid == 4321);
		CHECK(stat(b("d/hard"), &st) == 0 && st.st_uid == 1234);
	}
	struct timespec tv[2] = { { 1000000000, 123456789 }, { 1200000000, 987654321 } };
	CHECK(utimensat(AT_FDCWD, m("d/hard"), tv, 0) == 0);
	CHECK(stat(b("d/hard"), &st) == 0 && st.st_atim.tv_sec == 1000000000 &&
	      st.st_mtim.tv_sec == 1200000000 && st.st_mtim.tv_nsec == 987654321);
	struct timespec tl[2] = { { 1100000000, 0 }, { 1100000000, 0 } };
	CHECK(utimensat(AT_FDCWD, m("d/sym"), tl, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(lstat(b("d/sym"), &st) == 0 && st.st_mtim.tv_sec == 1100000000);
	CHECK(stat(b("d/hard"), &st) == 0 && st.st_mtim.tv_sec == 1200000000);
	int fd = open(m("d/hard"), O_RDWR);
	CHECK(fd >= 0 && fchmod(fd, 0600) == 0 && futimens(fd, tl) == 0);
	close(fd);
	CHECK(stat(b("d/hard"), &st) == 0 && (st.st_mode & 0777) == 0600 &&
	      st.st_mtim.tv_sec == 1100000000);

	/* access() */
	CHECK(access(m("d/hard"), R_OK | W_OK) == 0);
	CHECK(access(m("d/none"), R_OK) < 0 && errno == ENOENT);

	/* A FIFO. */
	CHECK(mknod(m("d/fifo"), S_IFIFO | 0600, 0) == 0);
	CHECK(lstat(b("d/fifo"), &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK(unlink(m("d/fifo")) == 0);

	/* readdir: exactly what BACKING holds, and no control directory. */
	for (int i = 0; i < 300; i++) {
		snprintf(buf, sizeof(buf), "d/many/entry-%03d", i);
		if (i == 0)
			CHECK(mkdir(m("d/many"), 0755) == 0);
		CHECK(spit(m(buf), "") == 0);
	}
	DIR *dir = opendir(m("d/many"));
	int seen = 0, dots = 0;
	struct dirent *de;
	while (dir && (de = readdir(dir))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			dots++;
		else if (strncmp(de->d_name, "entry-", 6) == 0)
			seen++;
	}
	if (dir)
		closedir(dir);
	CHECK(seen == 300 && dots == 2);
	dir = opendir(mnt);
	bool ctl = false;
	while (dir && (de = readdir(dir)))
		ctl |= strcmp(de->d_name, ".tierfs") == 0;
	if (dir)
		closedir(dir);
	CHECK(!ctl);
}

static void test_fallocate_statfs(void)
{
	char buf[16384];
	struct stat st;
	struct statvfs sv, svb;

	int fd = open(m("fa"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK(fallocate(fd, 0, 0, 1 << 20) == 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 1 << 20);
	CHECK(fallocate(fd, FALLOC_FL_KEEP_SIZE, 1 << 20, 1 << 20) == 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 1 << 20);
	memset(buf, 'q', sizeof(buf));
	CHECK(pwrite(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf));
	CHECK(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4096, 8192) == 0);
	CHECK(pread(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf));
	CHECK(buf[4095] == 'q' && buf[4096] == 0 && buf[12287] == 0 && buf[12288] == 'q');
	close(fd);

	CHECK(statvfs(mnt, &sv) == 0 && statvfs(backing, &svb) == 0);
	CHECK(sv.f_bsize == svb.f_bsize && sv.f_blocks == svb.f_blocks && sv.f_files == svb.f_files);
}

static void test_mmap(void)
{
	const size_t len = 64 * 1024;
	char buf[64];

	/* Shared read/write mapping of a kernel-cached file (*.mdb). */
	int fd = open(m("map.mdb"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && ftruncate(fd, (off_t)len) == 0);
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED) {
		memcpy(p + 100, "through the map", 15);
		memcpy(p + len - 10, "tail", 4);
		CHECK(msync(p, len, MS_SYNC) == 0);
		CHECK(munmap(p, len) == 0);
	}
	close(fd);
	int bfd = open(b("map.mdb"), O_RDONLY);
	CHECK(bfd >= 0 && pread(bfd, buf, 15, 100) == 15 && memcmp(buf, "through the map", 15) == 0);
	CHECK(pread(bfd, buf, 4, (off_t)len - 10) == 4 && memcmp(buf, "tail", 4) == 0);
	close(bfd);
	/* A write through the file is seen by a new shared read mapping. */
	fd = open(m("map.mdb"), O_RDWR);
	CHECK(fd >= 0 && pwrite(fd, "fresh", 5, 200) == 5);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED && memcmp(p + 200, "fresh", 5) == 0 &&
	      memcmp(p + 100, "through the map", 15) == 0);
	if (p != MAP_FAILED)
		munmap(p, len);
	close(fd);

	/* A private mapping works on a direct-IO file too. */
	CHECK(spit(m("plain"), "private mapping") == 0);
	fd = open(m("plain"), O_RDONLY);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(p != MAP_FAILED && memcmp(p, "private mapping", 15) == 0);
	if (p != MAP_FAILED)
		munmap(p, 4096);
	close(fd);
}

static void test_reserved(void)
{
	struct stat st;

	/* The control directory is the daemon's: nothing can be made or
	 * removed there, and it shadows a .tierfs in BACKING. */
	CHECK(stat(m(".tierfs"), &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(stat(m(".tierfs/stats"), &st) == 0 && S_ISREG(st.st_mode));
	CHECK(unlink(m(".tierfs/stats")) < 0);
	CHECK(rmdir(m(".tierfs")) < 0);
	CHECK(open(m(".tierfs/new"), O_WRONLY | O_CREAT, 0644) < 0);
	CHECK(mkdir(m(".tierfs/dir"), 0755) < 0);
	CHECK(open(m(".tierfs/stats"), O_WRONLY) < 0);
	CHECK(rename(m("app"), m(".tierfs/stats")) < 0);
	CHECK(access(m("app"), F_OK) == 0);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: syscalls MOUNTPOINT SHADOW BACKING\n");
		return 2;
	}
	mnt = argv[1];
	backing = argv[3];
	test_files();
	test_names();
	test_fallocate_statfs();
	test_mmap();
	test_reserved();
	return tc_exit();
}
