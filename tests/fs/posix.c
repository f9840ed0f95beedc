/*
 * posix.c — the same battery of creating, permission and attribute syscalls
 * run as several users, groups and umasks on a plain directory (the shadow,
 * on the backing file system) and through the tierfs mount; every result
 * must be the same: the return value or errno, and after each call the
 * type and mode bits, owner, group, size and link count of what it touched,
 * whether its mtime and ctime (and its directory's) moved, and the times
 * utimensat set.
 *
 *   posix MOUNTPOINT SHADOW BACKING
 *
 * Needs root (it becomes the other users; the mount needs allow_other).
 * Prints one row per call and one column per caller: the result on both
 * sides ("EACCES"..., or "0" and the permission bits of what the call
 * touched), marked '!' where the mount differs.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/ts.h"
#include "tests/tcheck.h"

/* The callers: a shared group 2000, files of another user 4000. */
struct caller {
	const char *name;
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[2];
	mode_t umask;
};

static const struct caller callers[] = {
	{ "root/022", 0, 0, 0, { 0 }, 022 },
	{ "root/000", 0, 0, 0, { 0 }, 0 },
	{ "u1001/022", 1001, 1001, 1, { 1001 }, 022 },
	{ "u1001+2000/002", 1001, 1001, 2, { 1001, 2000 }, 002 },
	{ "u1002:2000/000", 1002, 2000, 0, { 0 }, 0 },
	{ "u1003/077", 1003, 1003, 1, { 1003 }, 077 },
};
#define NCALLERS ((int)TS_ARRAY_SIZE(callers))

/* Each caller's records per side: one line per call, its name, a tab, its
 * result, a tab, what it left. */
static char *results[2][NCALLERS];

/* The fixtures, made by root in DIR before each caller's battery. */
static void fixture(const char *dir, const struct caller *c)
{
	char p[4200];
#define AT(name) (snprintf(p, sizeof(p), "%.4000s/%s", dir, name), p)
#define MKFILE(name, uid, gid, mode)                                          \
	do {                                                                 \
		int fd_ = open(AT(name), O_CREAT | O_EXCL | O_WRONLY, 0600); \
		CHECK(fd_ >= 0 && write(fd_, "data\n", 5) == 5);             \
		close(fd_);                                                  \
		CHECK(chown(p, uid, gid) == 0 && chmod(p, mode) == 0);       \
	} while (0)
#define MKDIR(name, uid, gid, mode)                                                 \
	do {                                                                       \
		CHECK(mkdir(AT(name), 0700) == 0 && chown(p, uid, gid) == 0 &&     \
		      chmod(p, mode) == 0);                                        \
	} while (0)
	CHECK(mkdir(dir, 0777) == 0 && chmod(dir, 0777) == 0);
	MKFILE("own", c->uid, c->gid, 0644);
	MKFILE("own_suid", c->uid, c->gid, 06755);
	MKFILE("other", 4000, 4000, 0666);
	MKFILE("ro", 4000, 4000, 0644);
	MKFILE("suid_w", 4000, 2000, 06777);
	MKFILE("suid_t", 4000, 2000, 06777);
	MKFILE("suid_c", 4000, 4000, 04777);
	MKDIR("sgid_dir", 4000, 2000, 02777);
	MKDIR("sticky", 0, 0, 01777);
	MKFILE("sticky/victim", 4000, 4000, 0666);
	MKDIR("closed", 4000, 4000, 0700);
	MKFILE("closed/f", 4000, 4000, 0666);
	MKDIR("odir", c->uid, c->gid, 0755);
#undef MKFILE
#undef MKDIR
#undef AT
}

static long rc_of(long rc)
{
	return rc < 0 ? -errno : 0;
}

static const char *errname(long rc)
{
	static char buf[16];
	switch (-rc) {
	case 0: return "0";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case EINVAL: return "EINVAL";
	case ENOTEMPTY: return "ENOTEMPTY";
	case EXDEV: return "EXDEV";
	case EIO: return "EIO";
	}
	snprintf(buf, sizeof(buf), "E%ld", -rc);
	return buf;
}

struct snap {
	int rc;
	struct stat st;
};

static void take(const char *p, struct snap *s)
{
	s->rc = lstat(p, &s->st) ? -errno : 0;
}

static bool ts_after(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec != b->tv_sec || a->tv_nsec != b->tv_nsec;
}

/* Waits until the coarse clock (the one inode times are stamped from) is
 * past every time in @s, so that a time the next call sets differs from
 * the one it had. */
static void tick_past(const struct snap *s, int n)
{
	struct timespec max = { 0 }, now;
	for (int i = 0; i < n; i++) {
		const struct timespec *t[] = { &s[i].st.st_mtim, &s[i].st.st_ctim };
		for (int k = 0; k < 2; k++)
			if (s[i].rc == 0 && (t[k]->tv_sec > max.tv_sec ||
					     (t[k]->tv_sec == max.tv_sec && t[k]->tv_nsec > max.tv_nsec)))
				max = *t[k];
	}
	do {
		struct timespec d = { 0, 1000000 };
		nanosleep(&d, NULL);
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
	} while (now.tv_sec < max.tv_sec || (now.tv_sec == max.tv_sec && now.tv_nsec <= max.tv_nsec));
}

/* What a call did to @p (and its directory @dir): a record comparable
 * across the two sides. */
static void record(FILE *out, const char *op, long rc, const struct snap *before, const char *p,
		   const char *dir, const struct snap *dbefore, bool times)
{
	struct snap after, dafter;
	take(p, &after);
	take(dir, &dafter);
	fprintf(out, "%s\t%s\t%s", op, errname(rc), errname(after.rc));
	if (after.rc == 0) {
		fprintf(out, " mode=%o uid=%u gid=%u nlink=%lu", (unsigned)after.st.st_mode,
			(unsigned)after.st.st_uid, (unsigned)after.st.st_gid,
			(unsigned long)after.st.st_nlink);
		if (S_ISREG(after.st.st_mode))
			fprintf(out, " size=%lld", (long long)after.st.st_size);
		if (before->rc == 0)
			fprintf(out, " m%c", ts_after(&after.st.st_mtim, &before->st.st_mtim) ? '+' : '=');
		if (before->rc == 0 && times)
			fprintf(out, " c%c", ts_after(&after.st.st_ctim, &before->st.st_ctim) ? '+' : '=');
	}
	if (dafter.rc == 0 && dbefore->rc == 0)
		fprintf(out, " dir m%c c%c", ts_after(&dafter.st.st_mtim, &dbefore->st.st_mtim) ? '+' : '=',
			ts_after(&dafter.st.st_ctim, &dbefore->st.st_ctim) ? '+' : '=');
	fputc('\n', out);
}

static int open_close(const char *p, int flags, mode_t mode)
{
	int fd = open(p, flags, mode);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int write_one(const char *p, int flags)
{
	int fd = open(p, flags);
	if (fd < 0)
		return -errno;
	int rc = write(fd, "x", 1) == 1 ? 0 : -errno;
	close(fd);
	return rc;
}

static int ftruncate_path(const char *p, off_t len)
{
	int fd = open(p, O_WRONLY);
	if (fd < 0)
		return -errno;
	int rc = ftruncate(fd, len) ? -errno : 0;
	close(fd);
	return rc;
}

static int fchmod_path(const char *p, mode_t mode)
{
	int fd = open(p, O_RDONLY);
	if (fd < 0)
		return -errno;
	int rc = fchmod(fd, mode) ? -errno : 0;
	close(fd);
	return rc;
}

/* link(2) or rename(2) of @p to DIR/@to. */
static int to_name(int (*fn)(const char *, const char *), const char *p, const char *dir,
		   const char *to)
{
	char q[4200];
	snprintf(q, sizeof(q), "%.4000s/%s", dir, to);
	return fn(p, q) ? -errno : 0;
}

static const struct timespec set_times[2] = { { 1000000000, 123456789 }, { 1100000000, 5 } };

/* The battery, run in the caller's credentials inside @dir. */
static void battery(FILE *out, const char *dir)
{
	char p[4096], d[4096];
	struct snap b, db;
	long rc;
/* One call on NAME (relative to dir): snapshot, wait a tick, call, record.
 * TIMES: whether NAME's ctime is compared (see chown(-1, -1) below). */
#define OP(label, name, times, call)                                             \
	do {                                                                    \
		snprintf(p, sizeof(p), "%s/%s", dir, name);                     \
		snprintf(d, sizeof(d), "%s", p);                                \
		snprintf(d, sizeof(d), "%s", dirname(d));                       \
		take(p, &b);                                                    \
		take(d, &db);                                                   \
		struct snap both_[2] = { b, db };                               \
		tick_past(both_, 2);                                            \
		rc = (call);                                                    \
		record(out, label, rc, &b, p, d, &db, times);                   \
	} while (0)
	OP("creat 0666", "new", true, open_close(p, O_CREAT | O_EXCL | O_WRONLY, 0666));
	OP("creat 0620", "new0620", true, open_close(p, O_CREAT | O_EXCL | O_WRONLY, 0620));
	OP("creat 04755", "new_suid", true, open_close(p, O_CREAT | O_EXCL | O_WRONLY, 04755));
	OP("creat in sgid dir", "sgid_dir/f", true, open_close(p, O_CREAT | O_WRONLY, 02755));
	OP("O_CREAT existing", "ro", true, open_close(p, O_CREAT | O_RDONLY, 0600));
	OP("O_CREAT|O_EXCL existing", "other", true, open_close(p, O_CREAT | O_EXCL | O_RDONLY, 0600));
	OP("mkdir 0777", "newdir", true, rc_of(mkdir(p, 0777)));
	OP("mkdir in sgid dir", "sgid_dir/d", true, rc_of(mkdir(p, 0777)));
	OP("mkdir in closed dir", "closed/d", true, rc_of(mkdir(p, 0777)));
	OP("mkfifo 0666", "fifo", true, rc_of(mkfifo(p, 0666)));
	OP("mknod reg 0644", "node", true, rc_of(mknod(p, S_IFREG | 0644, 0)));
	OP("mknod chr 1:3", "chr", true, rc_of(mknod(p, S_IFCHR | 0666, makedev(1, 3))));
	OP("symlink", "sl", true, rc_of(symlink("own", p)));
	OP("open other's 0644 rw", "ro", true, open_close(p, O_RDWR, 0));
	OP("open in closed dir", "closed/f", true, open_close(p, O_RDONLY, 0));
	OP("O_NOATIME other's", "other", true, open_close(p, O_RDONLY | O_NOATIME, 0));
	OP("write own append", "own", true, write_one(p, O_WRONLY | O_APPEND));
	OP("write other's 0666", "other", true, write_one(p, O_WRONLY));
	OP("write other's 06777", "suid_w", true, write_one(p, O_WRONLY));
	OP("truncate own", "own", true, rc_of(truncate(p, 2)));
	OP("truncate other's 0644", "ro", true, rc_of(truncate(p, 0)));
	OP("ftruncate other's 06777", "suid_t", true, ftruncate_path(p, 1));
	OP("chmod own 04755", "own", true, rc_of(chmod(p, 04755)));
	OP("chmod own 02755", "own", true, rc_of(chmod(p, 02755)));
	OP("fchmod own 0600", "own", true, fchmod_path(p, 0600));
	OP("chmod other's 0600", "other", true, rc_of(chmod(p, 0600)));
	OP("chmod odir 03777", "odir", true, rc_of(chmod(p, 03777)));
	OP("chown own -1:2000", "own", true, rc_of(chown(p, (uid_t)-1, 2000)));
	OP("chown own_suid -1:own", "own_suid", true, rc_of(chown(p, (uid_t)-1, getgid())));
	OP("chown own 4000:-1", "own", true, rc_of(chown(p, 4000, (gid_t)-1)));
	OP("chown other's 04777", "suid_c", true, rc_of(chown(p, 0, 0)));
	/* The kernel sends chown(-1, -1) as a SETATTR with no attribute to
	 * change (ctime alone is sent only under writeback caching), which
	 * libfuse's high-level API answers without calling the file system:
	 * its ctime is left out (POSIX lets chown(-1, -1) leave it). */
	OP("chown own -1:-1", "own_suid", false, rc_of(chown(p, (uid_t)-1, (gid_t)-1)));
	OP("lchown symlink -1:own", "sl", true, rc_of(lchown(p, (uid_t)-1, getgid())));
	OP("utimens own times", "own", true, rc_of(utimensat(AT_FDCWD, p, set_times, 0)));
	OP("utimens other's times", "other", true, rc_of(utimensat(AT_FDCWD, p, set_times, 0)));
	OP("utimens other's 0666 now", "other", true, rc_of(utimensat(AT_FDCWD, p, NULL, 0)));
	OP("utimens other's 0644 now", "ro", true, rc_of(utimensat(AT_FDCWD, p, NULL, 0)));
	OP("link own", "own", true, to_name(link, p, dir, "own_link"));
	OP("link other's 0644", "ro", true, to_name(link, p, dir, "ro_link"));
	OP("rename new", "new", true, to_name(rename, p, dir, "renamed"));
	OP("rename in sticky", "sticky/victim", true, to_name(rename, p, dir, "sticky/moved"));
	OP("rename over dir", "newdir", true, to_name(rename, p, dir, "odir"));
	OP("unlink in sticky", "sticky/victim", true, rc_of(unlink(p)));
	OP("unlink own_link", "own_link", true, rc_of(unlink(p)));
	OP("unlink other's", "other", true, rc_of(unlink(p)));
	OP("unlink in closed dir", "closed/f", true, rc_of(unlink(p)));
	OP("rmdir newdir", "newdir", true, rc_of(rmdir(p)));
	OP("rmdir non-empty", "sgid_dir", true, rc_of(rmdir(p)));
#undef OP
	/* The times utimensat set, read back. */
	struct stat st;
	snprintf(p, sizeof(p), "%s/own", dir);
	if (lstat(p, &st) == 0)
		fprintf(out, "own times\t-\tatime=%lld.%09ld mtime=%lld.%09ld\n",
			(long long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
			(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

/* Runs the battery in a child with @c's credentials; returns its record. */
static char *run_as(const struct caller *c, const char *dir)
{
	int fd = memfd_create("posix", 0);
	CHECK(fd >= 0);
	pid_t pid = fork();
	if (pid == 0) {
		FILE *out = fdopen(fd, "w");
		if (!out || setgroups((size_t)c->ngroups, c->groups) || setgid(c->gid) ||
		    setuid(c->uid)) {
			perror("posix: becoming the caller");
			_exit(1);
		}
		umask(c->umask);
		battery(out, dir);
		fclose(out);
		_exit(0);
	}
	int status;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	off_t n = lseek(fd, 0, SEEK_END);
	char *buf = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
	CHECK(buf && pread(fd, buf, (size_t)n, 0) == n);
	close(fd);
	return buf;
}

/* Line @i of @s, as a pointer and length. */
static const char *line_at(const char *s, int i, size_t *len)
{
	for (; i > 0 && s; i--) {
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	if (!s || !*s)
		return NULL;
	*len = strcspn(s, "\n");
	return s;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: posix MOUNTPOINT SHADOW BACKING\n");
		return 2;
	}
	if (geteuid() != 0) {
		printf("SKIP: needs root to act as other users\n");
		return 77;
	}
	const char *root[2] = { argv[1], argv[2] }; /* the mount, the shadow */
	char parent[4096];
	snprintf(parent, sizeof(parent), "%s", argv[2]);
	/* The other users must reach both sides. */
	CHECK(chmod(dirname(parent), 0755) == 0);
	CHECK(chmod(argv[2], 0777) == 0 && chmod(argv[3], 0777) == 0);

	for (int k = 0; k < 2; k++)
		for (int i = 0; i < NCALLERS; i++) {
			char dir[4096];
			/* Fixtures of the mount side go in BACKING directly. */
			snprintf(dir, sizeof(dir), "%s/c%d", k ? argv[2] : argv[3], i);
			fixture(dir, &callers[i]);
			snprintf(dir, sizeof(dir), "%s/c%d", root[k], i);
			results[k][i] = run_as(&callers[i], dir);
		}

	printf("%-26s", "call \\ caller");
	for (int i = 0; i < NCALLERS; i++)
		printf(" %-15s", callers[i].name);
	printf("\n");
	int rows = 0, cells = 0, diff = 0;
	for (int op = 0;; op++) {
		char row[512];
		size_t l0;
		const char *l = line_at(results[1][0], op, &l0);
		int w = snprintf(row, sizeof(row), "%-26.*s", l ? (int)strcspn(l, "\t") : 0, l ? l : "");
		bool any = false;
		for (int i = 0; i < NCALLERS; i++) {
			size_t la, lb;
			const char *a = line_at(results[0][i], op, &la);
			const char *b = line_at(results[1][i], op, &lb);
			if (!a && !b)
				continue;
			any = true;
			cells++;
			bool same = a && b && la == lb && memcmp(a, b, la) == 0;
			if (!same) {
				diff++;
				fprintf(stderr, "%.*s as %s:\n  mount:  %.*s\n  shadow: %.*s\n",
					l ? (int)strcspn(l, "\t") : 1, l ? l : "?", callers[i].name, a ? (int)la : 6,
					a ? a : "(none)", b ? (int)lb : 6, b ? b : "(none)");
			}
			/* The summary: the call's result on the shadow, and the
			 * permission bits it left where it succeeded. */
			const char *tab = b ? memchr(b, '\t', lb) : NULL;
			size_t tl = tab ? strcspn(tab + 1, "\t\n") : 0;
			const char *mode = b ? strstr(b, " mode=") : NULL;
			char cell[32];
			unsigned long m = mode && mode < b + lb ? strtoul(mode + 6, NULL, 8) : 0;
			if (mode && mode < b + lb && tl == 1 && tab[1] == '0')
				snprintf(cell, sizeof(cell), "0 %04lo", m & 07777);
			else
				snprintf(cell, sizeof(cell), "%.*s", (int)tl, tab ? tab + 1 : "?");
			if (w > 0 && (size_t)w < sizeof(row))
				w += snprintf(row + w, sizeof(row) - (size_t)w, " %-15s", cell);
			if (!same && w > 0 && (size_t)w < sizeof(row))
				row[w - 1] = '!';
		}
		if (!any)
			break;
		rows++;
		printf("%s\n", row);
	}
	printf("%d calls x %d callers: %d results compared (each a return value, and the mode, "
	       "owner, group, size, links, mtime/ctime moves of the file and its directory), "
	       "%d differ from the backing file system\n",
	       rows, NCALLERS, cells, diff);
	CHECK(diff == 0);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < NCALLERS; i++)
			free(results[k][i]);
	return tc_exit();
}
