/*
 * tierfs.c — the tierfs program: mount BACKING on MOUNTPOINT through FUSE
 * and make every request take as long as the chosen disk tier would.
 *
 *   tierfs [-f] [-d] [-s] -o tier=NAME[,capacity=SIZE][,mem=SIZE][,...] BACKING MOUNTPOINT
 *   tierfs --list-tiers [--capacity SIZE] [--profile FILE]
 *
 * Options may also follow the two paths, so mount(8) works through
 * mount.fuse3:  mount -t fuse.tierfs BACKING MOUNTPOINT -o tier=ssd-cloud
 * and so does an /etc/fstab line:
 *   /data/imagenet  /mnt/imagenet  fuse.tierfs  tier=ssd-cloud,capacity=500GiB  0 0
 *
 * This file owns the life cycle: option parsing (the table below drives
 * -o, the runtime control file and --help), the checks made before
 * mounting (backing directory, mountpoint, an existing or stale mount), the
 * mount, daemonizing (the parent returns only once the self-calibration has
 * run and the mount is ready, with exit status 0, or 1 with the mount and
 * the daemon gone),
 * the multithreaded loop, and a clean unmount on SIGINT/SIGTERM/SIGHUP.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/files.h"
#include "core/opt.h"
#include "core/units.h"
#include "disk/issue.h"
#include "fs/daemon.h"
#include "fs/workers.h"

#include <fuse_lowlevel.h>

#define OFF(f) offsetof(struct ts_fs_opts, f)

/*
 * How long the kernel may answer a stat() from its cache, in seconds: a
 * choice, libfuse's own default for attr_timeout and entry_timeout. The
 * kernel looks a name up again once its entry_timeout (1 s) has passed,
 * and that lookup refreshes the attributes too, so a longer attr_timeout
 * saves few round trips more; 0 gives back the per-file getattrs (8.1 per
 * file of a PyTorch folder loader against 1.1, which made FUSE mode 1.18x
 * block mode's epoch on ssd-cloud against 1.07x: disk/README.md). It is
 * also how long a change made in BACKING behind the mount may take to
 * show.
 */
#define TS_FS_ATTR_TIMEOUT "1"

/*
 * The worker pool. A request sleeping in the model holds a worker while
 * its latency passes, so a queue depth of N needs N workers: max_threads
 * defaults to TS_FS_MAX_THREADS (libfuse's default is 10). libfuse's own
 * loop starts a worker whenever none is idle and either never ends one (so
 * each mount kept its busiest moment's pool: 24-56 workers at QD16,
 * differing from mount to mount, the larger pools slower) or ends one the
 * moment it finishes a request while more than max_idle_threads are idle
 * (threads ended and started as the depth jitters: 2.6% of IOPS at QD256).
 * tierfs runs its own loop (workers.c): at most max_idle_threads
 * (TS_FS_MAX_IDLE_THREADS by default) idle workers wait on the device, the
 * others are parked and end once parked for idle_timeout
 * (TS_FS_IDLE_TIMEOUT).
 * Measured at depths 1-256: fs/README.md, "Worker threads".
 */
#define TS_FS_MAX_THREADS 256
#define TS_FS_MAX_IDLE_THREADS 16
#define TS_FS_IDLE_TIMEOUT "1s"
#define TS_FS_THREADS_LIMIT 100000 /* libfuse's FUSE_LOOP_MT_MAX_THREADS */

/* The daemon's options; the model's (capacity, mem, seed, floor,
 * dirty_limit, ra_max, mem_rate) come from ts_tier_cfg_opts. */
const struct ts_opt ts_fs_opt_table[] = {
	{ "tier", TS_OPT_STR, OFF(tier), NULL, 0, 0, "",
	  "tier to emulate, one of tierfs --list-tiers; required unless bare" },
	{ "profile", TS_OPT_STR, OFF(profile), NULL, 0, 0, "",
	  "a Lua file of more tiers, added to the built-in ones" },
	{ "cached", TS_OPT_STR, OFF(cached), "*.mdb", 0, 0, "",
	  "':'-separated globs (on the file name, or the path if the glob has a '/') of files "
	  "opened kernel-cached so they can be mmap'd shared" },
	{ "kernel_cache", TS_OPT_STR, OFF(kernel_cache), "small", 0, 0, "",
	  "with a page-cache model (mem > 0), the files not named by cached= that are opened "
	  "kernel-cached for the open (their pages dropped at each open), so that the kernel "
	  "answers a read of pages the open has read, and the read at the end of the file, as "
	  "a kernel file system does: small (a file no larger than the kernel's readahead "
	  "window on the mount, 128 KiB: one window reads it whole), all (every file; a read "
	  "larger than the window then goes out as one window after another, where a block "
	  "device sends it whole), off (direct IO: every read to the daemon)" },
	{ "carry", TS_OPT_BOOL, OFF(carry), "true", 0, 0, "",
	  "a request's FUSE round trip that its modeled latency could not absorb (a getattr, an "
	  "open of a cached inode, a page-cache hit: the floor is taken off what the model "
	  "charges, never below 0) is taken off the same thread's next reply that waits on the "
	  "model, up to 8 round trips: what a kernel file system's job would not have paid "
	  "(not in block mode; the trace says carry=true, and a virtual replay of it carries "
	  "the same way)" },
	{ "trace", TS_OPT_STR, OFF(trace), NULL, 0, 0, "",
	  "record every request to FILE (a tiersim trace: tiersim trace stats FILE)" },
	{ "trace_cpu", TS_OPT_BOOL, OFF(trace_cpu), "true", 0, 0, "",
	  "with trace=: each record carries the requesting thread's CPU clock (a /proc read, "
	  "the one syscall tracing makes on a request; false: no CPU samples, and a "
	  "replay of the trace cannot tell a thread's waits from its work)" },
	{ "trace_cpu_every", TS_OPT_BOOL, OFF(trace_cpu_every), "false", 0, 0, "",
	  "with trace_cpu: read the clock for every request (false: a request that comes "
	  "within two FUSE round trips of the thread's previous reply is recorded without "
	  "it, up to a budget; traces/FORMAT.md, \"Samples left unread\")" },
	{ "fault", TS_OPT_STR, OFF(fault), NULL, 0, 0, "",
	  "fail requests: OP:ERRNO[:PROBABILITY (0 to 1)][:path=GLOB][:off=START-END], rules separated "
	  "by ';' or given again (fault=read:EIO:0.01, fault=read:EIO:path=*/n0144*); "
	  "see fs/README.md" },
	{ "idle_timeout", TS_OPT_DURATION, OFF(idle_timeout_ns), TS_FS_IDLE_TIMEOUT, 1e6, 3600e9, "",
	  "how long an idle worker thread beyond max_idle_threads waits (parked) before it "
	  "ends; a depth that comes and goes within it starts and ends no threads "
	  "(fs/README.md, \"Worker threads\")" },
	{ "bare", TS_OPT_BOOL, OFF(bare), "false", 0, 0, "",
	  "plain passthrough: no tier model, no counters (to measure tierfs itself)" },
	{ "calib", TS_OPT_BOOL, OFF(calib), "true", 0, 0, "",
	  "measure the FUSE round trip at mount and take it off modeled latencies "
	  "(false: use floor=)" },
	{ "cache", TS_OPT_STR, OFF(cache), "cold", 0, 0, "",
	  "the page-cache model's state at mount: cold (empty, as after dropping caches), "
	  "warm (the backing's files resident up to mem, as a previous pass leaves them) or "
	  "written (resident and partly dirty, as a copy made just before leaves them)" },
	{ "warm_path", TS_OPT_STR, OFF(warm_path), NULL, 0, 0, "",
	  "with cache=warm|written: the file or folder, relative to the backing, to warm "
	  "(default: all of the backing)" },
	{ "loop_hop", TS_OPT_STR, OFF(loop_hop), "off", 0, 0, "",
	  "block mode (tiersim disk mount): take a loop device's hop off every modeled latency "
	  "too, beside the FUSE round trip: measure (at mount, through a loop device over "
	  ".tierfs/calib; needs root), a duration (given), or off" },
	{ "image", TS_OPT_BOOL, OFF(image), "false", 0, 0, "",
	  "block mode (tiersim disk mount): BACKING holds the disk image a loop device reads, "
	  "so the image file's own path lookups and extent tree are not charged (a block "
	  "device has none); its reads and writes are, as the device's" },
	{ "loop_issue", TS_OPT_STR, OFF(loop_issue), "off", 0, 0, "",
	  "block mode (tiersim disk mount turns it on): on: charge each device request from the "
	  "moment the loop device issued it (a BPF program on the block layer's tracepoints; "
	  "needs root), and reply early by the measured reply-to-completion hop, so that the "
	  "kernel completes it at issue + the tier's time; where BPF is not there, one line in "
	  "the log and the mount's measured hop instead; watch: charge from the receipt as with "
	  "off, and only measure how far the kernel's completions fall from the model's "
	  "(stats); off" },
	/* as a scenario's mount{} has them; only on an EBS volume's tier */
	TS_TIER_EBS_OPT_ROWS(OFF),
	{ NULL },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tierfs [-f] [-d] [-s] -o tier=NAME[,option=value...] BACKING MOUNTPOINT\n"
		"       tierfs --list-tiers [--capacity SIZE] [--profile FILE]\n"
		"\n"
		"Mounts BACKING on MOUNTPOINT; every request is passed through and held until\n"
		"the emulated disk tier would have completed it. Also as\n"
		"  mount -t fuse.tierfs BACKING MOUNTPOINT -o tier=NAME,...\n"
		"While mounted, MOUNTPOINT/.tierfs/stats is live JSON; writing tier=NAME\n"
		"to MOUNTPOINT/.tierfs/control switches the tier, fault=RULE injects errors\n"
		"and fault=clear stops them.\n"
		"\n"
		"  -f                 stay in the foreground\n"
		"  -d                 FUSE debug output (implies -f)\n"
		"  -s                 single-threaded\n"
		"  --list-tiers       print every tier's effective caps and exit\n"
		"\n"
		"tierfs options (-o name=value):\n");
	ts_opt_help(out, ts_fs_opt_table);
	ts_opt_help(out, ts_tier_cfg_opts);
	fprintf(out, "\nFUSE options (-o): allow_other (let users other than the one mounting in; "
		     "each request is made as its caller, and default_permissions, always on, "
		     "checks the file modes), max_threads=N (1 to 100000, default 256: the "
		     "deepest queue served at once), max_idle_threads=N (0 to max_threads, "
		     "default " TS_STR(TS_FS_MAX_IDLE_THREADS) ": the most idle workers waiting "
		     "on the device, the others parked and ended after idle_timeout; -1: "
		     "every idle worker waits, none ends), "
		     "attr_timeout=S (how long the kernel caches attributes, default " TS_FS_ATTR_TIMEOUT
		     "; the other names of a hard-linked file are invalidated when it changes), ... "
		     "(see mount.fuse3(8))\n");
}

struct cmdline {
	struct ts_fs *fs;
	const char *pos[2];
	int npos;
	int rc;
	char err[512];
};

/* fuse_opt_parse callback: our -o options go to the table, the two paths
 * are collected, everything else is left for libfuse. */
static int opt_proc(void *data, const char *arg, int key, struct fuse_args *out)
{
	struct cmdline *c = data;
	char name[64];

	(void)out;
	if (key == FUSE_OPT_KEY_NONOPT) {
		if (c->npos < 2) {
			c->pos[c->npos++] = arg;
		} else if (!c->rc) {
			snprintf(c->err, sizeof(c->err), "unexpected argument '%s'", arg);
			c->rc = TS_E_PARSE;
		}
		return 0;
	}
	if (key != FUSE_OPT_KEY_OPT || arg[0] == '-')
		return 1;
	size_t n = strcspn(arg, "=");
	if (n >= sizeof(name))
		return 1;
	memcpy(name, arg, n);
	name[n] = 0;
	const struct ts_opt *tab = ts_fs_opt_table;
	void *base = &c->fs->o;
	const struct ts_opt *o = ts_opt_find(tab, name);
	if (!o) {
		tab = ts_tier_cfg_opts;
		base = &c->fs->cfg;
		o = ts_opt_find(tab, name);
	}
	if (!o)
		return 1;
	int rc;
	if (strcmp(name, "fault") == 0 && arg[n] && c->fs->o.fault) {
		/* Each fault= adds its rules to those given before. */
		char *more;
		if (asprintf(&more, "%s;%s", c->fs->o.fault, arg + n + 1) < 0)
			more = NULL;
		rc = more ? 0 : -ENOMEM;
		if (more) {
			free(c->fs->o.fault);
			c->fs->o.fault = more;
		}
	} else if (!arg[n] && o->type == TS_OPT_BOOL)
		rc = ts_opt_set(tab, base, name, "true", c->err, sizeof(c->err));
	else
		rc = ts_opt_set_kv(tab, base, arg, c->err, sizeof(c->err));
	if (rc && !c->rc)
		c->rc = rc;
	return 0;
}

static bool path_within(const char *inner, const char *outer)
{
	size_t n = strlen(outer);
	if (strcmp(outer, "/") == 0)
		return true;
	return strncmp(inner, outer, n) == 0 && (inner[n] == 0 || inner[n] == '/');
}

/* The checks made before mounting; each failure is one line and exit 1. */
static int prepare(struct ts_fs *fs, const char *backing, const char *mp)
{
	char abs[PATH_MAX], what[PATH_MAX + 64];

	fs->root = open(backing, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fs->root < 0) {
		if (errno == ENOTDIR)
			fprintf(stderr, "tierfs: backing directory '%s' is not a directory\n", backing);
		else if (errno == ENOENT)
			fprintf(stderr, "tierfs: backing directory '%s' does not exist\n", backing);
		else
			fprintf(stderr, "tierfs: backing directory '%s': %s\n", backing,
				strerror(errno));
		return -1;
	}
	if (!realpath(backing, abs) || !(fs->backing = strdup(abs))) {
		fprintf(stderr, "tierfs: backing directory '%s': %s\n", backing, strerror(errno));
		return -1;
	}
	/* Forced past the kernel's attribute cache: a FUSE mount whose daemon
	 * died answers a plain stat() of its root from what it cached
	 * (attr_timeout), a forced one with ENOTCONN. */
	struct statx sx;
	if (statx(AT_FDCWD, mp, AT_STATX_FORCE_SYNC, STATX_TYPE, &sx)) {
		if (errno == ENOTCONN)
			fprintf(stderr,
				"tierfs: '%s' is a stale FUSE mount (its daemon is gone); clear it "
				"with: fusermount3 -u %s\n",
				mp, mp);
		else if (errno == ENOENT)
			fprintf(stderr, "tierfs: mountpoint '%s' does not exist (create it first)\n",
				mp);
		else
			fprintf(stderr, "tierfs: mountpoint '%s': %s\n", mp, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sx.stx_mode)) {
		fprintf(stderr, "tierfs: mountpoint '%s' is not a directory\n", mp);
		return -1;
	}
	if (!realpath(mp, abs) || !(fs->mountpoint = strdup(abs))) {
		fprintf(stderr, "tierfs: mountpoint '%s': %s\n", mp, strerror(errno));
		return -1;
	}
	if (ts_mounted_at(fs->mountpoint, what, sizeof(what))) {
		fprintf(stderr,
			"tierfs: '%s' is already a mount point (%s); unmount it first: "
			"fusermount3 -u %s\n",
			fs->mountpoint, what, fs->mountpoint);
		return -1;
	}
	if (path_within(fs->backing, fs->mountpoint) || path_within(fs->mountpoint, fs->backing)) {
		fprintf(stderr,
			"tierfs: backing directory '%s' and mountpoint '%s' must not contain each "
			"other (requests would loop through the mount)\n",
			fs->backing, fs->mountpoint);
		return -1;
	}
	return 0;
}

/* fsname=BACKING, escaped for libfuse's option syntax. */
static int add_fsname(struct fuse_args *args, const char *backing)
{
	size_t n = strlen(backing);
	char *s = malloc(2 * n + 16);
	char *w;
	int rc;

	if (!s)
		return -1;
	w = s + sprintf(s, "-ofsname=");
	for (const char *r = backing; *r; r++) {
		if (*r == ',' || *r == '\\')
			*w++ = '\\';
		*w++ = *r;
	}
	*w = 0;
	rc = fuse_opt_add_arg(args, s);
	free(s);
	return rc;
}

static bool has_arg(const struct fuse_args *args, const char *needle)
{
	for (int i = 0; i < args->argc; i++)
		if (strstr(args->argv[i], needle))
			return true;
	return false;
}

static int list_tiers(int argc, char **argv)
{
	const char *profile = NULL;
	uint64_t capacity = 0;
	char err[512];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		bool cap = strncmp(a, "--capacity", 10) == 0;
		bool prof = strncmp(a, "--profile", 9) == 0;
		size_t n = cap ? 10 : 9;
		if (strcmp(a, "--list-tiers") == 0)
			continue;
		if ((cap || prof) && a[n] == '=')
			val = a + n + 1;
		else if ((cap || prof) && a[n] == 0 && i + 1 < argc)
			val = argv[++i];
		if (!val) {
			fprintf(stderr, "tierfs: --list-tiers: unexpected argument '%s' (expected "
					"--capacity SIZE or --profile FILE)\n",
				a);
			return 1;
		}
		if (prof) {
			profile = val;
		} else if (ts_parse_size(val, &capacity)) {
			fprintf(stderr, "tierfs: --capacity: cannot parse '%s' (a size such as "
					"500GiB)\n",
				val);
			return 1;
		}
	}
	if (ts_fs_list_tiers(stdout, profile, capacity, err, sizeof(err))) {
		fprintf(stderr, "tierfs: %s\n", err);
		return 1;
	}
	return 0;
}

/* How long a failed start waits for its daemon to end. */
#define DAEMON_END_WAIT_MS 30000

/* A daemon that failed stops itself (calib.c's ready(): SIGTERM to its
 * own loop, then the teardown): wait until it has ended, so that when
 * tierfs exits 1 nothing it started is still running (a caller that
 * checks, as tests/disk/errors.sh does, could otherwise see the daemon
 * mid-teardown). Bounded; a kernel without pidfd_open (before 5.3) is not
 * waited on. */
static void wait_daemon_end(pid_t pid)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd >= 0) {
		struct pollfd p = { .fd = pfd, .events = POLLIN };
		while (poll(&p, 1, DAEMON_END_WAIT_MS) < 0 && errno == EINTR)
			;
		close(pfd);
	}
	(void)waitpid(pid, NULL, WNOHANG);
}

/* Fork; the parent waits until the child reports the mount ready (or
 * failed), and unmounts if the child could not finish, then waits for the
 * child to end. Returns in the child only. */
static void daemonize(struct ts_fs *fs, struct fuse *f)
{
	int p[2];
	char status = 1;

	if (pipe2(p, O_CLOEXEC)) {
		fprintf(stderr, "tierfs: pipe: %s\n", strerror(errno));
		fuse_unmount(f);
		exit(1);
	}
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "tierfs: fork: %s\n", strerror(errno));
		fuse_unmount(f);
		exit(1);
	}
	if (pid > 0) {
		close(p[1]);
		while (read(p[0], &status, 1) < 0 && errno == EINTR)
			;
		if (status != 0) {
			fprintf(stderr, "tierfs: %s was not mounted\n", fs->mountpoint);
			fuse_unmount(f);
			wait_daemon_end(pid);
		}
		_exit(status ? 1 : 0);
	}
	close(p[0]);
	fs->ready_fd = p[1];
	fs->daemonized = true;
	openlog("tierfs", LOG_PID, LOG_DAEMON);
	setsid();
	if (chdir("/")) {
		/* "/" always exists; nothing to do. */
	}
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		close(nul);
	}
}

/* The options read and checked, the backing and mount point prepared, the
 * model made once to check the tier: before anything is mounted. 0 or -1
 * (said on stderr). */
static int configure(struct ts_fs *fs, struct fuse_args *args, struct cmdline *cl)
{
	char err[512];
	if (ts_opt_defaults(ts_fs_opt_table, &fs->o, err, sizeof(err)) ||
	    ts_opt_defaults(ts_tier_cfg_opts, &fs->cfg, err, sizeof(err))) {
		fprintf(stderr, "tierfs: %s\n", err);
		return -1;
	}
	if (fuse_opt_parse(args, cl, NULL, opt_proc)) {
		fprintf(stderr, "tierfs: cannot parse the command line\n");
		return -1;
	}
	if (cl->rc) {
		fprintf(stderr, "tierfs: %s\n", cl->err);
		return -1;
	}
	if (cl->npos != 2) {
		fprintf(stderr, "tierfs: expected BACKING and MOUNTPOINT (tierfs --help)\n");
		return -1;
	}
	if (!fs->o.bare && !fs->o.tier) {
		fprintf(stderr, "tierfs: option 'tier' is required: -o tier=NAME (tierfs --list-tiers "
				"shows the names)\n");
		return -1;
	}
	if (strcmp(fs->o.cache, "cold") && strcmp(fs->o.cache, "warm") &&
	    strcmp(fs->o.cache, "written")) {
		fprintf(stderr, "tierfs: option 'cache': '%s' is not cold, warm or written\n",
			fs->o.cache);
		return -1;
	}
	fs->loop_hop_label = "off";
	if (!strcmp(fs->o.loop_hop, "measure")) {
		fs->loop_hop_label = "measured";
	} else if (strcmp(fs->o.loop_hop, "off")) {
		if (ts_parse_duration(fs->o.loop_hop, TS_NS_PER_US, &fs->loop_hop_ns) ||
		    fs->loop_hop_ns > TS_NS_PER_S) {
			fprintf(stderr, "tierfs: option 'loop_hop': '%s' is not measure, off or a "
					"duration up to 1s (such as 40us)\n",
				fs->o.loop_hop);
			return -1;
		}
		fs->loop_hop_label = "given";
	}
	if (fs->o.bare && strcmp(fs->o.loop_hop, "off")) {
		fprintf(stderr, "tierfs: option 'loop_hop' needs a tier model, which a bare mount "
				"does not have\n");
		return -1;
	}
	if (strcmp(fs->o.kernel_cache, "small") && strcmp(fs->o.kernel_cache, "all") &&
	    strcmp(fs->o.kernel_cache, "off")) {
		fprintf(stderr, "tierfs: option 'kernel_cache': '%s' is not small, all or off\n",
			fs->o.kernel_cache);
		return -1;
	}
	if (strcmp(fs->o.loop_issue, "off") && strcmp(fs->o.loop_issue, "on") &&
	    strcmp(fs->o.loop_issue, "watch")) {
		fprintf(stderr, "tierfs: option 'loop_issue': '%s' is not on, off or watch\n",
			fs->o.loop_issue);
		return -1;
	}
	if (strcmp(fs->o.loop_issue, "off") && !fs->o.image) {
		fprintf(stderr, "tierfs: option 'loop_issue' is block mode's (with image): it "
				"times a loop device's requests over the image\n");
		return -1;
	}
	fs->issue_watch = !strcmp(fs->o.loop_issue, "watch");
	fs->loop_issue_label = "off";
	if (fs->o.bare && fs->o.image) {
		fprintf(stderr, "tierfs: option 'image' needs a tier model, which a bare mount "
				"does not have\n");
		return -1;
	}
	if (fs->o.bare && strcmp(fs->o.cache, "cold")) {
		fprintf(stderr, "tierfs: option 'cache': a bare mount has no page-cache model\n");
		return -1;
	}
	/* A bare mount has no model: an option only the model reads would be
	 * dropped unsaid, so it is refused, naming it. */
	const char *model_only = !fs->o.bare	       ? NULL
				 : fs->o.tier	       ? "tier"
				 : fs->o.profile       ? "profile"
				 : fs->o.trace	       ? "trace"
				 : fs->cfg.capacity    ? "capacity"
				 : fs->cfg.mem	       ? "mem"
							: NULL;
	if (model_only) {
		fprintf(stderr, "tierfs: option '%s' needs a tier model, which a bare mount does not "
				"have (drop '%s' or 'bare')\n",
			model_only, model_only);
		return -1;
	}
	ts_tier_ebs_of(&fs->o.ebs, &fs->cfg.ebs);
	if (fs->o.bare && ts_tier_ebs_any(&fs->cfg.ebs)) {
		fprintf(stderr, "tierfs: options 'ebs_*' need a tier model, which a bare mount does "
				"not have\n");
		return -1;
	}
	if (fs->o.bare && fs->o.fault) {
		fprintf(stderr, "tierfs: option 'fault' needs a tier: a bare mount has no model to "
				"inject faults (use tier=unlimited to inject them without throttling)\n");
		return -1;
	}
	if (prepare(fs, cl->pos[0], cl->pos[1]))
		return -1;
	/* The caller's umask has been applied by the kernel already: the
	 * daemon's own must not be applied on top of it. */
	umask(0);
	if (geteuid() == 0) {
		int n = getgroups(0, NULL);
		fs->groups = calloc((size_t)(n > 0 ? n : 1), sizeof(*fs->groups));
		if (n < 0 || !fs->groups || (fs->ngroups = getgroups(n, fs->groups)) < 0) {
			fprintf(stderr, "tierfs: getgroups: %s\n", strerror(errno));
			return -1;
		}
		fs->as_caller = true;
	}
	if (fs->o.trace && ts_fs_trace_check(fs, err, sizeof(err))) {
		fprintf(stderr, "tierfs: %s\n", err);
		return -1;
	}
	/* The tier and profile are checked now, before anything is mounted;
	 * the model is made again once the FUSE floor is measured. */
	if (!fs->o.bare && ts_fs_model_open(fs, err, sizeof(err))) {
		fprintf(stderr, "tierfs: %s\n", err);
		return -1;
	}

	return 0;
}

/* Runs the request loop until an unmount or a stop signal: 0 after a
 * clean stop, 1 otherwise. */
static int serve(struct ts_fs *fs, struct fuse *f, const struct fuse_cmdline_opts *cmd)
{
	int ret;
	fs->single = cmd->singlethread;
	if (cmd->singlethread) {
		ret = fuse_loop(f);
		/* The loop ends with the signal's number after
		 * SIGINT/SIGTERM/SIGHUP: a clean unmount. */
		if (ret == SIGINT || ret == SIGTERM || ret == SIGHUP)
			ret = 0;
	} else {
		struct ts_fs_workers_cfg wc = {
			.fs = fs,
			.max_threads = cmd->max_threads,
			/* UINT_MAX: "-1", keep every idle worker */
			.max_idle = cmd->max_idle_threads == UINT_MAX ? -1
								      : (int)cmd->max_idle_threads,
			.idle_ns = fs->o.idle_timeout_ns,
		};
		ret = ts_fs_workers_run(f, &wc);
		if (ret)
			ts_fs_log(fs, LOG_ERR, "tierfs: the request loop failed: %s",
				  strerror(-ret));
	}
	/* A clean unmount, unless the mount never became ready. */
	return ret == 0 && !fs->failed ? 0 : 1;
}

/*
 * Why one long function: the daemon's set-up and teardown as one sequence
 * (options, model, mount, signal handlers, loop, unmount), ordered by the
 * signal and mount rules in the comments below; each failure unwinds the
 * steps before it (unmount:, out:).
 */
int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts cmd = { 0 };
	struct ts_fs *fs = calloc(1, sizeof(*fs));
	struct cmdline cl = { 0 };
	bool handlers = false; /* libfuse's SIGINT/SIGTERM/SIGHUP handlers installed */
	struct fuse *f = NULL;
	int ret = 1;

	if (!fs)
		return 1;
	fs->root = -1;
	fs->ready_fd = -1;
	pthread_mutex_init(&fs->open_lock, NULL);
	fs->calib_fd = memfd_create("tierfs-calib", MFD_CLOEXEC);
	if (fs->calib_fd < 0 || ftruncate(fs->calib_fd, TS_FS_CALIB_FILE_SIZE)) {
		fprintf(stderr, "tierfs: memfd_create: %s\n", strerror(errno));
		goto out;
	}
	fs->start_ns = ts_now_ns();
	for (int i = 0; i < TS_FS_OP_NR; i++)
		ts_hist_init(&fs->stat[i].lat);
	/* Sleeps end when the model says, not up to 50 us later (the default
	 * timer slack); threads created later inherit this. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	/* Read buffers (up to 1 MiB each) come from the heap and are reused,
	 * rather than mmap'd and faulted in for every request. */
	mallopt(M_MMAP_THRESHOLD, 8 << 20);

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--list-tiers") == 0) {
			free(fs);
			return list_tiers(argc, argv);
		}
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			free(fs);
			return 0;
		}
		if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0) {
			printf("tierfs %s (libfuse %s)\n", TS_VERSION, fuse_pkgversion());
			free(fs);
			return 0;
		}
	}

	cl.fs = fs;
	if (configure(fs, &args, &cl))
		goto out;

	/* The kernel caches attributes for TS_FS_ATTR_TIMEOUT, as a kernel
	 * file system keeps its inodes (a user's -o attr_timeout= comes later
	 * and wins): a stat() of a file it has looked up costs no round trip.
	 * What an op changes behind a name the kernel holds (the other names
	 * of a hard-linked file) is invalidated (names.c). Names stay cached
	 * for libfuse's default 1 s, missing ones not at all.
	 * The kernel checks every access against the file modes
	 * (default_permissions, always on): with allow_other a root daemon
	 * must not open to everyone what the modes close. */
	if (fuse_opt_insert_arg(&args, 1,
				"-oattr_timeout=" TS_FS_ATTR_TIMEOUT
				",negative_timeout=0,default_permissions") ||
	    fuse_opt_add_arg(&args, fs->mountpoint) ||
	    (!has_arg(&args, "fsname=") && add_fsname(&args, fs->backing))) {
		fprintf(stderr, "tierfs: out of memory\n");
		goto out;
	}
	/* Looked for before fuse_parse_cmdline, which takes the options out. */
	bool threads_given = has_arg(&args, "max_threads=");
	bool idle_given = has_arg(&args, "max_idle_threads=");
	if (fuse_parse_cmdline(&args, &cmd))
		goto out;
	/* The pool: TS_FS_MAX_THREADS above. libfuse reads both as unsigned,
	 * so "-1" arrives as UINT_MAX: for max_idle_threads that is libfuse's
	 * own "keep every idle worker", for max_threads a count it would take
	 * as -1 (no worker ever started). */
	if (!threads_given && cmd.max_threads < TS_FS_MAX_THREADS)
		cmd.max_threads = TS_FS_MAX_THREADS;
	if (cmd.max_threads < 1 || cmd.max_threads > TS_FS_THREADS_LIMIT) {
		fprintf(stderr, "tierfs: option 'max_threads': %s (give 1 to %d; the default is %d)\n",
			cmd.max_threads < 1 ? "0 threads cannot serve a request" : "too many threads",
			TS_FS_THREADS_LIMIT, TS_FS_MAX_THREADS);
		goto out;
	}
	if (cmd.clone_fd && !cmd.singlethread) {
		fprintf(stderr, "tierfs: option 'clone_fd' is not supported: tierfs's workers "
				"share the one device descriptor (leave it out)\n");
		goto out;
	}
	if (!idle_given) {
		cmd.max_idle_threads = TS_FS_MAX_IDLE_THREADS < cmd.max_threads
					       ? TS_FS_MAX_IDLE_THREADS
					       : cmd.max_threads;
	} else if (cmd.max_idle_threads != UINT_MAX && cmd.max_idle_threads > cmd.max_threads) {
		fprintf(stderr, "tierfs: option 'max_idle_threads': %u is more than max_threads=%u "
				"(give 0 to %u, or -1 to keep every idle worker; the default is %d)\n",
			cmd.max_idle_threads, cmd.max_threads, cmd.max_threads,
			TS_FS_MAX_IDLE_THREADS);
		goto out;
	}
	f = fuse_new(&args, &ts_fs_fuse_ops, sizeof(ts_fs_fuse_ops), fs);
	if (!f)
		goto out;
	/* From the mount until the handlers are in place a SIGINT/SIGTERM would
	 * kill the daemon and leave a dead mount: hold them until then. */
	sigset_t stop_sigs, old_mask;
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	sigaddset(&stop_sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop_sigs, &old_mask);
	if (fuse_mount(f, fs->mountpoint)) {
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		fprintf(stderr, "tierfs: cannot mount on '%s'\n", fs->mountpoint);
		goto out;
	}
	if (!cmd.foreground)
		daemonize(fs, f);
	/* After the fork: a thread started before it does not exist in the
	 * daemon, and a lock it held there stays held. */
	if (ts_fs_names_start(fs, !cmd.singlethread && cmd.max_threads > 1)) {
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		ts_fs_log(fs, LOG_ERR, "tierfs: cannot start the attribute-invalidation thread");
		goto unmount;
	}
	int hrc = fuse_set_signal_handlers(fuse_get_session(f));
	sigprocmask(SIG_SETMASK, &old_mask, NULL); /* a held signal now ends the loop */
	handlers = hrc == 0;
	if (hrc) {
		ts_fs_log(fs, LOG_ERR, "tierfs: cannot install signal handlers");
		goto unmount;
	}
	ret = serve(fs, f, &cmd);
unmount:
	__atomic_store_n(&fs->stopping, true, __ATOMIC_RELEASE);
	fuse_unmount(f);
	/* A stop during the self-calibration makes its reads fail, and it then
	 * signals the daemon to stop: keep libfuse's handlers until it has
	 * ended, or that SIGTERM would kill the process mid-teardown. */
	ts_fs_calib_join(fs);
	if (handlers)
		fuse_remove_signal_handlers(fuse_get_session(f));
	ts_fs_trace_close(fs);
	ts_fs_log(fs, LOG_INFO, "tierfs: %s unmounted", fs->mountpoint);
out:
	/* The model's invalidation thread and the names' use f: stop them
	 * first. */
	ts_fs_model_close(fs);
	ts_issue_close(fs->issue);
	fs->issue = NULL;
	ts_fs_names_stop(fs);
	if (f)
		fuse_destroy(f);
	ts_fs_files_free(fs);
	fuse_opt_free_args(&args);
	free(cmd.mountpoint);
	if (fs->root >= 0)
		close(fs->root);
	if (fs->ready_fd >= 0)
		close(fs->ready_fd);
	close(fs->calib_fd);
	ts_opt_free(ts_fs_opt_table, &fs->o);
	ts_opt_free(ts_tier_cfg_opts, &fs->cfg);
	free(fs->groups);
	free(fs->backing);
	free(fs->mountpoint);
	free(fs);
	return ret;
}
