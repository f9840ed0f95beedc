/*
 * cmd_record.c — `tiersim record --data DIR [options] -- CMD ARGS...`: run an
 * application once through tierfs and say what other tiers would do to it.
 *
 * DIR is mounted through tierfs (-o tier=T,mem=M,trace=OUT) at a fresh
 * temporary mount point; the command runs with `{}` in its arguments
 * replaced by the mount point and TIERSIM_MOUNT set to it; when it ends the
 * mount comes down (the daemon writes the trace's trailer as it exits), and
 * the trace's summary is printed, with --predict the replay table per tier
 * (traces/replay: the wait rule, so an application that waits on its own
 * consumer is predicted as such).
 *
 * The mount is torn down on every path: the command failing, tiersim
 * getting SIGINT/SIGTERM/SIGHUP (Ctrl-C reaches the command through the
 * terminal; a signal sent to tiersim alone is passed on to it), the trace
 * being unreadable. The command's exit status is tiersim's (128 + N for a
 * command killed by signal N, as a shell reports it) unless recording
 * itself failed.
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

#include "cli/cmdline.h"
#include "core/clock.h"
#include "core/interrupt.h"
#include "cli/commands.h"
#include "core/opt.h"
#include "core/units.h"
#include "disk/cgroup.h"
#include "disk/disk.h"
#include "fs/mount.h"
#include "traces/replay/replay.h"
#include "traces/wake_capture.h"
#include "traces/stats.h"
#include "traces/trace.h"

#define MAX_TIERS 16

struct rec_cfg {
	char *data;
	char *tier;
	uint64_t mem;
	char *out;
	char *predict;
	char *profile;
	char *probe;
	bool json;
	bool no_wakes;
	char *fs;
};

static const struct ts_opt rec_opts[] = {
    {"data", TS_OPT_STR, offsetof(struct rec_cfg, data), NULL, 0, 0, "",
     "the directory to mount through tierfs (required)"},
    {"tier", TS_OPT_STR, offsetof(struct rec_cfg, tier), "unlimited", 0, 0, "",
     "the tier to record on ('tiersim tiers' lists them)"},
    {"mem", TS_OPT_SIZE, offsetof(struct rec_cfg, mem), "0", 0, 0, "bytes",
     "emulated page cache of the mount (0: every read goes to the tier)"},
    {"out", TS_OPT_STR, offsetof(struct rec_cfg, out), "record.trace", 0, 0, "",
     "the trace file to write"},
    {"predict", TS_OPT_STR, offsetof(struct rec_cfg, predict), "", 0, 0, "",
     "tiers to predict, comma-separated (T1,T2,...)"},
    {"profile", TS_OPT_STR, offsetof(struct rec_cfg, profile), "", 0, 0, "",
     "a tier profile file with more tiers (as tierfs -o profile=)"},
    {"probe", TS_OPT_STR, offsetof(struct rec_cfg, probe), "", 0, 0, "",
     "run the command a second time on this tier (into OUT.probe) and predict each tier "
     "from both runs: the larger prediction"},
    {"json", TS_OPT_BOOL, offsetof(struct rec_cfg, json), "false", 0, 0, "",
     "the summary and predictions as one JSON object"},
    {"no_wakes", TS_OPT_BOOL, offsetof(struct rec_cfg, no_wakes), "false", 0, 0, "",
     "do not capture who woke whom (the wake file OUT.wakes; needs root and tracefs)"},
    {"fs", TS_OPT_STR, offsetof(struct rec_cfg, fs), NULL, 0, 0, "",
     "block mode: DIR copied into an ext4 or xfs image, mounted through a loop device over "
     "tierfs (tiersim disk mount); --mem is then the command's memory cgroup (needs root)"},
    {NULL},
};

static const struct ts_cmdline rec_cmdline = {
	.name = "record",
	.synopsis = "--data DIR [options] -- CMD ARGS...",
	.about = "Mounts DIR through tierfs at a temporary mount point (with --fs, a file system\n"
		 "image of DIR through a loop device over tierfs), runs CMD with '{}' in its\n"
		 "arguments (and TIERSIM_MOUNT in its environment) set to that mount point,\n"
		 "records every request into a trace, unmounts, and prints the trace's summary;\n"
		 "with --predict, what the recorded run would take on each tier (with --probe T,\n"
		 "from a second run on tier T too: for runs that were IO-bound).\n",
	.opts = rec_opts,
	.tail = "The exit status is CMD's (128+N when a signal N ended it).\n",
	.max_pos = 0,
};

/* @cmd resolved as execvp would: 0, or -ENOENT / -EACCES. */
static int find_command(const char *cmd)
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

/* @a with every "{}" replaced by @mnt (malloc'd), or NULL. */
static char *substitute(const char *a, const char *mnt)
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
		       const char *scratch, const struct ts_cgroup *cg, int *status)
{
	struct ts_wake_capture *cap = NULL;
	char why[PATH_MAX + 128];
	int go[2] = {-1, -1};
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args)
		return -ENOMEM;
	for (int i = 0; i < argc; i++) {
		if (!(args[i] = substitute(argv[i], mnt))) {
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
		}
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

/* The comma-separated tier list in @s, split in place. */
static int split_tiers(char *s, const char **tiers, size_t *n, char *err, size_t errlen)
{
	*n = 0;
	for (char *save, *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*n == MAX_TIERS) {
			snprintf(err, errlen, "--predict: at most %d tiers", MAX_TIERS);
			return -EINVAL;
		}
		tiers[(*n)++] = t;
	}
	return 0;
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

/* One run of the command on a fresh mount of @tier (at @mnt, in the
 * scratch directory @dir) recording into @out;
 * its wait status in *@status. 0, TS_EXIT_INTERRUPT (a signal came before
 * the command started), or TS_EXIT_FAIL with the message printed. */
/* Block mode's record_once: @image (DIR's tree in c->fs) mounted on @mnt by
 * tiersim disk mount with the trace into @out, the command in a memory
 * cgroup of c->mem (none when 0), the disk unmounted again. */
static int record_once_disk(struct ts_mounts *ms, const struct rec_cfg *c, const char *dir,
			    const char *mnt, const char *image, const char *tier, const char *out,
			    char **argv, int argc, int *status)
{
	char err[1024], wakes_out[PATH_MAX + 8];
	struct ts_cgroup cg = { 0 };
	int rc = 0, e = 0;

	if (mkdir(mnt, 0755) && errno != EEXIST) {
		fprintf(stderr, "tiersim record: cannot make %s: %s\n", mnt, strerror(errno));
		return TS_EXIT_FAIL;
	}
	struct ts_disk_mount_opts m = {
		.tierfs = ms->tierfs, .image = image, .mountpoint = mnt, .tier = tier,
		.profile = *c->profile ? c->profile : NULL, .mem = c->mem, .trace = out,
	};
	if (ts_disk_mount(&m, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		rmdir(mnt);
		return TS_EXIT_FAIL;
	}
	*status = 0;
	if (c->mem) {
		char name[64];
		snprintf(name, sizeof(name), "record-%ld", (long)getpid());
		if (ts_cgroup_open(&cg, name, c->mem, err, sizeof(err))) {
			fprintf(stderr, "tiersim record: %s\n", err);
			rc = TS_EXIT_FAIL;
		}
	}
	bool ran = !rc && !ts_interrupted;
	snprintf(wakes_out, sizeof(wakes_out), "%s.wakes", out);
	unlink(wakes_out);
	if (ran && (e = run_command(argv, argc, mnt, c->no_wakes ? NULL : wakes_out, dir,
				    cg.path ? &cg : NULL, status)))
		fprintf(stderr, "tiersim record: running %s: %s\n", argv[0], strerror(-e));
	ts_cgroup_remove(&cg);
	if (ts_disk_umount(mnt, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		rc = TS_EXIT_FAIL;
	}
	rmdir(mnt);
	if (rc || e)
		return TS_EXIT_FAIL;
	return ran ? 0 : TS_EXIT_INTERRUPT;
}

static int record_once(struct ts_mounts *ms, const struct rec_cfg *c, const char *dir,
		       const char *mnt, const char *image, const char *tier, const char *out,
		       char **argv, int argc, int *status)
{
	char err[1024], memb[32], *opts;
	struct ts_mount *m;
	int e;

	if (image)
		return record_once_disk(ms, c, dir, mnt, image, tier, out, argv, argc, status);

	snprintf(memb, sizeof(memb), "%llu", (unsigned long long)c->mem);
	if (asprintf(&opts, "tier=%s,mem=%s,trace=%s%s%s", tier, memb, out,
		     *c->profile ? ",profile=" : "", c->profile) < 0) {
		fprintf(stderr, "tiersim record: out of memory\n");
		return TS_EXIT_FAIL;
	}
	e = ts_mount_start(ms, c->data, mnt, opts, &m, err, sizeof(err));
	free(opts);
	if (e) {
		fprintf(stderr, "tiersim record: %s\n", err);
		char log[PATH_MAX + 16];
		snprintf(log, sizeof(log), "%s.log", mnt);
		unlink(log); /* its last line is in the message */
		return TS_EXIT_FAIL;
	}
	*status = 0;
	if (!wait_calibrated(mnt) && !ts_interrupted) {
		fprintf(stderr,
			"tiersim record: tierfs on %s did not calibrate within 10 s; "
			"nothing was run\n",
			mnt);
		char ignore[1024];
		(void)!ts_mount_stop(ms, m, ignore, sizeof(ignore));
		return TS_EXIT_FAIL;
	}
	bool ran = !ts_interrupted;
	char wakes_out[PATH_MAX + 8];
	snprintf(wakes_out, sizeof(wakes_out), "%s.wakes", out);
	unlink(wakes_out); /* never one left from an earlier recording */
	if (ran && (e = run_command(argv, argc, mnt, c->no_wakes ? NULL : wakes_out, dir, NULL,
				    status)))
		fprintf(stderr, "tiersim record: running %s: %s\n", argv[0], strerror(-e));
	int stop = ts_mount_stop(ms, m, err, sizeof(err));
	if (stop)
		fprintf(stderr, "tiersim record: %s\n", err);
	if (e || stop)
		return TS_EXIT_FAIL;
	return ran ? 0 : TS_EXIT_INTERRUPT;
}

int ts_cmd_record(int argc, char **argv)
{
	struct rec_cfg c = {0};
	struct ts_mounts ms = {0};
	const char *tiers[MAX_TIERS];
	size_t ntiers = 0;
	char err[1024], dir[PATH_MAX] = "", mnt[PATH_MAX + 8], out[PATH_MAX],
			probe_out[PATH_MAX + 8], image[PATH_MAX + 32] = "", imgdir[PATH_MAX + 8] = "";
	int rc = TS_EXIT_USAGE, cmd = -1;

	/* Our options end at "--"; the command and its own options follow. */
	for (int i = 1; i < argc && cmd < 0; i++)
		if (!strcmp(argv[i], "--"))
			cmd = i + 1;
	struct ts_opt_args a;
	int prc = ts_cmdline_parse(&rec_cmdline, &c, cmd < 0 ? argc : cmd - 1, argv, &a);
	if (prc >= 0)
		return prc; /* --help, or a usage error already said */
	struct stat st;
	if (!c.data || !*c.data) {
		fprintf(stderr,
			"tiersim record: --data DIR is required (the directory to mount)\n");
		goto out;
	}
	if (cmd < 0 || cmd >= argc) {
		fprintf(stderr, "tiersim record: no command: give it after '--' (tiersim record "
				"--data DIR -- CMD ARGS...)\n");
		goto out;
	}
	if (stat(c.data, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "tiersim record: --data %s: %s\n", c.data,
			stat(c.data, &st) ? strerror(errno) : "not a directory");
		goto out;
	}
	if (c.fs && ts_disk_fs_check(c.fs, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		goto out;
	}
	if (c.fs && geteuid() != 0) {
		fprintf(stderr, "tiersim record: --fs: block mode needs root (loop devices, "
				"mount(2))\n");
		goto out;
	}
	int e = find_command(argv[cmd]);
	if (e) {
		fprintf(stderr, "tiersim record: %s: command %s\n", argv[cmd],
			e == -ENOENT ? "not found" : strerror(-e));
		goto out;
	}
	if (split_tiers(c.predict, tiers, &ntiers, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		goto out;
	}
	/* tierfs takes the trace path inside its -o list */
	if (strchr(c.out, ',') || strchr(c.data, ',')) {
		fprintf(stderr,
			"tiersim record: %s: a path with ',' cannot be passed to tierfs -o; "
			"rename it\n",
			strchr(c.out, ',') ? c.out : c.data);
		goto out;
	}
	rc = TS_EXIT_FAIL;
	/* the trace path absolute, as tierfs changes to / */
	if (c.out[0] == '/')
		snprintf(out, sizeof(out), "%s", c.out);
	else if (!getcwd(out, sizeof(out)) || strlen(out) + strlen(c.out) + 2 > sizeof(out) ||
		 !strcat(strcat(out, "/"), c.out)) {
		fprintf(stderr, "tiersim record: --out %s: cannot make it absolute\n", c.out);
		goto out;
	}
	const char *tmp = getenv("TMPDIR");
	tmp = tmp && *tmp ? tmp : "/tmp";
	snprintf(dir, sizeof(dir), "%s/tiersim-record.XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		fprintf(stderr,
			"tiersim record: cannot make a mount point under %s: %s (set TMPDIR "
			"to a writable directory)\n",
			tmp, strerror(errno));
		dir[0] = 0;
		goto out;
	}
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	if (*c.probe &&
	    (size_t)snprintf(probe_out, sizeof(probe_out), "%s.probe", out) >= sizeof(probe_out)) {
		fprintf(stderr, "tiersim record: --out %s: too long\n", out);
		goto out;
	}
	if (ts_mounts_init(&ms, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		goto out;
	}
	if (c.fs) {
		/* Block mode: DIR's tree in an image beside the mount point. */
		uint64_t size;
		snprintf(image, sizeof(image), "%s/img/data.%s", dir, c.fs);
		snprintf(imgdir, sizeof(imgdir), "%s/img", dir);
		if (mkdir(imgdir, 0700)) {
			fprintf(stderr, "tiersim record: %s: %s\n", imgdir, strerror(errno));
			imgdir[0] = 0;
			goto out;
		}
		if (ts_disk_size_for(c.data, c.fs, &size, err, sizeof(err))) {
			fprintf(stderr, "tiersim record: %s\n", err);
			goto out;
		}
		struct ts_disk_make_opts mk = { .image = image, .size = size, .fs = c.fs,
						.from = c.data };
		if (ts_disk_make(&mk, err, sizeof(err))) {
			fprintf(stderr, "tiersim record: --fs %s: %s\n", c.fs, err);
			image[0] = 0;
			goto out;
		}
	}
	ts_interrupt_install();
	int status = 0, pstatus = 0;
	if ((e = record_once(&ms, &c, dir, mnt, image[0] ? image : NULL, c.tier, out, argv + cmd,
			     argc - cmd, &status))) {
		rc = e;
		goto out;
	}
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (*c.probe) {
		/* the probe is the same run again: only after a clean first one */
		if (code || ts_interrupted) {
			fprintf(stderr, "tiersim record: no probe run: the command %s\n",
				ts_interrupted ? "was interrupted" : "failed");
			rc = ts_interrupted ? TS_EXIT_INTERRUPT : code;
			goto out;
		}
		if ((e = record_once(&ms, &c, dir, mnt, image[0] ? image : NULL, c.probe, probe_out,
				     argv + cmd, argc - cmd, &pstatus))) {
			rc = e;
			goto out;
		}
		if (pstatus) {
			fprintf(stderr, "tiersim record: the probe run on %s failed (%s %d)\n",
				c.probe, WIFEXITED(pstatus) ? "exit status" : "signal",
				WIFEXITED(pstatus) ? WEXITSTATUS(pstatus) : WTERMSIG(pstatus));
			rc = TS_EXIT_FAIL;
			goto out;
		}
	}
	json_t *j = NULL;
	struct ts_record_report rr = {
		.data = c.data, .trace = out, .probe = *c.probe ? probe_out : NULL,
		.profile = c.profile, .tiers = tiers, .ntiers = ntiers, .exit_status = code,
	};
	if (ts_record_report(&rr, stdout, c.json ? &j : NULL, err, sizeof(err))) {
		fprintf(stderr, "tiersim record: %s\n", err);
		goto out;
	}
	if (j) {
		int w = json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		json_decref(j);
		if (w || fputc('\n', stdout) == EOF) {
			fprintf(stderr, "tiersim record: writing JSON failed\n");
			goto out;
		}
	}
	rc = fflush(stdout) ? TS_EXIT_FAIL : code;
out:
	ts_mounts_free(&ms); /* whatever is still mounted comes down */
	if (image[0])
		unlink(image);
	if (imgdir[0])
		rmdir(imgdir);
	if (dir[0])
		rmdir(dir); /* the mount point itself went with the mount */
	ts_opt_free(rec_opts, &c);
	return rc;
}
