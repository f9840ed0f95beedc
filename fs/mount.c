/* mount.c — tierfs daemons started and stopped for scenarios (see mount.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/files.h"
#include "fs/mount.h"
#include "tier/tier_base.h"

#define MOUNT_WAIT_NS (15 * TS_NS_PER_S) /* daemon start-up, generous for ASan */
#define EXIT_WAIT_NS (5 * TS_NS_PER_S)

static char *path_join(const char *dir, const char *name)
{
	char *p;
	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

static bool executable(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

int ts_mounts_init(struct ts_mounts *ms, char *err, size_t errlen)
{
	memset(ms, 0, sizeof(*ms));
	const char *env = getenv("TIERSIM_TIERFS");
	if (env && *env) {
		if (!executable(env)) {
			snprintf(err, errlen, "TIERSIM_TIERFS=%s is not an executable file", env);
			return -ENOENT;
		}
		ms->tierfs = strdup(env);
		return ms->tierfs ? 0 : -ENOMEM;
	}
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			const char *rel[] = { "tierfs", "../fs/tierfs" };
			for (size_t i = 0; i < TS_ARRAY_SIZE(rel); i++) {
				char *p = path_join(self, rel[i]);
				if (!p)
					return -ENOMEM;
				if (executable(p)) {
					ms->tierfs = p;
					return 0;
				}
				free(p);
			}
		}
	}
	const char *path = getenv("PATH");
	char *copy = strdup(path ? path : "/usr/local/bin:/usr/bin:/bin");
	if (!copy)
		return -ENOMEM;
	for (char *save, *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *p = path_join(d, "tierfs");
		if (p && executable(p)) {
			ms->tierfs = p;
			free(copy);
			return 0;
		}
		free(p);
	}
	free(copy);
	snprintf(err, errlen, "cannot find the tierfs daemon (build it with ninja, or set "
			      "TIERSIM_TIERFS=/path/to/tierfs)");
	return -ENOENT;
}

bool ts_is_mounted(const char *path)
{
	char want[PATH_MAX];
	if (!realpath(path, want)) {
		/* A dead FUSE mount fails realpath with ENOTCONN: still a mount. */
		if (errno != ENOTCONN)
			return false;
		snprintf(want, sizeof(want), "%s", path);
	}
	return ts_mounted_at(want, NULL, 0);
}

static void mount_free(struct ts_mount *m)
{
	if (!m)
		return;
	free(m->backing);
	free(m->mountpoint);
	free(m->log);
	free(m);
}

static void unlink_from(struct ts_mounts *ms, struct ts_mount *m)
{
	for (struct ts_mount **pp = &ms->head; *pp; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			return;
		}
}

/* waitpid with a deadline; true when the child was reaped. */
static bool reap(pid_t pid, uint64_t wait_ns)
{
	uint64_t end = ts_now_ns() + wait_ns;
	for (;;) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD))
			return true;
		if (ts_now_ns() >= end)
			return false;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

static int run_fusermount(const char *mp, bool lazy)
{
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		if (lazy)
			execlp("fusermount3", "fusermount3", "-u", "-z", mp, (char *)NULL);
		else
			execlp("fusermount3", "fusermount3", "-u", mp, (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EBUSY;
}

/* Unmount: as root with umount2 (fusermount3 otherwise), retrying while
 * the mount is busy, and detaching lazily as the last resort. */
static int unmount(const char *mp)
{
	for (int tries = 0; tries < 20 && ts_is_mounted(mp); tries++) {
		int rc = geteuid() == 0 ? (umount2(mp, 0) ? -errno : 0) : run_fusermount(mp, false);
		if (rc == 0 || rc == -EINVAL || rc == -ENOENT)
			break;
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (ts_is_mounted(mp)) {
		int rc = geteuid() == 0 ? (umount2(mp, MNT_DETACH) ? -errno : 0)
					: run_fusermount(mp, true);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Why one long function: one sequence of set-up steps (mount point, log,
 * fork and exec of tierfs, the bounded wait for the mount), each undone in
 * reverse on failure; the child's part must stay inline between fork and
 * exec.
 */
int ts_mount_start(struct ts_mounts *ms, const char *backing, const char *mountpoint,
		   const char *opts, struct ts_mount **out, char *err, size_t errlen)
{
	*out = NULL;
	struct ts_mount *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->pid = -1;
	m->backing = strdup(backing);
	m->mountpoint = strdup(mountpoint);
	if (!m->backing || !m->mountpoint || asprintf(&m->log, "%s.log", mountpoint) < 0) {
		m->log = NULL;
		mount_free(m);
		return -ENOMEM;
	}
	if (mkdir(mountpoint, 0755) == 0) {
		m->own_mountpoint = true;
	} else if (errno != EEXIST) {
		int e = errno;
		snprintf(err, errlen, "cannot create mount point %s: %s", mountpoint, strerror(e));
		mount_free(m);
		return -e;
	}
	if (ts_is_mounted(mountpoint)) {
		snprintf(err, errlen, "%s is already a mount point; unmount it first "
				      "(fusermount3 -u %s)", mountpoint, mountpoint);
		mount_free(m);
		return -EBUSY;
	}
	int logfd = open(m->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (logfd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot create %s: %s", m->log, strerror(e));
		if (m->own_mountpoint)
			rmdir(mountpoint);
		mount_free(m);
		return -e;
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(logfd);
		if (m->own_mountpoint)
			rmdir(mountpoint);
		mount_free(m);
		return -e;
	}
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(126);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, 0);
		dup2(logfd, 1);
		dup2(logfd, 2);
		if (opts && *opts)
			execl(ms->tierfs, "tierfs", "-f", "-o", opts, backing, mountpoint,
			      (char *)NULL);
		else
			execl(ms->tierfs, "tierfs", "-f", backing, mountpoint, (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", ms->tierfs, strerror(errno));
		_exit(127);
	}
	close(logfd);
	m->pid = pid;
	m->next = ms->head; /* on the list before anything can fail */
	ms->head = m;

	uint64_t end = ts_now_ns() + MOUNT_WAIT_NS;
	while (!ts_is_mounted(mountpoint)) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			char why[400];
			ts_last_line(m->log, why, sizeof(why));
			snprintf(err, errlen, "tierfs %s %s failed to mount (%s %d): %s", backing,
				 mountpoint, WIFEXITED(st) ? "exit" : "signal",
				 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
				 why[0] ? why : "no message");
			m->pid = -1;
			unlink_from(ms, m);
			if (m->own_mountpoint)
				rmdir(mountpoint);
			mount_free(m);
			return -EIO;
		}
		if (ts_now_ns() > end) {
			snprintf(err, errlen, "tierfs did not mount %s within %llu s; its log is %s",
				 mountpoint, (unsigned long long)(MOUNT_WAIT_NS / TS_NS_PER_S), m->log);
			char ignore[512]; /* the timeout is the message that matters */
			int stop = ts_mount_stop(ms, m, ignore, sizeof(ignore));
			(void)stop;
			return -ETIMEDOUT;
		}
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	m->mounted = true;
	*out = m;
	return 0;
}

int ts_mount_stop(struct ts_mounts *ms, struct ts_mount *m, char *err, size_t errlen)
{
	/* A daemon that exited before being asked to has served part of the
	 * run wrong (or not at all): that is a failure of the run, not a stop. */
	int died = 0, st = 0;
	if (m->pid > 0 && waitpid(m->pid, &st, WNOHANG) == m->pid) {
		m->pid = -1;
		died = -EIO;
		char how[64];
		if (WIFSIGNALED(st))
			snprintf(how, sizeof(how), "killed by signal %d", WTERMSIG(st));
		else
			snprintf(how, sizeof(how), "exit status %d", WEXITSTATUS(st));
		snprintf(err, errlen, "tierfs serving %s died during the run (%s); its log: %s",
			 m->mountpoint, how, m->log);
	}
	int rc = unmount(m->mountpoint);
	if (rc)
		snprintf(err, errlen, "cannot unmount %s: %s", m->mountpoint, ts_strerror(rc));
	if (m->pid > 0 && !reap(m->pid, EXIT_WAIT_NS)) {
		kill(m->pid, SIGTERM);
		if (!reap(m->pid, EXIT_WAIT_NS)) {
			kill(m->pid, SIGKILL);
			reap(m->pid, EXIT_WAIT_NS);
		}
	}
	if (ts_is_mounted(m->mountpoint)) {
		/* The daemon is gone; a dead FUSE mount still needs detaching. */
		rc = unmount(m->mountpoint);
		if (rc)
			snprintf(err, errlen, "cannot unmount %s: %s", m->mountpoint,
				 ts_strerror(rc));
	}
	m->pid = -1;
	m->mounted = false;
	if (rc == 0 && m->own_mountpoint)
		rmdir(m->mountpoint);
	if (rc == 0 && !died)
		unlink(m->log); /* kept when something went wrong */
	unlink_from(ms, m);
	mount_free(m);
	return rc ? rc : died;
}

int ts_mounts_stop_all(struct ts_mounts *ms)
{
	int failed = 0;
	while (ms->head) {
		struct ts_mount *m = ms->head;
		char err[512];
		if (ts_mount_stop(ms, m, err, sizeof(err))) {
			fprintf(stderr, "tiersim: %s\n", err);
			failed++;
		}
	}
	return failed;
}

void ts_mounts_free(struct ts_mounts *ms)
{
	ts_mounts_stop_all(ms);
	free(ms->tierfs);
	ms->tierfs = NULL;
}

size_t ts_mount_ebs_opts(const struct ts_tier_ebs *e, char *buf, size_t n)
{
	if (!(e->iops > 0 || e->bps > 0)) { /* ts_tier_ebs_any, without the tier library */
		if (n)
			buf[0] = 0;
		return 0;
	}
	int w = snprintf(buf, n, ",ebs_iops=%.17g,ebs_max_iops=%.17g,ebs_mbps=%.17g,"
				 "ebs_max_mbps=%.17g,ebs_burst=%.0fns",
			 e->iops, e->max_iops, e->bps / 1e6, e->max_bps / 1e6, e->burst_s * 1e9);
	return w < 0 ? n : (size_t)w;
}
