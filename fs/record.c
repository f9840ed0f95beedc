/*
 * record.c — tiersim record's runs (record.h): a command run once through a
 * fresh tierfs mount (or block mode's disk image over tierfs) that traces
 * every request, who woke whom among its threads captured beside the trace,
 * the mount down again on every path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "core/clock.h"
#include "core/interrupt.h"
#include "core/units.h"
#include "disk/cgroup.h"
#include "disk/disk.h"
#include "fs/record.h"
#include "tier/fsmeta.h"
#include "traces/trace.h"
#include "traces/wake_capture.h"

int ts_record_find_command(const char *cmd)
{
	if (strchr(cmd, '/'))
		return access(cmd, X_OK) ? -errno : 0;
	const char *path = getenv("PATH");
	char *copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	int ret = -ENOENT;
	if (!copy)
		return -ENOMEM;
	for (char *save, *d = strtok_r(copy, ":", &save); d && ret;
	     d = strtok_r(NULL, ":", &save)) {
		char p[PATH_MAX];
		struct stat st;
		if (snprintf(p, sizeof(p), "%s/%s", *d ? d : ".", cmd) < (int)sizeof(p) &&
		    !stat(p, &st) && S_ISREG(st.st_mode) && !access(p, X_OK))
			ret = 0;
	}
	free(copy);
	return ret;
}

char *ts_record_substitute(const char *a, const char *mnt)
{
	size_t n = 0, ml = strlen(mnt);
	for (const char *p = a; (p = strstr(p, "{}")); p += 2)
		n++;
	char *o = malloc(strlen(a) + n * ml + 1), *w = o;
	if (!o)
		return NULL;
	for (const char *p = a, *q; *p; p = q + 2) {
		if (!(q = strstr(p, "{}"))) {
			strcpy(w, p);
			return o;
		}
		memcpy(w, p, (size_t)(q - p));
		w += q - p;
		memcpy(w, mnt, ml);
		w += ml;
		*w = 0;
	}
	*w = 0;
	return o;
}

static void args_free(char **args, int argc)
{
	for (int i = 0; args && i < argc; i++)
		free(args[i]);
	free(args);
}

/* The recording goes on without a wake file: say why, once. */
static void no_wakes(const char *why)
{
	fprintf(stderr,
		"tiersim record: notice: no wake file (%s): replay will use the CPU samples' "
		"wait rule (--no-wakes: do not try)\n",
		why);
}

/* Runs @argv with every "{}" in it replaced by @mnt; its wait status.
 * With @wakes_out, who woke whom among its threads goes there
 * (traces/wake_capture.h); where that cannot be captured a notice says why. */
static int run_command(char **argv, int argc, const char *mnt, const char *wakes_out,
		       bool handoffs, const char *scratch, const struct ts_cgroup *cg, int *status)
{
	struct ts_wake_capture *cap = NULL;
	char why[PATH_MAX + 128];
	int go[2] = {-1, -1};
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args)
		return -ENOMEM;
	for (int i = 0; i < argc; i++) {
		if (!(args[i] = ts_record_substitute(argv[i], mnt))) {
			args_free(args, argc);
			return -ENOMEM;
		}
	}
	if (wakes_out) {
		if (ts_wake_capture_open(&cap, scratch, why, sizeof(why)) ||
		    pipe2(go, O_CLOEXEC)) {
			no_wakes(cap ? strerror(errno) : why);
			(void)!ts_wake_capture_close(cap, NULL, why, sizeof(why));
			cap = NULL;
		} else if (ts_wake_capture_note(cap)) {
			fprintf(stderr, "tiersim record: notice: %s\n", ts_wake_capture_note(cap));
		}
		if (cap && !handoffs)
			ts_wake_capture_no_handoffs(cap);
	}
	/* Signals held across the fork: one that comes now reaches the child
	 * once it has the default action (the parent's handler would swallow
	 * it there), and the parent forwards it once it knows the pid. */
	sigset_t hold, old;
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigprocmask(SIG_BLOCK, &hold, &old);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = -errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		(void)!ts_wake_capture_close(cap, NULL, why, sizeof(why));
		args_free(args, argc);
		return e;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		setenv("TIERSIM_MOUNT", mnt, 1);
		if (cg && ts_cgroup_enter(cg, 0)) {
			fprintf(stderr, "tiersim record: cannot enter the memory cgroup %s\n",
				cg->path);
			_exit(126);
		}
		if (cap) { /* runs once the capture follows it */
			char b;
			close(go[1]);
			while (read(go[0], &b, 1) < 0 && errno == EINTR)
				;
		}
		execvp(args[0], args);
		fprintf(stderr, "tiersim record: %s: %s\n", args[0], strerror(errno));
		_exit(127);
	}
	ts_interrupt_forward(pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ts_interrupted) /* arrived before the pid was known */
		kill(pid, ts_interrupted);
	if (cap) {
		close(go[0]);
		if (ts_wake_capture_start(cap, pid, why, sizeof(why))) {
			no_wakes(why);
			(void)!ts_wake_capture_close(cap, NULL, why, sizeof(why));
			cap = NULL;
		}
		close(go[1]); /* the command runs */
	}
	int e = 0;
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			e = -errno;
			break;
		}
	}
	ts_interrupt_forward(0);
	if (cap && ts_wake_capture_close(cap, e ? NULL : wakes_out, why, sizeof(why)))
		no_wakes(why);
	args_free(args, argc);
	return e;
}

/* True once the daemon at @mnt has measured its FUSE round trip and made
 * its model: only then is the trace open (fs/calib.c), so the command
 * starts after it, or its first requests (all of them, for a short one)
 * would go unrecorded. The daemon's stats file is the only place that says
 * so (a FUSE file's contents raise no inotify event), so it is read every
 * 10 ms; the wait is bounded by the 10 s tierfs itself gives its
 * calibration before it serves requests unmodeled (fs/control.c). */
#define CALIBRATE_WAIT_NS (10 * TS_NS_PER_S)
static bool wait_calibrated(const char *mnt)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/.tierfs/stats", mnt);
	uint64_t end = ts_now_ns() + CALIBRATE_WAIT_NS;
	while (!ts_interrupted) {
		json_t *j = json_load_file(path, 0, NULL);
		bool done = json_is_true(json_object_get(j, "calibrated"));
		json_decref(j);
		if (done)
			return true;
		if (ts_now_ns() >= end)
			return false;
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return false;
}

int ts_record_stamp_fs(const char *trace, const char *image, char *err, size_t errlen)
{
	struct ts_fsmeta_geom g;
	struct ts_trace_hdr h = { 0 };
	char sub[512];
	if (ts_fsmeta_geom_read(image, &g, sub, sizeof(sub)))
		return 0; /* not ext4, or not mkfs.ext4's layout: no geometry */
	h.fs_blocks = g.blocks;
	h.fs_block_log = (uint8_t)__builtin_ctz(g.block);
	h.fs_bpg = g.bpg;
	h.fs_ipg = g.ipg;
	h.fs_inode_size = (uint16_t)g.inode_size;
	h.fs_rsv_gdt = (uint16_t)g.rsv_gdt;
	h.fs_desc_size = (uint8_t)g.desc_size;
	h.fs_flex_log = (uint8_t)__builtin_ctz(g.flex);
	return ts_trace_set_fs(trace, &h, err, errlen);
}

/* Block mode's record_once: @image (DIR's tree in c->fs) mounted on @mnt by
 * tiersim disk mount with the trace into @out, the command in a memory
 * cgroup of c->mem (none when 0), the disk unmounted again. */
static int record_once_disk(struct ts_record *c, const char *tier, const char *out,
			    char **argv, int argc, int *status)
{
	char err[1024], wakes_out[PATH_MAX + 8];
	struct ts_cgroup cg = { 0 };
	const char *mnt = c->mnt;
	int rc = 0, e = 0;

	if (mkdir(mnt, 0755) && errno != EEXIST) {
		fprintf(stderr, "tiersim record: cannot make %s: %s\n", mnt, strerror(errno));
		return -EIO;
	}
	struct ts_disk_mount_opts m = {
		.tierfs = c->ms.tierfs, .image = c->image, .mountpoint = mnt, .tier = tier,
		.profile = (c->profile && *c->profile) ? c->profile : NULL, .mem = c->mem, .trace = out,
	};
	if (ts_disk_mount(&m, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		rmdir(mnt);
		return -EIO;
	}
	if (ts_record_stamp_fs(out, c->image, err, sizeof(err)))
		fprintf(stderr, "tiersim record: the image's geometry is not in the trace: %s\n", err);
	*status = 0;
	if (c->mem) {
		char name[64];
		snprintf(name, sizeof(name), "record-%ld", (long)getpid());
		if (ts_cgroup_open(&cg, name, c->mem, err, sizeof(err))) {
			fprintf(stderr, "tiersim record: %s\n", err);
			rc = -EIO;
		}
	}
	bool ran = !rc && !ts_interrupted;
	snprintf(wakes_out, sizeof(wakes_out), "%s.wakes", out);
	unlink(wakes_out);
	if (ran && (e = run_command(argv, argc, mnt, c->no_wakes ? NULL : wakes_out,
				    !c->no_handoffs, c->dir,
				    cg.path ? &cg : NULL, status)))
		fprintf(stderr, "tiersim record: running %s: %s\n", argv[0], strerror(-e));
	ts_cgroup_remove(&cg);
	if (ts_disk_umount(mnt, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		rc = -EIO;
	}
	rmdir(mnt);
	if (rc || e)
		return -EIO;
	return ran ? 0 : -EINTR;
}

int ts_record_run(struct ts_record *c, const char *tier, const char *out, char **argv,
		  int argc, int *status)
{
	char err[1024], memb[32], *opts;
	struct ts_mount *m;
	int e;

	struct ts_mounts *ms = &c->ms;
	const char *mnt = c->mnt;
	if (c->image[0])
		return record_once_disk(c, tier, out, argv, argc, status);

	snprintf(memb, sizeof(memb), "%llu", (unsigned long long)c->mem);
	if (asprintf(&opts, "tier=%s,mem=%s,trace=%s%s%s", tier, memb, out,
		     (c->profile && *c->profile) ? ",profile=" : "", c->profile) < 0) {
		fprintf(stderr, "tiersim record: out of memory\n");
		return -EIO;
	}
	e = ts_mount_start(ms, c->data, mnt, opts, &m, err, sizeof(err));
	free(opts);
	if (e) {
		fprintf(stderr, "tiersim record: %s\n", err);
		char log[PATH_MAX + 16];
		snprintf(log, sizeof(log), "%s.log", mnt);
		unlink(log); /* its last line is in the message */
		return -EIO;
	}
	*status = 0;
	if (!wait_calibrated(mnt) && !ts_interrupted) {
		fprintf(stderr,
			"tiersim record: tierfs on %s did not calibrate within 10 s; "
			"nothing was run\n",
			mnt);
		char ignore[1024];
		(void)!ts_mount_stop(ms, m, ignore, sizeof(ignore));
		return -EIO;
	}
	bool ran = !ts_interrupted;
	char wakes_out[PATH_MAX + 8];
	snprintf(wakes_out, sizeof(wakes_out), "%s.wakes", out);
	unlink(wakes_out); /* never one left from an earlier recording */
	if (ran && (e = run_command(argv, argc, mnt, c->no_wakes ? NULL : wakes_out,
				    !c->no_handoffs, c->dir, NULL,
				    status)))
		fprintf(stderr, "tiersim record: running %s: %s\n", argv[0], strerror(-e));
	int stop = ts_mount_stop(ms, m, err, sizeof(err));
	if (stop)
		fprintf(stderr, "tiersim record: %s\n", err);
	if (e || stop)
		return -EIO;
	return ran ? 0 : -EINTR;
}

/* A wait status as a shell gives it: the exit status, 128 + N for signal N. */
static int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Whether the command's last run leaves the next one due; if not, says
 * why no run @what. */
static bool clean(const struct ts_record_runs *s, const char *what)
{
	if (!s->code && !ts_interrupted)
		return true;
	fprintf(stderr, "tiersim record: no %s: the command %s\n", what,
		ts_interrupted ? "was interrupted" : "failed");
	return false;
}

int ts_record_runs(struct ts_record *r, struct ts_record_runs *s, char **argv, int argc)
{
	int (*run)(struct ts_record *, const char *, const char *, char **, int, int *) =
		s->run ? s->run : ts_record_run;
	int status = 0, e;

	bool probe = s->probe && *s->probe;
	if (probe && asprintf(&s->probe_out, "%s.probe", s->out) < 0)
		s->probe_out = NULL;
	if (s->repeat > 1)
		s->repeats = calloc((size_t)s->repeat - 1, sizeof(char *));
	if ((probe && !s->probe_out) || (s->repeat > 1 && !s->repeats)) {
		fprintf(stderr, "tiersim record: out of memory\n");
		return -ENOMEM;
	}
	if ((e = run(r, s->tier, s->out, argv, argc, &status)))
		return e == -EINTR ? -EINTR : -EIO;
	s->code = exit_code(status);
	if (s->probe_out) {
		/* the probe is the same run again: only after a clean first one */
		if (!clean(s, "probe run"))
			return -ECANCELED;
		if ((e = run(r, s->probe, s->probe_out, argv, argc, &status)))
			return e == -EINTR ? -EINTR : -EIO;
		if (status) {
			fprintf(stderr, "tiersim record: the probe run on %s failed (%s %d)\n",
				s->probe, WIFEXITED(status) ? "exit status" : "signal",
				WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			return -EIO;
		}
	}
	for (int64_t n = 2; n <= s->repeat; n++) {
		char what[48];
		snprintf(what, sizeof(what), "run %lld of --repeat", (long long)n);
		if (!clean(s, what))
			return -ECANCELED;
		if (asprintf(&s->repeats[s->nrepeats], "%s.%lld", s->out, (long long)n) < 0) {
			fprintf(stderr, "tiersim record: out of memory\n");
			return -ENOMEM;
		}
		if ((e = run(r, s->tier, s->repeats[s->nrepeats++], argv, argc, &status)))
			return e == -EINTR ? -EINTR : -EIO;
		s->code = exit_code(status);
	}
	return 0;
}

void ts_record_runs_free(struct ts_record_runs *s)
{
	for (size_t i = 0; i < s->nrepeats; i++)
		free(s->repeats[i]);
	free(s->repeats);
	free(s->probe_out);
	s->repeats = NULL;
	s->probe_out = NULL;
	s->nrepeats = 0;
}

int ts_record_begin(struct ts_record *c, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	tmp = tmp && *tmp ? tmp : "/tmp";
	c->dir[0] = c->image[0] = c->imgdir[0] = 0;
	snprintf(c->dir, sizeof(c->dir), "%s/tiersim-record.XXXXXX", tmp);
	if (!mkdtemp(c->dir)) {
		snprintf(err, errlen, "cannot make a mount point under %s: %s (set TMPDIR to a "
				      "writable directory)", tmp, strerror(errno));
		c->dir[0] = 0;
		return -EIO;
	}
	snprintf(c->mnt, sizeof(c->mnt), "%s/mnt", c->dir);
	int rc = ts_mounts_init(&c->ms, err, errlen);
	if (rc || !c->fs)
		return rc;
	/* Block mode: DIR's tree in an image beside the mount point. */
	uint64_t size;
	snprintf(c->image, sizeof(c->image), "%s/img/data.%s", c->dir, c->fs);
	snprintf(c->imgdir, sizeof(c->imgdir), "%s/img", c->dir);
	if (mkdir(c->imgdir, 0700)) {
		snprintf(err, errlen, "%s: %s", c->imgdir, strerror(errno));
		c->imgdir[0] = c->image[0] = 0;
		return -EIO;
	}
	if ((rc = ts_disk_size_for(c->data, c->fs, &size, NULL, err, errlen))) {
		c->image[0] = 0;
		return rc;
	}
	struct ts_disk_make_opts mk = { .image = c->image, .size = size, .fs = c->fs,
					.from = c->data };
	char sub[768];
	if ((rc = ts_disk_make(&mk, sub, sizeof(sub)))) {
		snprintf(err, errlen, "--fs %s: %s", c->fs, sub);
		c->image[0] = 0;
	}
	return rc;
}

void ts_record_end(struct ts_record *c)
{
	ts_mounts_free(&c->ms); /* whatever is still mounted comes down */
	if (c->image[0])
		unlink(c->image);
	if (c->imgdir[0])
		rmdir(c->imgdir);
	if (c->dir[0])
		rmdir(c->dir); /* the mount point itself went with the mount */
	c->dir[0] = c->image[0] = c->imgdir[0] = 0;
}
