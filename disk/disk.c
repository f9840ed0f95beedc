/*
 * disk.c — block mode: images made with the real mkfs, attached through
 * tierfs and a direct-I/O loop device, mounted by the kernel (disk.h).
 *
 * Mount order, and the undo on failure in reverse:
 *   1. checks: the image, its file system and size (from its superblock),
 *      the mount point (a directory, not already a mount point), loop
 *      support (/dev/loop-control);
 *   2. tierfs -o tier=T,mem=0,cached=,loop_hop=measure DIR STATE/NAME.fuse,
 *      DIR the image's directory (tierfs daemonizes once ready, having
 *      measured its FUSE round trip and a loop device's hop, disk/loop.h;
 *      its pid and both figures are in its stats);
 *   3. a free loop device, configured in one LOOP_CONFIGURE over the image
 *      as tierfs serves it: direct I/O (so the loop device's requests are
 *      not cached a second time below the file system), autoclear (it goes
 *      when the file system lets go of it), read-only unless rw, the
 *      tier's logical block size; direct I/O is checked to have taken;
 *   4. the queue's sysfs limits from the tier (read_ahead_kb,
 *      max_sectors_kb, rotational);
 *   5. mount(2) of the file system;
 *   6. the state file.
 * Unmount: umount(2), the loop device gone (autoclear, LOOP_CLR_FD if it
 * lingers), tierfs unmounted and waited for, the state removed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <linux/loop.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/files.h"
#include "disk/cgroup.h"
#include "core/units.h"
#include "disk/disk.h"
#include "disk/loop.h"
#include "tier/tier.h"

#define STATE_DIR_DEFAULT "/run/tiersim/disks"
#define LOOP_CONTROL "/dev/loop-control"

/* ---- small helpers ---- */

static const char *state_dir(void)
{
	const char *s = getenv("TIERSIM_DISK_STATE");
	return s && *s ? s : STATE_DIR_DEFAULT;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	int rc = n < 0 ? -errno : 0;
	close(fd);
	return rc;
}

/* Runs argv (argv[0] looked up on PATH) with stdout/stderr to @log (or
 * /dev/null), waits. 0, -ENOENT when the program is not found, or -EIO
 * with the status in *status. */
static int run(char *const argv[], const char *log, int *status)
{
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int out = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			       0644);
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (out >= 0) {
			dup2(out, 1);
			dup2(out, 2);
		}
		if (nul >= 0)
			dup2(nul, 0);
		/* mkfs.ext4 -d copies each folder in strcoll order: byte
		 * order, as the metadata rule numbers the tree (tier/fsmeta.h) */
		setenv("LC_ALL", "C", 1);
		execvp(argv[0], argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	*status = st;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 127 ? -ENOENT : -EIO;
}

int ts_disk_fs_check(const char *fs, char *err, size_t errlen)
{
	if (fs && (strcmp(fs, "ext4") == 0 || strcmp(fs, "xfs") == 0))
		return 0;
	snprintf(err, errlen, "--fs: unknown file system '%s' (block mode makes and mounts ext4 "
			      "or xfs)",
		 fs ? fs : "");
	return -EINVAL;
}

/* ---- superblocks ---- */

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t be64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* The file system in @fd and the bytes it spans: "ext4" or "xfs", or
 * -EMEDIUMTYPE when neither superblock is there. */
static int probe(int fd, const char **fs, uint64_t *bytes)
{
	unsigned char sb[2048];
	ssize_t n = pread(fd, sb, sizeof(sb), 0);
	if (n < 0)
		return -errno;
	if (n >= 2048 && sb[1024 + 56] == 0x53 && sb[1024 + 57] == 0xEF) {
		const unsigned char *e = sb + 1024;
		uint64_t blocks = le32(e + 4);
		uint32_t log = le32(e + 24);
		if (le32(e + 0x60) & 0x80) /* INCOMPAT_64BIT: s_blocks_count_hi */
			blocks |= (uint64_t)le32(e + 0x150) << 32;
		if (log > 6)
			return -EMEDIUMTYPE;
		*fs = "ext4";
		*bytes = blocks * (1024ULL << log);
		return 0;
	}
	if (n >= 16 && memcmp(sb, "XFSB", 4) == 0) {
		uint32_t bs = (uint32_t)sb[4] << 24 | (uint32_t)sb[5] << 16 | (uint32_t)sb[6] << 8 |
			      sb[7];
		*fs = "xfs";
		*bytes = be64(sb + 8) * bs;
		return 0;
	}
	return -EMEDIUMTYPE;
}

/* ---- loop devices ---- */

static int sysfs_set(int nr, const char *attr, unsigned value)
{
	char path[128], text[32];
	snprintf(path, sizeof(path), "/sys/block/loop%d/%s", nr, attr);
	snprintf(text, sizeof(text), "%u", value);
	return write_file(path, text);
}

/* The largest request tierfs receives in one piece, in KiB. The kernel's
 * FUSE splits a bigger direct read or write into requests of the
 * connection's max_pages pages: at most fs.fuse.max_pages_limit (256 where
 * the sysctl is absent: older kernels' fixed FUSE_MAX_MAX_PAGES), and
 * libfuse 3 asks for no more than its receive buffer holds, 256 pages
 * (FUSE_MAX_MAX_PAGES in libfuse's fuse_i.h; 3.14 here). */
#define LIBFUSE_MAX_PAGES 256u
static unsigned fuse_max_kb(void)
{
	char line[32];
	unsigned pages = LIBFUSE_MAX_PAGES;
	if (ts_first_line("/proc/sys/fs/fuse/max_pages_limit", line, sizeof(line)) == 0 &&
	    atoi(line) > 0 && (unsigned)atoi(line) < pages)
		pages = (unsigned)atoi(line);
	long ps = sysconf(_SC_PAGESIZE);
	return pages * (unsigned)(ps > 0 ? ps / 1024 : 4);
}

/* The tier's queue limits on loop @nr. max_sectors_kb is capped by the
 * loop device's own hardware limit, and by the largest request tierfs
 * receives: a bigger request would reach the tier model as two (FUSE
 * splits it), which the trace would show as requests the device never
 * sent; capped, the block layer splits it instead, and the loop device's
 * requests are the model's. @note gets one line when the cap applies. */
static int set_queue(int nr, const struct ts_tier_queue *q, char *note, size_t notelen,
		     char *err, size_t errlen)
{
	char path[128], hw[32];
	unsigned ms = q->max_sectors_kb;
	snprintf(path, sizeof(path), "/sys/block/loop%d/queue/max_hw_sectors_kb", nr);
	if (ts_first_line(path, hw, sizeof(hw)) == 0 && hw[0] && (unsigned)atoi(hw) < ms)
		ms = (unsigned)atoi(hw);
	unsigned fk = fuse_max_kb();
	if (fk < ms) {
		if (note && notelen)
			snprintf(note, notelen,
				 "/dev/loop%d: max_sectors_kb %u, not the tier's %u: tierfs receives "
				 "at most %u KiB a request through FUSE; a larger one is sent as "
				 "two requests, and charged as two (disk/README.md)",
				 nr, fk, ms, fk);
		ms = fk;
	}
	/* read_ahead_kb last: every write of a queue limit (max_sectors_kb,
	 * rotational) recomputes the readahead as max(read_ahead_kb,
	 * 2 x io_opt, 128 KiB) (6.18's blk_apply_bdi_limits), which
	 * overwrote a read_ahead_kb written before it: 32 became 128 here,
	 * and on a loop device over a block device's file, whose io_opt
	 * follows max_sectors_kb, 128 became 2048. */
	const struct {
		const char *attr;
		unsigned v;
	} set[] = {
		{ "queue/max_sectors_kb", ms },
		{ "queue/rotational", q->rotational },
		{ "queue/read_ahead_kb", q->read_ahead_kb },
	};
	for (size_t i = 0; i < TS_ARRAY_SIZE(set); i++) {
		int rc = sysfs_set(nr, set[i].attr, set[i].v);
		if (rc) {
			snprintf(err, errlen, "cannot set /sys/block/loop%d/%s to %u: %s", nr,
				 set[i].attr, set[i].v, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static int loop_nr(const char *dev)
{
	const char *p = strrchr(dev ? dev : "", 'p');
	return p && p[1] ? atoi(p + 1) : -1;
}

/* ---- tierfs ---- */

/* tierfs's pid from its stats. */
static pid_t tierfs_pid(const char *fuse_dir)
{
	char path[PATH_MAX], line[256];
	snprintf(path, sizeof(path), "%s/.tierfs/stats", fuse_dir);
	FILE *f = fopen(path, "re");
	pid_t pid = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "\"pid\":");
		if (p) {
			pid = (pid_t)atol(p + 6);
			break;
		}
	}
	fclose(f);
	return pid;
}

static const char *const issue_names[] = {
	[TS_DISK_ISSUE_OFF] = "off",
	[TS_DISK_ISSUE_MEASURED] = "measured per request",
	[TS_DISK_ISSUE_WATCHED] = "watched",
	[TS_DISK_ISSUE_UNAVAILABLE] = "unavailable",
};

const char *ts_disk_issue_name(int loop_issue)
{
	return loop_issue > 0 && loop_issue <= TS_DISK_ISSUE_UNAVAILABLE ? issue_names[loop_issue]
									: issue_names[0];
}

static int issue_code(const char *name)
{
	for (int i = 0; i <= TS_DISK_ISSUE_UNAVAILABLE; i++)
		if (!strcmp(name, issue_names[i]))
			return i;
	return TS_DISK_ISSUE_OFF;
}

/* FUSE's round trip and the loop device's hop from tierfs's stats. */
static void tierfs_floors(const char *fuse_dir, struct ts_disk *d)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/.tierfs/stats", fuse_dir);
	json_t *st = json_load_file(path, 0, NULL);
	json_t *fl = json_object_get(st, "floor_ns"), *hop = json_object_get(st, "loop_hop_ns");
	json_t *label = json_object_get(st, "loop_hop"), *big = json_object_get(st, "loop_hop_128k_ns");
	json_t *win = json_object_get(st, "loop_hop_window_ns");
	d->floor_ns = json_is_integer(fl) ? (uint64_t)json_integer_value(fl) : 0;
	d->loop_hop_ns = json_is_integer(hop) ? (uint64_t)json_integer_value(hop) : 0;
	d->loop_hop = json_is_string(label) && strcmp(json_string_value(label), "off");
	d->loop_hop_big_ns = json_is_integer(big) ? (uint64_t)json_integer_value(big) : 0;
	d->loop_hop_window_ns = json_is_integer(win) ? (uint64_t)json_integer_value(win) : 0;
	json_t *issue = json_object_get(st, "loop_issue");
	d->loop_issue = issue_code(json_is_string(issue) ? json_string_value(issue) : "off");
	json_decref(st);
}

/* Whether @pid is a running tierfs: not gone, not a zombie waiting for
 * its reaper, and not another program that took the number since. */
static bool pid_alive(pid_t pid)
{
	char path[64], stat[256];
	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (ts_first_line(path, stat, sizeof(stat)))
		return false;
	const char *name = strchr(stat, '('), *end = strrchr(stat, ')');
	if (!name || !end || end[1] != ' ')
		return false;
	return end - name - 1 == 6 && strncmp(name + 1, "tierfs", 6) == 0 && end[2] != 'Z' &&
	       end[2] != 'X';
}

/* Unmounts tierfs at @dir and waits for @pid to end (SIGTERM, then SIGKILL
 * if it lingers). */
static void tierfs_stop(const char *dir, pid_t pid)
{
	for (int i = 0; i < 50 && ts_mounted_at(dir, NULL, 0); i++) {
		if (umount2(dir, 0) == 0 || errno == EINVAL)
			break;
		nap_ms(20);
	}
	if (ts_mounted_at(dir, NULL, 0) && umount2(dir, MNT_DETACH)) {
		/* nothing more can be done; the caller reports the mount */
	}
	for (int i = 0; i < 250 && pid_alive(pid); i++)
		nap_ms(20);
	if (pid_alive(pid)) {
		kill(pid, SIGTERM);
		for (int i = 0; i < 250 && pid_alive(pid); i++)
			nap_ms(20);
	}
	if (pid_alive(pid))
		kill(pid, SIGKILL);
}

/* ---- state ---- */

static char *state_name(const char *abs_mp)
{
	char *s = malloc(strlen(abs_mp) * 3 + 1), *w = s;
	if (!s)
		return NULL;
	for (const unsigned char *r = (const unsigned char *)abs_mp; *r; r++) {
		if ((*r >= 'a' && *r <= 'z') || (*r >= 'A' && *r <= 'Z') || (*r >= '0' && *r <= '9'))
			*w++ = (char)*r;
		else
			w += sprintf(w, "_%02X", *r);
	}
	*w = 0;
	return s;
}

static char *state_path(const char *name, const char *suffix)
{
	char *p;
	return asprintf(&p, "%s/%s%s", state_dir(), name, suffix) < 0 ? NULL : p;
}

void ts_disk_clear(struct ts_disk *d)
{
	free(d->name);
	free(d->image);
	free(d->mountpoint);
	free(d->fuse_dir);
	free(d->loop);
	free(d->fs);
	free(d->tier);
	free(d->trace);
	memset(d, 0, sizeof(*d));
	d->tierfs_pid = -1;
}

void ts_disk_list_free(struct ts_disk *d, size_t n)
{
	for (size_t i = 0; d && i < n; i++)
		ts_disk_clear(&d[i]);
	free(d);
}

static int state_write(const struct ts_disk *d)
{
	char *path = state_path(d->name, ".state"), *tmp = NULL;
	if (!path || asprintf(&tmp, "%s.tmp", path) < 0) {
		free(path);
		return -ENOMEM;
	}
	FILE *f = fopen(tmp, "we");
	int rc = 0;
	if (!f) {
		rc = -errno;
	} else {
		fprintf(f, "image=%s\nmountpoint=%s\nfuse=%s\nloop=%s\nfs=%s\ntier=%s\ntrace=%s\n"
			   "tierfs_pid=%ld\nmem=%llu\nrw=%d\nfloor_ns=%llu\nloop_hop_ns=%llu\n"
			   "loop_hop=%s\nloop_hop_128k_ns=%llu\nloop_hop_window_ns=%llu\n"
			   "loop_issue=%s\n",
			d->image, d->mountpoint, d->fuse_dir, d->loop, d->fs, d->tier,
			d->trace ? d->trace : "", (long)d->tierfs_pid, (unsigned long long)d->mem,
			d->rw ? 1 : 0, (unsigned long long)d->floor_ns,
			(unsigned long long)d->loop_hop_ns, d->loop_hop ? "measured" : "off",
			(unsigned long long)d->loop_hop_big_ns,
			(unsigned long long)d->loop_hop_window_ns, ts_disk_issue_name(d->loop_issue));
		if (fflush(f) || fsync(fileno(f)))
			rc = -errno;
		if (fclose(f) && !rc)
			rc = -errno;
		if (!rc && rename(tmp, path))
			rc = -errno;
		if (rc)
			unlink(tmp);
	}
	free(tmp);
	free(path);
	return rc;
}

static int state_read(const char *name, struct ts_disk *d)
{
	char *path = state_path(name, ".state");
	if (!path)
		return -ENOMEM;
	FILE *f = fopen(path, "re");
	free(path);
	if (!f)
		return -errno;
	memset(d, 0, sizeof(*d));
	d->tierfs_pid = -1;
	d->name = strdup(name);
	char line[PATH_MAX + 32];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *v = strchr(line, '=');
		if (!v)
			continue;
		*v++ = 0;
		char **slot = !strcmp(line, "image")	  ? &d->image
			      : !strcmp(line, "mountpoint") ? &d->mountpoint
			      : !strcmp(line, "fuse")	  ? &d->fuse_dir
			      : !strcmp(line, "loop")	  ? &d->loop
			      : !strcmp(line, "fs")	  ? &d->fs
			      : !strcmp(line, "tier")	  ? &d->tier
			      : !strcmp(line, "trace")	  ? &d->trace
							  : NULL;
		if (slot && (*v || slot != &d->trace)) {
			free(*slot);
			*slot = strdup(v);
		} else if (!strcmp(line, "tierfs_pid")) {
			d->tierfs_pid = (pid_t)atol(v);
		} else if (!strcmp(line, "mem")) {
			d->mem = strtoull(v, NULL, 10);
		} else if (!strcmp(line, "rw")) {
			d->rw = atoi(v) != 0;
		} else if (!strcmp(line, "floor_ns")) {
			d->floor_ns = strtoull(v, NULL, 10);
		} else if (!strcmp(line, "loop_hop_ns")) {
			d->loop_hop_ns = strtoull(v, NULL, 10);
		} else if (!strcmp(line, "loop_hop")) {
			d->loop_hop = !strcmp(v, "measured");
		} else if (!strcmp(line, "loop_hop_128k_ns")) {
			d->loop_hop_big_ns = strtoull(v, NULL, 10);
		} else if (!strcmp(line, "loop_hop_window_ns")) {
			d->loop_hop_window_ns = strtoull(v, NULL, 10);
		} else if (!strcmp(line, "loop_issue")) {
			d->loop_issue = issue_code(v);
		}
	}
	fclose(f);
	if (!d->name || !d->image || !d->mountpoint || !d->fuse_dir || !d->loop || !d->fs ||
	    !d->tier) {
		ts_disk_clear(d);
		return -EBADMSG;
	}
	return 0;
}

static void state_remove(const char *name)
{
	const char *suffix[] = { ".state", ".log" };
	for (size_t i = 0; i < TS_ARRAY_SIZE(suffix); i++) {
		char *p = state_path(name, suffix[i]);
		if (p)
			unlink(p);
		free(p);
	}
	char *dir = state_path(name, ".fuse");
	if (dir)
		rmdir(dir);
	free(dir);
}

bool ts_disk_alive(const struct ts_disk *d)
{
	return pid_alive(d->tierfs_pid);
}

int ts_disk_find(const char *mountpoint, struct ts_disk *out, char *err, size_t errlen)
{
	char abs[PATH_MAX];
	if (!realpath(mountpoint, abs))
		snprintf(abs, sizeof(abs), "%s", mountpoint);
	char *name = state_name(abs);
	if (!name)
		return -ENOMEM;
	int rc = state_read(name, out);
	free(name);
	if (rc == -ENOENT)
		snprintf(err, errlen, "%s: no disk is mounted there by tiersim disk mount (tiersim "
				      "disk list shows them)",
			 abs);
	else if (rc)
		snprintf(err, errlen, "%s: its state in %s cannot be read: %s", abs, state_dir(),
			 strerror(-rc));
	return rc;
}

int ts_disk_list(struct ts_disk **out, size_t *n, char *err, size_t errlen)
{
	*out = NULL;
	*n = 0;
	DIR *dir = opendir(state_dir());
	if (!dir) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot read %s: %s", state_dir(), strerror(errno));
		return -errno;
	}
	size_t cap = 0;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		size_t l = strlen(e->d_name);
		if (l <= 6 || strcmp(e->d_name + l - 6, ".state"))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			struct ts_disk *m = realloc(*out, cap * sizeof(**out));
			if (!m) {
				rc = -ENOMEM;
				break;
			}
			*out = m;
		}
		char name[NAME_MAX + 1];
		snprintf(name, sizeof(name), "%.*s", (int)(l - 6), e->d_name);
		if (state_read(name, &(*out)[*n]) == 0)
			++*n;
	}
	closedir(dir);
	if (rc) {
		ts_disk_list_free(*out, *n);
		*out = NULL;
		*n = 0;
		snprintf(err, errlen, "out of memory");
	}
	return rc;
}

/* ---- make ---- */

static int mkfs_fail(int rc, const char *prog, const char *pkg, const char *log, char *err,
		     size_t errlen)
{
	char why[400];
	if (rc == -ENOENT) {
		snprintf(err, errlen, "%s is not installed (not found on PATH): install %s", prog,
			 pkg);
		return rc;
	}
	ts_last_line(log, why, sizeof(why));
	snprintf(err, errlen, "%s failed: %s", prog, why[0] ? why : "no message");
	return rc;
}

/* The copy of @from into the xfs image: a plain loop device (no tier),
 * mounted on a temporary directory, cp -a, unmounted. */
static int copy_in(const char *image, const char *from, const char *log, char *err,
		   size_t errlen)
{
	int fd = open(image, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", image, strerror(errno));
		return -errno;
	}
	int lfd = -1;
	int nr = ts_loop_attach(fd, LO_FLAGS_AUTOCLEAR, 0, &lfd, err, errlen);
	close(fd);
	if (nr < 0)
		return nr;
	char dev[32], tmp[] = "/tmp/tiersim-disk.XXXXXX";
	snprintf(dev, sizeof(dev), "/dev/loop%d", nr);
	int rc = 0;
	if (!mkdtemp(tmp)) {
		rc = -errno;
		snprintf(err, errlen, "mkdtemp: %s", strerror(errno));
		goto out;
	}
	if (mount(dev, tmp, "xfs", 0, NULL)) {
		rc = -errno;
		snprintf(err, errlen, "cannot mount the new xfs image to copy into it: %s",
			 strerror(errno));
		rmdir(tmp);
		goto out;
	}
	char src[PATH_MAX + 3];
	snprintf(src, sizeof(src), "%s/.", from);
	char *const cp[] = { "cp", "-a", src, tmp, NULL };
	int st;
	rc = run(cp, log, &st);
	if (rc) {
		char why[400];
		ts_last_line(log, why, sizeof(why));
		snprintf(err, errlen, "copying %s into the image failed: %s", from,
			 why[0] ? why : "cp failed");
	}
	sync();
	if (umount2(tmp, 0) && !rc) {
		rc = -errno;
		snprintf(err, errlen, "cannot unmount %s: %s", tmp, strerror(errno));
	}
	rmdir(tmp);
out:
	close(lfd);
	ts_loop_detach(nr);
	return rc;
}

/* The least image made for @fs: 1 MiB for ext4 (mke2fs's own floor is
 * lower, but a journal needs that much); mkfs.xfs 5.19 and later refuse a
 * file system under 300 MiB. */
static uint64_t least_size(const char *fs)
{
	return strcmp(fs, "xfs") == 0 ? 300 * TS_MiB : TS_MiB;
}

static uint64_t tree_bytes, tree_files; /* nftw's callback takes no context */

static int add_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F) {
		tree_bytes += (uint64_t)st->st_size;
		tree_files++;
	}
	return 0;
}

int ts_disk_size_for(const char *dir, const char *fs, uint64_t *size, uint64_t *files, char *err,
		     size_t errlen)
{
	tree_bytes = tree_files = 0;
	if (nftw(dir, add_file, 32, FTW_PHYS | FTW_MOUNT)) {
		int e = errno ? errno : EIO;
		snprintf(err, errlen, "%s: cannot walk it: %s", dir, strerror(e));
		return -e;
	}
	uint64_t s = 2 * tree_bytes + 64 * TS_MiB;
	*size = s < least_size(fs) ? least_size(fs) : s;
	if (files)
		*files = tree_files;
	return 0;
}

int ts_disk_make(const struct ts_disk_make_opts *o, char *err, size_t errlen)
{
	int rc = ts_disk_fs_check(o->fs, err, errlen);
	struct stat st;
	if (rc)
		return rc;
	if (o->from && (stat(o->from, &st) || !S_ISDIR(st.st_mode))) {
		snprintf(err, errlen, "--from %s: not a directory", o->from);
		return -ENOTDIR;
	}
	bool xfs = strcmp(o->fs, "xfs") == 0;
	uint64_t least = least_size(o->fs);
	if (o->size < least) {
		char a[32], b[32];
		snprintf(err, errlen, "--size %s: image too small for %s (at least %s)",
			 ts_fmt_size(a, sizeof(a), o->size), o->fs, ts_fmt_size(b, sizeof(b), least));
		return -EINVAL;
	}
	int fd = open(o->image, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", o->image,
			 e == EEXIST ? "exists; remove it first or choose another name" : strerror(e));
		return -e;
	}
	if (ftruncate(fd, (off_t)o->size)) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot size it: %s", o->image, strerror(errno));
		close(fd);
		unlink(o->image);
		return rc;
	}
	close(fd);
	char log[] = "/tmp/tiersim-mkfs.XXXXXX";
	int lfd = mkstemp(log);
	if (lfd >= 0)
		close(lfd);
	int status;
	if (xfs) {
		char *const argv[] = { "mkfs.xfs", "-q", "-f", (char *)o->image, NULL };
		rc = run(argv, log, &status);
		if (rc)
			mkfs_fail(rc, "mkfs.xfs", "xfsprogs", log, err, errlen);
		else if (o->from)
			rc = copy_in(o->image, o->from, log, err, errlen);
	} else {
		char *const with[] = { "mkfs.ext4", "-q", "-F", "-d", (char *)o->from,
					(char *)o->image, NULL };
		char *const without[] = { "mkfs.ext4", "-q", "-F", (char *)o->image, NULL };
		rc = run(o->from ? with : without, log, &status);
		if (rc)
			mkfs_fail(rc, "mkfs.ext4", "e2fsprogs", log, err, errlen);
	}
	if (lfd >= 0)
		unlink(log);
	if (rc)
		unlink(o->image);
	return rc;
}

/* ---- mount ---- */

struct attach {
	struct ts_disk d;
	char *dir; /* the image's directory */
	bool tierfs_up;
	int loop_fd;
	int nr;
	bool fs_mounted;
};

static void undo(struct attach *a)
{
	if (a->fs_mounted)
		umount2(a->d.mountpoint, 0);
	if (a->loop_fd >= 0)
		close(a->loop_fd);
	if (a->nr >= 0)
		ts_loop_detach(a->nr);
	if (a->tierfs_up)
		tierfs_stop(a->d.fuse_dir, a->d.tierfs_pid);
	if (a->d.name)
		state_remove(a->d.name);
}

/* Why tierfs failed, from its log: the last line but the consequences
 * of a failure after FUSE mounted (the waiting parent's "... was not
 * mounted", libfuse's "failed to unmount", which a private mount
 * namespace brings), unless there is nothing else. */
static void tierfs_why(const char *log, char *out, size_t n)
{
	char line[400], last[400] = "";
	FILE *f = fopen(log, "re");
	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		size_t len = strlen(line);
		if (!len)
			continue;
		snprintf(last, sizeof(last), "%s", line);
		if (strncmp(line, "fuse: failed to unmount", 23) != 0 &&
		    !(len > 16 && !strcmp(line + len - 16, " was not mounted")))
			snprintf(out, n, "%s", line);
	}
	if (!out[0])
		snprintf(out, n, "%s", last);
	fclose(f);
}

/* tierfs serving the image's directory on STATE/NAME.fuse. */
static int start_tierfs(struct attach *a, const struct ts_disk_mount_opts *o, char *err,
			size_t errlen)
{
	char *opts = NULL, *log = state_path(a->d.name, ".log");
	char capo[48] = "";
	if (!log)
		return -ENOMEM;
	if (o->capacity)
		snprintf(capo, sizeof(capo), ",capacity=%llu", (unsigned long long)o->capacity);
	/* loop_hop=measure: tierfs measures the loop device's hop once its
	 * FUSE round trip is known, before it makes the model (fs/calib.c);
	 * loop_issue: it times the device's requests from their issue
	 * (issue.h), where BPF is there;
	 * image: the image is the device, its own metadata is not charged
	 * (fs/timing.c) */
	if (asprintf(&opts,
		     "tier=%s,mem=0,cached=,fsname=tiersim-disk,image,loop_hop=%s,loop_issue=%s%s%s%s%s%s%s",
		     o->tier, o->no_loop_hop ? "off" : "measure",
		     o->no_loop_hop ? "off" : o->loop_issue ? o->loop_issue : "on", capo,
		     o->ebs_opts ? o->ebs_opts : "", o->trace ? ",trace=" : "", o->trace ? o->trace : "",
		     o->profile ? ",profile=" : "", o->profile ? o->profile : "") < 0) {
		free(log);
		return -ENOMEM;
	}
	unlink(log);
	char *const argv[] = { (char *)o->tierfs, "-o", opts, a->dir, a->d.fuse_dir, NULL };
	int st, rc = run(argv, log, &st);
	if (rc) {
		char why[400];
		tierfs_why(log, why, sizeof(why));
		snprintf(err, errlen, "%s", why[0] ? why : "tierfs failed to start");
	} else {
		a->tierfs_up = true;
		a->d.tierfs_pid = tierfs_pid(a->d.fuse_dir);
		tierfs_floors(a->d.fuse_dir, &a->d);
	}
	free(opts);
	free(log);
	return rc;
}

static int tier_queue(const struct ts_disk_mount_opts *o, struct ts_tier_queue *q, char *err,
		      size_t errlen)
{
	struct ts_tier_set *set;
	int rc = ts_tier_set_load_default(&set, err, errlen);
	if (rc)
		return rc;
	if (o->profile && (rc = ts_tier_set_add_file(set, o->profile, err, errlen))) {
		ts_tier_set_free(set);
		return rc;
	}
	const struct ts_tier_profile *p = ts_tier_set_find(set, o->tier);
	if (!p) {
		snprintf(err, errlen, "--tier: unknown tier '%s' (tiersim tiers lists them)", o->tier);
		rc = -ENOENT;
	} else {
		*q = p->queue;
	}
	ts_tier_set_free(set);
	return rc;
}

/*
 * Why one long function: one sequence of set-up steps (image, mount point,
 * tierfs over the image, loop device and its queue, mount, record), each
 * undone on failure through fail: (undo()).
 */
int ts_disk_mount(const struct ts_disk_mount_opts *o, char *err, size_t errlen)
{
	struct attach a = { .loop_fd = -1, .nr = -1 };
	char abs[PATH_MAX], what[PATH_MAX + 64];
	struct ts_tier_queue q;
	struct stat st;
	int rc;

	a.d.tierfs_pid = -1;
	if (!o->tier) {
		snprintf(err, errlen, "--tier is required (tiersim tiers lists them)");
		return -EINVAL;
	}
	if ((rc = tier_queue(o, &q, err, errlen)))
		return rc;
	/* The image: a regular file holding ext4 or xfs, as large as the file
	 * system inside it says. */
	if (!realpath(o->image, abs) || stat(abs, &st)) {
		snprintf(err, errlen, "image %s: %s", o->image, strerror(errno));
		return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "image %s is not a regular file", o->image);
		return -EINVAL;
	}
	a.d.image = strdup(abs);
	int ifd = open(abs, O_RDONLY | O_CLOEXEC);
	if (ifd < 0) {
		rc = -errno;
		snprintf(err, errlen, "image %s: %s", o->image, strerror(errno));
		goto fail;
	}
	const char *fs = NULL;
	uint64_t need = 0;
	rc = probe(ifd, &fs, &need);
	close(ifd);
	if (rc) {
		snprintf(err, errlen, "image %s holds no ext4 or xfs file system (make one with "
				      "tiersim disk make)",
			 o->image);
		goto fail;
	}
	if ((uint64_t)st.st_size < need) {
		char a1[32], b1[32];
		snprintf(err, errlen, "image %s too small: its %s file system spans %s but the file "
				      "holds %s (truncated?)",
			 o->image, fs, ts_fmt_size(a1, sizeof(a1), need),
			 ts_fmt_size(b1, sizeof(b1), (uint64_t)st.st_size));
		rc = -EINVAL;
		goto fail;
	}
	a.d.fs = strdup(fs);
	/* The mount point: an existing directory with nothing mounted on it. */
	if (!realpath(o->mountpoint, abs) || stat(abs, &st)) {
		rc = -errno;
		snprintf(err, errlen, "mount point %s: %s", o->mountpoint, strerror(errno));
		goto fail;
	}
	if (!S_ISDIR(st.st_mode)) {
		rc = -ENOTDIR;
		snprintf(err, errlen, "mount point %s is not a directory", o->mountpoint);
		goto fail;
	}
	if (ts_mounted_at(abs, what, sizeof(what))) {
		rc = -EBUSY;
		snprintf(err, errlen, "mount point %s is busy: %s is mounted there (unmount it first)",
			 abs, what);
		goto fail;
	}
	a.d.mountpoint = strdup(abs);
	if (access(LOOP_CONTROL, F_OK)) {
		rc = -ENODEV;
		snprintf(err, errlen, "no loop device support: %s is missing (load the loop module: "
				      "modprobe loop)",
			 LOOP_CONTROL);
		goto fail;
	}
	a.d.name = state_name(a.d.mountpoint);
	a.d.tier = strdup(o->tier);
	a.d.trace = o->trace ? strdup(o->trace) : NULL;
	a.d.mem = o->mem;
	a.d.rw = o->rw;
	char *slash = strrchr(a.d.image, '/');
	a.dir = strndup(a.d.image, slash == a.d.image ? 1 : (size_t)(slash - a.d.image));
	if (!a.d.name || !a.d.tier || !a.d.image || !a.d.fs || !a.d.mountpoint || !a.dir ||
	    (o->trace && !a.d.trace) || !(a.d.fuse_dir = state_path(a.d.name, ".fuse"))) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	char *sp = state_path(a.d.name, ".state");
	bool taken = sp && access(sp, F_OK) == 0;
	free(sp);
	if (taken) {
		/* Nothing is mounted there (checked above): a stale record of
		 * a mount that was undone by hand; replace it. */
		char *fd0 = a.d.fuse_dir;
		if (ts_mounted_at(fd0, NULL, 0))
			umount2(fd0, MNT_DETACH);
	}
	if ((rc = ts_mkdir_p(a.d.fuse_dir, 0700, NULL, 0))) {
		snprintf(err, errlen, "cannot create %s: %s", a.d.fuse_dir, strerror(-rc));
		goto fail;
	}
	if ((rc = start_tierfs(&a, o, err, errlen)))
		goto fail;
	/* The image as tierfs serves it. */
	char served[PATH_MAX];
	snprintf(served, sizeof(served), "%s%s", a.d.fuse_dir, slash);
	int sfd = open(served, (o->rw ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (sfd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot open the image through tierfs (%s): %s", served,
			 strerror(errno));
		goto fail;
	}
	uint32_t flags = LO_FLAGS_DIRECT_IO | LO_FLAGS_AUTOCLEAR | (o->rw ? 0 : LO_FLAGS_READ_ONLY);
	a.nr = ts_loop_attach(sfd, flags, q.logical_block, &a.loop_fd, err, errlen);
	close(sfd);
	if (a.nr < 0) {
		rc = a.nr;
		a.nr = -1;
		goto fail;
	}
	char dev[32], dio[8] = "";
	snprintf(dev, sizeof(dev), "/dev/loop%d", a.nr);
	char diop[64];
	snprintf(diop, sizeof(diop), "/sys/block/loop%d/loop/dio", a.nr);
	if (ts_first_line(diop, dio, sizeof(dio)) || strcmp(dio, "1")) {
		rc = -EOPNOTSUPP;
		snprintf(err, errlen, "%s could not use direct I/O over tierfs's file (its requests "
				      "would be cached below the file system)",
			 dev);
		goto fail;
	}
	if (!(a.d.loop = strdup(dev))) {
		rc = -ENOMEM;
		goto fail;
	}
	if ((rc = set_queue(a.nr, &q, o->note, o->notelen, err, errlen)))
		goto fail;
	unsigned long mflags = o->rw ? 0 : MS_RDONLY;
	if (mount(dev, a.d.mountpoint, fs, mflags, NULL)) {
		rc = -errno;
		snprintf(err, errlen, "cannot mount %s (%s from %s) on %s: %s", dev, fs, o->image,
			 a.d.mountpoint, strerror(errno));
		goto fail;
	}
	a.fs_mounted = true;
	if ((rc = state_write(&a.d))) {
		snprintf(err, errlen, "cannot record the mount in %s: %s", state_dir(),
			 strerror(-rc));
		goto fail;
	}
	close(a.loop_fd); /* the file system holds the device now */
	free(a.dir);
	ts_disk_clear(&a.d);
	return 0;
fail:
	undo(&a);
	free(a.dir);
	ts_disk_clear(&a.d);
	return rc;
}

int ts_disk_umount(const char *mountpoint, char *err, size_t errlen)
{
	struct ts_disk d;
	int rc = ts_disk_find(mountpoint, &d, err, errlen);
	if (rc)
		return rc;
	if (ts_mounted_at(d.mountpoint, NULL, 0) && umount2(d.mountpoint, 0)) {
		rc = -errno;
		if (rc == -EBUSY)
			snprintf(err, errlen, "%s is busy: a process has a file or its working "
					      "directory on it (fuser -m %s shows which)",
				 d.mountpoint, d.mountpoint);
		else
			snprintf(err, errlen, "cannot unmount %s: %s", d.mountpoint, strerror(-rc));
		ts_disk_clear(&d);
		return rc;
	}
	ts_loop_detach(loop_nr(d.loop));
	tierfs_stop(d.fuse_dir, d.tierfs_pid);
	if (ts_mounted_at(d.fuse_dir, NULL, 0)) {
		rc = -EBUSY;
		snprintf(err, errlen, "tierfs's mount %s could not be unmounted", d.fuse_dir);
	} else {
		ts_cgroup_remove_name(d.name);
		state_remove(d.name);
	}
	ts_disk_clear(&d);
	return rc;
}

/* POSIX_FADV_DONTNEED on one file: its clean cached pages dropped. */
static int drop_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_F) {
		int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0) {
			(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			close(fd);
		}
	}
	return 0;
}

/* Whether the file system on @loop outlived its unmount: it still holds
 * the device (a mount of it in another mount namespace, one made by
 * unshare -m while it was mounted, keeps it alive), so an exclusive open
 * is refused. */
static bool fs_outlived(const char *loop)
{
	int fd = open(loop, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		return errno == EBUSY;
	close(fd);
	return false;
}

static int remount(const struct ts_disk *d, char *err, size_t errlen)
{
	if (mount(d->loop, d->mountpoint, d->fs, d->rw ? 0 : MS_RDONLY, NULL)) {
		int e = errno;
		snprintf(err, errlen, "cannot mount %s on %s again: %s", d->loop, d->mountpoint,
			 strerror(e));
		return -e;
	}
	return 0;
}

static int unmount_for_drop(const struct ts_disk *d, char *err, size_t errlen)
{
	if (umount2(d->mountpoint, 0)) {
		int e = errno;
		snprintf(err, errlen, "cannot drop %s's cache: unmounting it failed: %s%s",
			 d->mountpoint, strerror(e), e == EBUSY ? " (a file on it is open)" : "");
		return -e;
	}
	return 0;
}

int ts_disk_drop_cache(const struct ts_disk *d, char *err, size_t errlen)
{
	int lfd = open(d->loop, O_RDONLY | O_CLOEXEC);
	if (lfd < 0) {
		snprintf(err, errlen, "%s: %s", d->loop, strerror(errno));
		return -errno;
	}
	int rc = unmount_for_drop(d, err, errlen);
	/* A copy of the mount in another mount namespace keeps the file
	 * system, and its page cache, alive across the unmount: only then
	 * are every file's pages dropped (mounted again, which finds the live
	 * file system, walked, unmounted). Not on every run: the walk opens
	 * every file, reading every folder block and inode-table block from
	 * the device before the job starts, requests no job makes that the
	 * device's trace would hold (and a dataset of a million files would
	 * take minutes). A file system kept alive keeps its inodes and
	 * dentries whatever is done here. */
	if (!rc && fs_outlived(d->loop) && !(rc = remount(d, err, errlen))) {
		(void)nftw(d->mountpoint, drop_file, 32, FTW_PHYS | FTW_MOUNT);
		rc = unmount_for_drop(d, err, errlen);
	}
	if (!rc) {
		/* The device's own buffers (the block device's page cache:
		 * ext4's folder and inode-table blocks). */
		if (ioctl(lfd, BLKFLSBUF, 0)) {
			/* the remount below reads the superblock from the device anyway */
		}
		rc = remount(d, err, errlen);
	}
	close(lfd);
	return rc;
}
