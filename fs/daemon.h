/*
 * daemon.h — the state the tierfs daemon's parts share: the passthrough
 * (passthrough.c), the control files and per-op counters (control.c), the
 * tier model glue (timing.c) and the program (tierfs.c).
 *
 * Everything lives in one struct ts_fs that libfuse hands back through
 * fuse_get_context()->private_data; there are no file-scope globals.
 */
#ifndef TS_FS_DAEMON_H
#define TS_FS_DAEMON_H

#define FUSE_USE_VERSION 314

#include <dirent.h>
#include <fuse.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "core/hist.h"
#include "core/opt.h"
#include "core/ts.h"
#include "tier/tier.h"
#include "tier/tier_json.h"
#include "traces/trace.h"

/* Every request kind tierfs counts. The order is the order of the stats. */
enum ts_fs_op {
	TS_FS_GETATTR,
	TS_FS_READLINK,
	TS_FS_MKNOD,
	TS_FS_MKDIR,
	TS_FS_UNLINK,
	TS_FS_RMDIR,
	TS_FS_SYMLINK,
	TS_FS_RENAME,
	TS_FS_LINK,
	TS_FS_CHMOD,
	TS_FS_CHOWN,
	TS_FS_TRUNCATE,
	TS_FS_OPEN,
	TS_FS_CREATE,
	TS_FS_READ,
	TS_FS_WRITE,
	TS_FS_STATFS,
	TS_FS_FLUSH,
	TS_FS_RELEASE,
	TS_FS_FSYNC,
	TS_FS_FDATASYNC,
	TS_FS_OPENDIR,
	TS_FS_READDIR,
	TS_FS_RELEASEDIR,
	TS_FS_ACCESS,
	TS_FS_UTIMENS,
	TS_FS_FALLOCATE,
	TS_FS_OP_NR,
};

const char *ts_fs_op_name(enum ts_fs_op op);

/*
 * One request as the daemon sees it, from arrival to reply. ts_fs_req_begin()
 * stamps the arrival and asks the tier model for the completion time;
 * ts_fs_req_end() sleeps until then and records the outcome. At the end of
 * ts_fs_req_end() every field is final: that is the one place where a
 * completed request is known in full (the trace hook sits there).
 */
struct ts_fs_req {
	enum ts_fs_op op;
	const char *path; /* as libfuse gave it; NULL for an unlinked open file */
	uint64_t file_id; /* backing inode number, 0 when none */
	uint64_t off, len;
	uint64_t file_size;  /* as last known, 0 = unknown (bounds the model's readahead) */
	int64_t result;	     /* bytes transferred, 0, or -errno */
	uint64_t submit_ns;  /* arrival (CLOCK_MONOTONIC) */
	uint64_t due_ns;     /* the model's completion time; 0 = not modeled */
	uint64_t complete_ns; /* reply time */
	uint64_t sys_ns;      /* when the syscall itself ended (before any sleep to due_ns) */
	pid_t tid;	      /* the requesting thread, as the kernel reports it */
	uint64_t ino;	      /* open/create: the inode opened (names later fh-only ops in traces) */
	const char *path2;    /* rename/link: the new name (traces) */
	uint32_t mode;	      /* fallocate: its mode (traces) */
	const char *model_path; /* path, or the one the file was opened under (fault rules) */
	bool direct;	      /* read/write of a file the application opened O_DIRECT */
	bool kernel_ra;	      /* read of a file opened kernel-cached: the kernel's request,
			       * read ahead by the kernel already (ts_tier_req.kernel_ra) */
	uint64_t issue_ns;    /* block mode: the loop device issued it then (0: not known) */
	uint64_t issue_end_ns; /* and the model's completion from it (its time from the
				* receipt, where watched), 0 = none (disk/issue.h) */
	bool issue_used;      /* due_ns was scheduled from the issue */
	uint64_t issue_off_ns; /* and what its reply was moved earlier by (hop + lateness
				* means), for the trace */
	int fault;	      /* a -errno the model's fault layer chose; the op then fails
			       * with it without doing its syscall */
	/* with trace: the requester's CPU sample (trace_hook.c) */
	enum { TS_FS_CPU_UNDECIDED, TS_FS_CPU_NONE, TS_FS_CPU_READ, TS_FS_CPU_UNREAD } cpu_state;
	uint64_t cpu_owed; /* unread: the run's gaps so far, 1.024 us units */
	struct ts_trace_cpu cpu;
};

/* Per-op counters. Updated with relaxed atomics only: no lock on any path. */
struct ts_fs_opstat {
	uint64_t count;
	uint64_t errors;
	uint64_t bytes;
	struct ts_hist lat; /* arrival to reply, ns */
};

/* What a file handle (fi->fh) points at. */
enum ts_fs_kind {
	TS_FS_FILE,    /* a backing file */
	TS_FS_DIR,     /* a backing directory */
	TS_FS_STATS,   /* .tierfs/stats: a JSON snapshot taken at open */
	TS_FS_CONTROL, /* .tierfs/control: commands in, settings out */
	TS_FS_CALIB,   /* .tierfs/calib: 4 KiB read by the self-calibration */
	TS_FS_CTLDIR,  /* .tierfs itself */
};

struct ts_fs_file {
	enum ts_fs_kind kind;
	int fd;		/* TS_FS_FILE */
	uint64_t ino;	/* backing inode: the model's file id */
	uint64_t size;	/* size as last seen by this handle (relaxed atomics) */
	bool cached;	/* opened in kernel-cached mode (see timing.c) */
	bool per_open;	/* cached for this open only (kernel_cache=): on the open list
			 * for invalidation until released */
	bool direct;	/* the application's O_DIRECT, as the kernel last reported it */
	char *path;	/* TS_FS_FILE: the path it was opened under (fault rules) */
	DIR *dir;	/* TS_FS_DIR */
	struct dirent *next; /* TS_FS_DIR: an entry read but not yet returned */
	off_t dir_off;
	char *buf;	/* TS_FS_STATS / TS_FS_CONTROL: the text served */
	size_t len;
	/* Every handle sits on struct ts_fs's open list from open to release,
	 * so that the ones whose release never came are freed at exit. */
	struct ts_fs_file *open_prev, *open_next;
};

static inline struct ts_fs_file *ts_fs_file_of(const struct fuse_file_info *fi)
{
	return (struct ts_fs_file *)(uintptr_t)fi->fh;
}

/* The daemon's own options (ts_fs_opt_table in tierfs.c); the model's
 * numeric ones (capacity, mem, seed, floor...) are ts_tier_cfg_opts into
 * struct ts_fs.cfg. Both come from -o. */
struct ts_fs_opts {
	char *tier;
	char *profile;
	char *cached; /* ':'-separated globs opened in kernel-cached mode */
	char *kernel_cache; /* with mem > 0, other files kernel-cached too, their pages
			     * dropped at each open: small | all | off (timing.c) */
	bool carry; /* a round trip no modeled latency absorbed comes off the thread's
		     * next held reply (control.c) */
	char *trace;
	bool trace_cpu; /* with trace: CPU samples (trace_hook.c) */
	bool trace_cpu_every; /* with trace_cpu: read every request's clock */
	char *fault; /* ';'-separated fault rules (ts_tier_fault_parse) */
	bool bare;
	bool calib;
	char *cache;	 /* page-cache state at mount: cold | warm | written */
	char *warm_path; /* what cache= warms, under the backing; NULL = all of it */
	char *loop_hop;	 /* off | measure | a duration (fs/calib.c) */
	bool image; /* block mode: BACKING holds the image a loop device reads (timing.c) */
	char *loop_issue; /* block mode: off | on | watch: requests timed from the loop device's
			   * issue (disk/issue.h) */
	struct ts_tier_ebs_opts ebs; /* the instance's EBS limits, into cfg.ebs (aws-* tiers) */
	uint64_t idle_timeout_ns; /* a parked idle worker ends after this long (workers.c) */
};
extern const struct ts_opt ts_fs_opt_table[];

struct ts_fs_model; /* timing.c */
struct ts_issue;    /* disk/issue.h */

struct ts_fs {
	struct ts_fs_opts o;
	struct ts_tier_cfg cfg; /* model options; profile, floor and evict set at start */
	int root;	      /* O_PATH descriptor of BACKING: every path resolves beneath it */
	int calib_fd;	      /* a 4 KiB memory file the calibration reads are served from */
	char *backing;	      /* absolute */
	char *mountpoint;     /* absolute */
	struct fuse *fuse;
	bool daemonized;      /* log to syslog instead of stderr */
	int ready_fd;	      /* -1, or the pipe the waiting parent reads */
	uint64_t start_ns;

	struct ts_fs_model *model; /* NULL when bare */
	uint64_t floor_ns;	   /* measured FUSE round trip */
	uint64_t ra_bytes;	   /* the kernel's readahead window on the mount (FUSE_INIT) */
	/* carry=: per requesting thread (slot tid % TS_FS_CARRY_SLOTS), the
	 * round trips it paid that no modeled latency absorbed: tid << 40 |
	 * ns owed (control.c); and how many replies were moved earlier, by
	 * how much in all (stats) */
#define TS_FS_CARRY_SLOTS 1024
	uint64_t carry_slot[TS_FS_CARRY_SLOTS];
	uint64_t carried, carried_ns;
	/* Block mode's loop-device hop (disk/loop.h), taken off the model's
	 * latency with floor_ns: 0 unless loop_hop= asked for it. Its
	 * label: "measured" (loop_hop=measure), "given" (a duration) or
	 * "off"; loop_hop_via the loop device and medians it was taken from. */
	uint64_t loop_hop_ns;
	const char *loop_hop_label;
	uint64_t loop_hop_loop_ns, loop_hop_direct_ns;
	/* its size part (measured with it; 0 otherwise): what a 128 KiB
	 * request costs the loop device's path beyond a 4 KiB one, taken off
	 * a request in proportion to its bytes past 4 KiB
	 * (ts_tier_rule_loop_off) */
	uint64_t loop_hop_big_ns;
	/* and its window part (ts_loop_hop_measure's window_ns), taken off
	 * each read (traces/tier_rule.h) */
	uint64_t loop_hop_window_ns;
	/* Block mode's request clock (disk/issue.h, loop_issue=on|watch):
	 * each device request charged from the loop device's issue, its
	 * reply moved earlier by the measured reply hop and lateness (on),
	 * or charged from its receipt as without it and only compared with
	 * the model's completion from its issue (watch). NULL where off or
	 * unavailable; its label: "measured per request", "watched", "off"
	 * or "unavailable" (the reason in the log). */
	struct ts_issue *issue;
	bool issue_watch;
	const char *loop_issue_label;
	bool calibrated;
	bool failed;		   /* the mount could not be completed: exit 1 */
	bool stopping;		   /* the loop has ended: the mount is going away */
	/* Handles opened and not yet released. The kernel sends a release
	 * asynchronously after the last close, so a stop can come first:
	 * ts_fs_files_free() frees what is left once the loop has ended. */
	pthread_mutex_t open_lock;
	struct ts_fs_file *open_files;
	bool single;		   /* -s: one thread serves everything, calibration included */
	/* A root daemon makes each request's syscalls as the caller
	 * (passthrough.c's creds_take); its own groups, to go back to. */
	bool as_caller;
	int ngroups;
	gid_t *groups;

	pthread_t calib_thread;
	bool calib_started;

	uint64_t inflight, max_inflight;
	uint64_t invalidations; /* kernel page-cache invalidations of cached files */
	/* The names of hard-linked files, whose other names' attributes an op
	 * invalidates (names.c), and how many it has invalidated. */
	struct ts_fs_names *names;
	uint64_t attr_invalidations;
	struct ts_fs_opstat stat[TS_FS_OP_NR];
	struct ts_fs_trace *trace; /* -o trace=FILE (trace_hook.c), once the model has started */
};

/* The FUSE operations (passthrough.c). */
extern const struct fuse_operations ts_fs_fuse_ops;

/* Put a new handle on the open list and in fi->fh. */
void ts_fs_file_track(struct ts_fs *fs, struct ts_fs_file *f, struct fuse_file_info *fi);
/* Take @f off the open list, close what it holds and free it. */
void ts_fs_file_release(struct ts_fs *fs, struct ts_fs_file *f);
/* After the loop has ended: free every handle whose release never came. */
void ts_fs_files_free(struct ts_fs *fs);

static inline struct ts_fs *ts_fs_get(void)
{
	return fuse_get_context()->private_data;
}

/* One line to stderr, or to syslog once daemonized. */
void ts_fs_log(const struct ts_fs *fs, int prio, const char *fmt, ...) TS_PRINTF(3, 4);

/* The kernel's attribute cache kept true for hard links (names.c). Start
 * makes the invalidation thread; @wait_ok: more than one worker thread, so
 * an op may wait for its invalidations (a read they wait on is served). */
TS_WUR int ts_fs_names_start(struct ts_fs *fs, bool wait_ok);
void ts_fs_names_stop(struct ts_fs *fs);
/* The kernel knows @path (a lookup, a new link): remembered if a file of
 * more than one name. */
void ts_fs_names_seen(struct ts_fs *fs, const char *path, const struct stat *st);
/* Whether any name is remembered (then ops must say what they change). */
bool ts_fs_names_any(const struct ts_fs *fs);
/* @path of inode @ino was unlinked. */
void ts_fs_names_gone(struct ts_fs *fs, uint64_t ino, const char *path);
/* @from was renamed to @to (a folder: every name under it), replacing @to
 * unless @exchange (RENAME_EXCHANGE: the two swapped). */
void ts_fs_names_renamed(struct ts_fs *fs, const char *from, const char *to, bool exchange);
/* Inode @ino's attributes changed: its names other than @except (the one
 * the kernel refreshed itself; NULL: none) are invalidated, before this
 * returns unless @holds_pages (the op came through a kernel-cached handle,
 * whose page locks the invalidation could wait on) or it could deadlock
 * (names.c). */
void ts_fs_names_changed(struct ts_fs *fs, uint64_t ino, const char *except, bool holds_pages);

/* Request accounting (control.c + timing.c). */
void ts_fs_req_begin(struct ts_fs *fs, struct ts_fs_req *r, enum ts_fs_op op, const char *path,
		     const struct ts_fs_file *f, uint64_t off, uint64_t len);
/* The same for an op on two names (rename, link): @path2 the new one. */
void ts_fs_req_begin2(struct ts_fs *fs, struct ts_fs_req *r, enum ts_fs_op op, const char *path,
		      const char *path2, const struct ts_fs_file *f, uint64_t off, uint64_t len);
int ts_fs_req_end(struct ts_fs *fs, struct ts_fs_req *r, int64_t result);

/* Control files under /.tierfs (control.c). */
enum ts_fs_ctl {
	TS_FS_CTL_NONE,	   /* an ordinary path */
	TS_FS_CTL_DIR,
	TS_FS_CTL_STATS,
	TS_FS_CTL_CONTROL,
	TS_FS_CTL_CALIB,
	TS_FS_CTL_MISSING, /* a name under /.tierfs that does not exist */
};
#define TS_FS_CTL_NAME ".tierfs"
#define TS_FS_CALIB_SIZE 4096
/* .tierfs/calib's own size: the loop hop's window part (disk/loop.h,
 * TS_LOOP_WINDOW_FILE) maps it whole (fs/calib.c checks the two agree) */
#define TS_FS_CALIB_FILE_SIZE (1024 * 1024)
#define TS_FS_CALIB_SLEEP_NS (200 * TS_NS_PER_US)

enum ts_fs_ctl ts_fs_ctl_kind(const char *path);
int ts_fs_ctl_getattr(struct ts_fs *fs, enum ts_fs_ctl k, struct stat *st);
int ts_fs_ctl_open(struct ts_fs *fs, enum ts_fs_ctl k, struct fuse_file_info *fi);
int ts_fs_ctl_read(struct ts_fs *fs, struct ts_fs_file *f, char *buf, size_t size, off_t off);
int ts_fs_ctl_write(struct ts_fs *fs, struct ts_fs_file *f, const char *buf, size_t size);
int ts_fs_ctl_readdir(void *buf, fuse_fill_dir_t filler);
/* The stats document (caller frees). */
char *ts_fs_stats_json(struct ts_fs *fs);

/* Tier model glue (timing.c). Open loads the profiles and checks the tier
 * and capacity (before mounting); start makes the model once the FUSE
 * floor is known; until then requests are not modeled. */
TS_WUR int ts_fs_model_open(struct ts_fs *fs, char *err, size_t n);
TS_WUR int ts_fs_model_start(struct ts_fs *fs, char *err, size_t n);
void ts_fs_model_close(struct ts_fs *fs);
/* The completion time of request @r (r->submit_ns is its arrival); 0 when
 * not modeled. Sets r->fault. */
uint64_t ts_fs_model_submit(struct ts_fs *fs, struct ts_fs_req *r);
/* What the emulated disk holds at @path (absolute) for the trace's path
 * items (version 11, traces/trace.h): its inode number as the model numbers
 * the backing tree (mkfs.ext4 -d's order), a folder's blocks, the backing
 * file's st_ino and the inodes in use. -ENOENT where the model has no such
 * numbers (bare, block mode's image, a tree it could not number) or the
 * path is gone; -errno. */
TS_WUR int ts_fs_model_node(struct ts_fs *fs, const char *path, struct ts_trace_node *out);
/* Whether the model charges @op (getattr, access, flush... are free). */
bool ts_fs_model_charges(enum ts_fs_op op);
/* After @op succeeded on inode @ino: the cached pages it removed are gone
 * from the model (traces/tier_rule.h: the unlink of a last name, a
 * truncate to @off, a fallocate punching a hole per @mode). */
void ts_fs_model_forget(struct ts_fs *fs, enum ts_fs_op op, uint64_t ino, uint64_t off,
			uint64_t len, uint32_t mode);
/* The trace's name (TS_OP_*) for @op: what the trace records and what the
 * tier-request rule (traces/tier_rule.h) reads. */
unsigned ts_fs_trace_op(enum ts_fs_op op);
/* cache=warm|written: every regular file under the backing (or under
 * warm_path in it), in sorted path order, made resident in the page-cache model (ts_tier_warm; dirty
 * for "written"); over the whole tree the same walk numbers it for the
 * metadata rule. Counts what it warmed; -errno when the tree cannot be
 * read (with @err). */
TS_WUR int ts_fs_model_warm(struct ts_fs *fs, bool dirty, uint64_t *files, uint64_t *bytes,
			    char *err, size_t n);
/* `tierfs --list-tiers`. */
TS_WUR int ts_fs_list_tiers(FILE *out, const char *profile, uint64_t capacity, char *err,
			    size_t n);
/* Whether @path is opened in kernel-cached mode (the cached= globs). */
bool ts_fs_want_cached(const struct ts_fs *fs, const char *path);
/* Whether a regular file of @size that cached= does not name is opened
 * kernel-cached for the open only (kernel_cache=, with a page-cache model). */
bool ts_fs_cache_per_open(const struct ts_fs *fs, uint64_t size);
/* Whether a handle of @path may hold kernel pages: cached= or per open. */
bool ts_fs_may_cache(const struct ts_fs *fs, const char *path);
/* A cached file was opened or renamed: remember where to invalidate it. */
void ts_fs_cached_track(struct ts_fs *fs, uint64_t ino, const char *path);
/* A file opened kernel-cached for the open only (kernel_cache=): invalidated
 * when the model evicts any of it, until its last open handle is released
 * (ts_fs_open_untrack); the next open drops its pages anyway. */
void ts_fs_open_track(struct ts_fs *fs, uint64_t ino, const char *path);
void ts_fs_open_untrack(struct ts_fs *fs, uint64_t ino);
/* A file was renamed to @path: its open handles' pages are invalidated
 * under that name from now on. */
void ts_fs_open_renamed(struct ts_fs *fs, uint64_t ino, const char *path);
/* The model's stats (a new reference), or NULL. */
json_t *ts_fs_model_stats(struct ts_fs *fs);
/* The current tier's name ("" when bare). */
const char *ts_fs_model_tier(struct ts_fs *fs);
/* The last rejected control command's reason ("" if none); copies to @buf. */
void ts_fs_model_last_error(struct ts_fs *fs, char *buf, size_t n);
/* Settings text for .tierfs/control. */
char *ts_fs_model_describe(struct ts_fs *fs);
/* Apply a control command ("tier=aws-gp3 capacity=1TiB", "fault=read:EIO",
 * "fault=clear"): all of it, or nothing and an error. */
TS_WUR int ts_fs_model_command(struct ts_fs *fs, const char *cmd, char *err, size_t n);

/* -o trace=FILE (trace_hook.c): check makes the path absolute and checks
 * it before mounting, open starts recording once the model runs, put
 * records a completed request, close writes the trailer and reports drops. */
struct ts_fs_trace;
TS_WUR int ts_fs_trace_check(struct ts_fs *fs, char *err, size_t n);
TS_WUR int ts_fs_trace_open(struct ts_fs *fs, char *err, size_t n);
void ts_fs_trace_put(struct ts_fs *fs, struct ts_fs_req *r);
/* The requester's CPU sample for the trace, taken early: while the model's
 * latency elapses, before the daemon sleeps (put takes it otherwise). */
void ts_fs_trace_sample(struct ts_fs *fs, struct ts_fs_req *r);
void ts_fs_trace_close(struct ts_fs *fs);

/* Self-calibration (calib.c): started from init, reports on ready_fd. */
void ts_fs_calib_start(struct ts_fs *fs);
void ts_fs_calib_join(struct ts_fs *fs);

#endif
