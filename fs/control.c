/*
 * control.c — request accounting and the control directory MOUNT/.tierfs.
 *
 * MOUNT/.tierfs is served by the daemon itself (a .tierfs in BACKING's root
 * is shadowed) and is left out of the root's listing; open it by name:
 *
 *   .tierfs/stats    read-only JSON, a snapshot taken at open(): tierfs's
 *                    per-op counters (count, errors, bytes, latency mean,
 *                    p50/p99/p99.9/max from arrival to reply) and in-flight
 *                    requests, plus the tier model's own stats (bucket
 *                    levels, cache hit ratio, queue depth) under "model".
 *   .tierfs/control  read: the current settings, one key=value a line;
 *                    write: commands, e.g. `echo tier=aws-gp3 > control`,
 *                    `echo "tier=essd-pl1 capacity=2TiB" > control`,
 *                    `echo fault=read:EIO:path=*.rec > control`,
 *                    `echo fault=clear > control`, `echo numbering=walk >
 *                    control` (a walk held by TIERFS_NUMBER_GATE=1 goes
 *                    on, fs/timing.c). A bad command fails the
 *                    write with EINVAL and changes nothing; the reason is
 *                    in stats ("control_error").
 *   .tierfs/calib    1 MiB of zeros the self-calibration reads at mount,
 *                    each read held for TS_FS_CALIB_SLEEP_NS; through the
 *                    page cache unless opened with O_DIRECT.
 *
 * Counters are relaxed atomics and the latency histograms are lock-free
 * (core/hist.h): nothing here takes a lock on the request path.
 */
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "disk/issue.h"
#include "fs/daemon.h"

static const char *const op_names[TS_FS_OP_NR] = {
	[TS_FS_GETATTR] = "getattr",	   [TS_FS_READLINK] = "readlink",
	[TS_FS_MKNOD] = "mknod",	   [TS_FS_MKDIR] = "mkdir",
	[TS_FS_UNLINK] = "unlink",	   [TS_FS_RMDIR] = "rmdir",
	[TS_FS_SYMLINK] = "symlink",	   [TS_FS_RENAME] = "rename",
	[TS_FS_LINK] = "link",		   [TS_FS_CHMOD] = "chmod",
	[TS_FS_CHOWN] = "chown",	   [TS_FS_TRUNCATE] = "truncate",
	[TS_FS_OPEN] = "open",		   [TS_FS_CREATE] = "create",
	[TS_FS_READ] = TS_STATS_KEY_READ,  [TS_FS_WRITE] = TS_STATS_KEY_WRITE,
	[TS_FS_STATFS] = "statfs",	   [TS_FS_FLUSH] = "flush",
	[TS_FS_RELEASE] = "release",	   [TS_FS_FSYNC] = "fsync",
	[TS_FS_FDATASYNC] = "fdatasync",
	[TS_FS_OPENDIR] = "opendir",	   [TS_FS_READDIR] = "readdir",
	[TS_FS_RELEASEDIR] = "releasedir", [TS_FS_ACCESS] = "access",
	[TS_FS_UTIMENS] = "utimens",	   [TS_FS_FALLOCATE] = "fallocate",
};

const char *ts_fs_op_name(enum ts_fs_op op)
{
	return op < TS_FS_OP_NR ? op_names[op] : "?";
}

#define RELAXED __ATOMIC_RELAXED

void ts_fs_req_begin(struct ts_fs *fs, struct ts_fs_req *r, enum ts_fs_op op, const char *path,
		     const struct ts_fs_file *f, uint64_t off, uint64_t len)
{
	ts_fs_req_begin2(fs, r, op, path, NULL, f, off, len);
}

void ts_fs_req_begin2(struct ts_fs *fs, struct ts_fs_req *r, enum ts_fs_op op, const char *path,
		      const char *path2, const struct ts_fs_file *f, uint64_t off, uint64_t len)
{
	r->op = op;
	r->fault = 0;
	r->path2 = path2;
	if (fs->o.bare)
		return;
	/* Until the floor is measured and the model made (a few tens of ms
	 * after the mount appears), hold requests the model charges rather
	 * than serve them unmodeled; give up waiting after 10 s (calib.c
	 * reports why). Free ones (getattr...) pass: the calibration's own
	 * path walk may need them; so does everything with -s, where holding
	 * the one thread would hold the calibration too. */
	for (int i = 0; i < 10000 && !fs->single && ts_fs_model_charges(op) &&
			!__atomic_load_n(&fs->calibrated, __ATOMIC_ACQUIRE);
	     i++) {
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	r->path = path;
	r->file_id = f ? f->ino : 0;
	r->off = off;
	r->len = len;
	r->file_size = f ? __atomic_load_n(&f->size, RELAXED) : 0;
	r->result = 0;
	r->ino = 0;
	r->mode = 0;
	r->model_path = path ? path : f && f->kind == TS_FS_FILE ? f->path : NULL;
	r->direct = (op == TS_FS_READ || op == TS_FS_WRITE) && f &&
		    __atomic_load_n(&f->direct, RELAXED);
	r->kernel_ra = op == TS_FS_READ && f && f->cached;
	r->tid = fuse_get_context()->pid;
	r->cpu_state = TS_FS_CPU_UNDECIDED;
	r->issue_ns = 0;
	r->issue_end_ns = 0;
	r->issue_used = false;
	r->issue_off_ns = 0;
	r->submit_ns = ts_now_ns();
	uint64_t q = __atomic_add_fetch(&fs->inflight, 1, RELAXED);
	uint64_t m = __atomic_load_n(&fs->max_inflight, RELAXED);
	while (q > m && !__atomic_compare_exchange_n(&fs->max_inflight, &m, q, true, RELAXED,
						     RELAXED))
		;
	r->due_ns = ts_fs_model_submit(fs, r);
}

/*
 * carry=: the floor (the FUSE round trip) is taken off each request's
 * modeled latency, never below 0, so a request the model charges less
 * than a round trip (a getattr, which it does not charge; an open of an
 * inode the file system holds; a page-cache hit) costs the job a round
 * trip that a kernel file system's job does not pay: per JPEG of a
 * folder loader, its lookup and its open. What a thread so owes is taken
 * off its next reply that waits on the model (the reply goes that much
 * before the model's completion; the model's own clock is untouched), up
 * to TS_FS_CARRY_MAX round trips owed (assumed; a thread that makes many
 * free requests before a charged one is paid only those). A request that
 * waits has its round trip absorbed by its own latency and owes nothing.
 * Threads share slots by tid modulo the table's size: a thread that
 * takes another's slot starts at 0 (the other's debt is dropped).
 */
#define TS_FS_CARRY_MAX 8
#define CARRY_NS_MASK ((UINT64_C(1) << 40) - 1)

static bool carry_on(const struct ts_fs *fs, const struct ts_fs_req *r)
{
	return fs->o.carry && !fs->o.image && r->tid > 0 && fs->floor_ns &&
	       __atomic_load_n(&fs->calibrated, __ATOMIC_ACQUIRE);
}

/* Owes one more round trip (up to the cap). */
static void carry_add(struct ts_fs *fs, uint64_t tid)
{
	uint64_t *s = &fs->carry_slot[tid % TS_FS_CARRY_SLOTS];
	uint64_t cur = __atomic_load_n(s, RELAXED), want;
	do {
		uint64_t owed = cur >> 40 == (tid & 0xffffff) ? cur & CARRY_NS_MASK : 0;
		owed = TS_MIN(owed + fs->floor_ns, TS_FS_CARRY_MAX * fs->floor_ns);
		want = (tid & 0xffffff) << 40 | (owed & CARRY_NS_MASK);
	} while (!__atomic_compare_exchange_n(s, &cur, want, true, RELAXED, RELAXED));
}

/* Takes up to @most of what the thread owes. */
static uint64_t carry_take(struct ts_fs *fs, uint64_t tid, uint64_t most)
{
	uint64_t *s = &fs->carry_slot[tid % TS_FS_CARRY_SLOTS];
	uint64_t cur = __atomic_load_n(s, RELAXED), take;
	do {
		if (cur >> 40 != (tid & 0xffffff) || !(cur & CARRY_NS_MASK))
			return 0;
		take = TS_MIN(cur & CARRY_NS_MASK, most);
	} while (!__atomic_compare_exchange_n(s, &cur, cur - take, true, RELAXED, RELAXED));
	return take;
}

int ts_fs_req_end(struct ts_fs *fs, struct ts_fs_req *r, int64_t result)
{
	if (fs->o.bare)
		return (int)result;
	r->complete_ns = r->sys_ns = ts_now_ns();
	if (carry_on(fs, r)) {
		if (r->due_ns > r->complete_ns) {
			uint64_t take = carry_take(fs, (uint64_t)r->tid,
						   r->due_ns - r->complete_ns);
			if (take) {
				r->due_ns -= take;
				__atomic_add_fetch(&fs->carried, 1, RELAXED);
				__atomic_add_fetch(&fs->carried_ns, take, RELAXED);
			}
		} else {
			carry_add(fs, (uint64_t)r->tid);
		}
	}
	if (r->due_ns > r->complete_ns) {
		/* the trace's CPU sample costs nothing while the model's
		 * latency elapses */
		if (__atomic_load_n(&fs->trace, __ATOMIC_ACQUIRE))
			ts_fs_trace_sample(fs, r);
		ts_sleep_until_ns(r->due_ns);
		r->complete_ns = ts_now_ns();
	}
	r->result = result;

	struct ts_fs_opstat *s = &fs->stat[r->op];
	__atomic_add_fetch(&s->count, 1, RELAXED);
	if (result < 0)
		__atomic_add_fetch(&s->errors, 1, RELAXED);
	else if (r->op == TS_FS_READ || r->op == TS_FS_WRITE)
		__atomic_add_fetch(&s->bytes, (uint64_t)result, RELAXED);
	ts_hist_add(&s->lat, r->complete_ns - r->submit_ns);
	__atomic_sub_fetch(&fs->inflight, 1, RELAXED);

	/* Trace hook: *r is the completed request (op, path, file id,
	 * offset, length, result, submit/complete ns, tid). */
	ts_fs_trace_put(fs, r);
	/* block mode's request clock: the reply goes now; its hop to the
	 * loop device's completion and its lateness are measured from here */
	if (r->issue_ns)
		ts_issue_replied(fs->issue, r->off, r->issue_ns, r->issue_end_ns, r->issue_used,
				 r->due_ns, r->sys_ns, ts_now_ns());
	return (int)result;
}

/* ---- the control directory ---- */

static const struct {
	const char *name;
	enum ts_fs_ctl kind;
	mode_t mode;
} ctl_files[] = {
	{ "stats", TS_FS_CTL_STATS, S_IFREG | 0444 },
	{ "control", TS_FS_CTL_CONTROL, S_IFREG | 0644 },
	{ "calib", TS_FS_CTL_CALIB, S_IFREG | 0444 },
};

enum ts_fs_ctl ts_fs_ctl_kind(const char *path)
{
	static const char prefix[] = "/" TS_FS_CTL_NAME;
	const size_t n = sizeof(prefix) - 1;

	if (strncmp(path, prefix, n) != 0)
		return TS_FS_CTL_NONE;
	if (path[n] == 0)
		return TS_FS_CTL_DIR;
	if (path[n] != '/')
		return TS_FS_CTL_NONE;
	for (size_t i = 0; i < TS_ARRAY_SIZE(ctl_files); i++)
		if (strcmp(path + n + 1, ctl_files[i].name) == 0)
			return ctl_files[i].kind;
	return TS_FS_CTL_MISSING;
}

int ts_fs_ctl_getattr(struct ts_fs *fs, enum ts_fs_ctl k, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_nlink = 1;
	st->st_blksize = 4096;
	st->st_mtim.tv_sec = st->st_ctim.tv_sec = st->st_atim.tv_sec =
		(time_t)((ts_wall_ns() - (ts_now_ns() - fs->start_ns)) / TS_NS_PER_S);
	/* Inode numbers far from any backing file's (use_ino is on). */
	st->st_ino = UINT64_MAX - 16 + (uint64_t)k;
	if (k == TS_FS_CTL_DIR) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		return 0;
	}
	for (size_t i = 0; i < TS_ARRAY_SIZE(ctl_files); i++)
		if (ctl_files[i].kind == k) {
			st->st_mode = ctl_files[i].mode;
			st->st_size = k == TS_FS_CTL_CALIB ? TS_FS_CALIB_FILE_SIZE : 0;
			return 0;
		}
	return -ENOENT;
}

int ts_fs_ctl_open(struct ts_fs *fs, enum ts_fs_ctl k, struct fuse_file_info *fi)
{
	int acc = fi->flags & O_ACCMODE;
	struct ts_fs_file *f;

	if (k == TS_FS_CTL_MISSING)
		return -ENOENT;
	if (acc != O_RDONLY && k != TS_FS_CTL_CONTROL)
		return -EACCES;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->fd = -1;
	switch (k) {
	case TS_FS_CTL_DIR: f->kind = TS_FS_CTLDIR; break;
	case TS_FS_CTL_CALIB:
		f->kind = TS_FS_CALIB;
		break;
	case TS_FS_CTL_STATS:
		f->kind = TS_FS_STATS;
		f->buf = ts_fs_stats_json(fs);
		break;
	default:
		f->kind = TS_FS_CONTROL;
		f->buf = ts_fs_model_describe(fs);
		break;
	}
	if ((f->kind == TS_FS_STATS || f->kind == TS_FS_CONTROL) && !f->buf) {
		free(f);
		return -ENOMEM;
	}
	f->len = f->buf ? strlen(f->buf) : 0;
	/* The size is only known once generated: serve it uncached, so read()
	 * returns what there is whatever st_size said. The calibration file's
	 * size is fixed: opened without O_DIRECT it goes through the page
	 * cache, with the kernel's readahead (the loop hop's window part,
	 * calib.c). */
	fi->direct_io = f->kind != TS_FS_CALIB || (fi->flags & O_DIRECT);
	fi->fh = (uintptr_t)f;
	return 0;
}

int ts_fs_ctl_read(struct ts_fs *fs, struct ts_fs_file *f, char *buf, size_t size, off_t off)
{
	if (f->kind == TS_FS_CALIB) {
		/* What a modeled read does, with a fixed latency: read the
		 * bytes from a file in memory, sleep, reply (see calib.c). */
		uint64_t due = ts_now_ns() + TS_FS_CALIB_SLEEP_NS;
		if (off >= TS_FS_CALIB_FILE_SIZE)
			return 0;
		size = TS_MIN(size, (size_t)(TS_FS_CALIB_FILE_SIZE - off));
		ssize_t n = pread(fs->calib_fd, buf, size, off);
		if (n < 0)
			return -errno;
		ts_sleep_until_ns(due);
		return (int)n;
	}
	if (f->kind != TS_FS_STATS && f->kind != TS_FS_CONTROL)
		return -EISDIR;
	if ((size_t)off >= f->len)
		return 0;
	size = TS_MIN(size, f->len - (size_t)off);
	memcpy(buf, f->buf + off, size);
	return (int)size;
}

int ts_fs_ctl_write(struct ts_fs *fs, struct ts_fs_file *f, const char *buf, size_t size)
{
	char cmd[4096];
	char err[256];

	(void)f;
	if (size >= sizeof(cmd))
		return -EFBIG;
	memcpy(cmd, buf, size);
	cmd[size] = 0;
	int rc = ts_fs_model_command(fs, cmd, err, sizeof(err));
	if (rc)
		return rc == -ENOMEM ? rc : -EINVAL;
	return (int)size;
}

int ts_fs_ctl_readdir(void *buf, fuse_fill_dir_t filler)
{
	struct stat st = { .st_mode = S_IFDIR };

	filler(buf, ".", &st, 0, 0);
	filler(buf, "..", &st, 0, 0);
	st.st_mode = S_IFREG;
	for (size_t i = 0; i < TS_ARRAY_SIZE(ctl_files); i++)
		filler(buf, ctl_files[i].name, &st, 0, 0);
	return 0;
}

/* ---- the stats document ---- */

static json_t *opstat_json(const struct ts_fs_opstat *s)
{
	struct ts_hist *h = malloc(sizeof(*h));
	json_t *o;

	if (!h)
		return NULL;
	ts_hist_snapshot(&s->lat, h);
	o = json_pack("{s:I, s:I, s:I, s:{s:f, s:I, s:I, s:I, s:I}}", TS_STATS_KEY_COUNT,
		      (json_int_t)__atomic_load_n(&s->count, RELAXED), TS_STATS_KEY_ERRORS,
		      (json_int_t)__atomic_load_n(&s->errors, RELAXED), TS_STATS_KEY_BYTES,
		      (json_int_t)__atomic_load_n(&s->bytes, RELAXED), "lat_ns", "mean",
		      ts_hist_mean(h), "p50", (json_int_t)ts_hist_percentile(h, 50), "p99",
		      (json_int_t)ts_hist_percentile(h, 99), "p99.9",
		      (json_int_t)ts_hist_percentile(h, 99.9), "max",
		      (json_int_t)(h->count ? h->max : 0));
	free(h);
	return o;
}

char *ts_fs_stats_json(struct ts_fs *fs)
{
	json_t *root = json_object();
	json_t *ops = json_object();
	json_t *model = ts_fs_model_stats(fs);
	char *text = NULL;
	char cerr[256];

	if (!root || !ops)
		goto out;
	json_object_set_new(root, "version", json_string(TS_VERSION));
	json_object_set_new(root, "pid", json_integer(getpid()));
	json_object_set_new(root, "backing", json_string(fs->backing));
	json_object_set_new(root, "mountpoint", json_string(fs->mountpoint));
	json_object_set_new(root, "tier", fs->o.bare ? json_null() : json_string(ts_fs_model_tier(fs)));
	json_object_set_new(root, "bare", json_boolean(fs->o.bare));
	json_object_set_new(root, "calibrated",
			    json_boolean(__atomic_load_n(&fs->calibrated, __ATOMIC_ACQUIRE)));
	json_object_set_new(root, "floor_ns", json_integer((json_int_t)fs->floor_ns));
	/* carry=: replies moved earlier by round trips owed, and by how much */
	json_object_set_new(root, "carried",
			    json_integer((json_int_t)__atomic_load_n(&fs->carried, RELAXED)));
	json_object_set_new(root, "carried_ns",
			    json_integer((json_int_t)__atomic_load_n(&fs->carried_ns, RELAXED)));
	/* block mode's loop-device hop, taken off with the floor (calib.c) */
	json_object_set_new(root, "loop_hop_ns", json_integer((json_int_t)fs->loop_hop_ns));
	json_object_set_new(root, "loop_hop",
			    json_string(fs->loop_hop_label ? fs->loop_hop_label : "off"));
	json_object_set_new(root, "loop_hop_128k_ns", json_integer((json_int_t)fs->loop_hop_big_ns));
	json_object_set_new(root, "loop_hop_window_ns",
			    json_integer((json_int_t)fs->loop_hop_window_ns));
	/* block mode's request clock (disk/issue.h) */
	json_object_set_new(root, "loop_issue",
			    json_string(fs->loop_issue_label ? fs->loop_issue_label : "off"));
	if (fs->issue)
		json_object_set_new(root, "loop_issue_stats", ts_issue_stats_json(fs->issue));
	json_object_set_new(root, "uptime_ns", json_integer((json_int_t)(ts_now_ns() - fs->start_ns)));
	json_object_set_new(root, "inflight",
			    json_integer((json_int_t)__atomic_load_n(&fs->inflight, RELAXED)));
	json_object_set_new(root, "max_inflight",
			    json_integer((json_int_t)__atomic_load_n(&fs->max_inflight, RELAXED)));
	json_object_set_new(root, "invalidations",
			    json_integer((json_int_t)__atomic_load_n(&fs->invalidations, RELAXED)));
	json_object_set_new(root, "attr_invalidations",
			    json_integer((json_int_t)__atomic_load_n(&fs->attr_invalidations, RELAXED)));
	for (int i = 0; i < TS_FS_OP_NR; i++)
		json_object_set_new(ops, op_names[i], opstat_json(&fs->stat[i]));
	json_object_set(root, TS_STATS_KEY_OPS, ops);
	ts_fs_model_last_error(fs, cerr, sizeof(cerr));
	json_object_set_new(root, "control_error", json_string(cerr));
	json_object_set(root, TS_STATS_KEY_MODEL, model ? model : json_null());
	text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	if (text) {
		/* End with a newline, as text files do. */
		size_t n = strlen(text);
		char *t = realloc(text, n + 2);
		if (t) {
			t[n] = '\n';
			t[n + 1] = 0;
			text = t;
		}
	}
out:
	json_decref(model);
	json_decref(ops);
	json_decref(root);
	return text;
}
