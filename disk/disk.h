/*
 * disk.h — block mode: an emulated cloud disk as a real block device.
 *
 * A disk image (a sparse file holding an ext4 or xfs file system, made by
 * ts_disk_make with the real mkfs) is served by tierfs with the tier's
 * model and no page-cache model of its own (mem=0); a loop device is
 * attached to the served file with direct I/O, so every request the block
 * layer sends (after readahead, merging and splitting) reaches tierfs as a
 * read or write of the image at the device offset, is charged by the tier
 * model and recorded in the trace; the loop device's queue takes the
 * tier's limits (tier.h, struct ts_tier_queue), and the image's file
 * system is mounted by the kernel, whose page cache, readahead and
 * inode/dentry caches sit above the emulated disk as on a cloud instance.
 *
 * Each attachment keeps its state in a directory (TIERSIM_DISK_STATE, by
 * default /run/tiersim/disks): NAME.state (key=value lines), NAME.fuse
 * (tierfs's mount point) and NAME.log (tierfs's start-up messages), NAME
 * being the mount point with every character but letters and digits
 * written as _XX; so a later process lists and undoes what an earlier
 * one attached.
 */
#ifndef TS_DISK_H
#define TS_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/ts.h"

/* The file systems block mode makes and mounts. */
TS_WUR int ts_disk_fs_check(const char *fs, char *err, size_t errlen);

/* An image size that holds @dir's tree in @fs with room to spare: twice
 * the files' bytes plus 64 MiB (the image is sparse: the spare room costs
 * nothing), at least what mkfs accepts. @files (may be NULL) gets the
 * number of regular files in the tree, from the same walk. */
TS_WUR int ts_disk_size_for(const char *dir, const char *fs, uint64_t *size, uint64_t *files,
			    char *err, size_t errlen);

struct ts_disk_make_opts {
	const char *image; /* created; an existing file is refused */
	uint64_t size;	   /* bytes, sparse */
	const char *fs;	   /* "ext4" or "xfs" */
	const char *from;  /* a directory copied in, or NULL */
};

/* Makes the image: a sparse file of o->size, the real mkfs, and o->from's
 * tree copied in offline (mkfs.ext4 -d; for xfs a plain loop mount and a
 * copy), at no tier cost. On failure the image is removed and nothing is
 * left attached or mounted. */
TS_WUR int ts_disk_make(const struct ts_disk_make_opts *o, char *err, size_t errlen);

struct ts_disk_mount_opts {
	const char *tierfs;	/* the tierfs executable */
	const char *image;
	const char *mountpoint; /* an existing directory, not a mount point */
	const char *tier;
	const char *profile;	/* a Lua file of more tiers, or NULL */
	uint64_t capacity;	/* 0: the tier's default */
	uint64_t mem;		/* the instance's memory for jobs run on it (0: none given) */
	const char *trace;	/* tierfs's trace of the device's requests, or NULL */
	bool rw;		/* attach and mount read-write */
	/* The instance's EBS limits on an aws-* tier as tierfs's options
	 * (",ebs_iops=...", fs/mount.h's ts_mount_ebs_opts), or NULL: none;
	 * tierfs refuses them on another tier. */
	const char *ebs_opts;
	/* Leave the loop device's hop in the device's latency (tierfs's
	 * loop_hop=off) instead of measuring it at mount and taking it off
	 * the tier model's latency with FUSE's round trip (loop.h). */
	bool no_loop_hop;
	/* tierfs's loop_issue (disk/issue.h): "on" (NULL: the default),
	 * each device request charged from the loop device's issue; "off",
	 * from tierfs's receipt; "watch", from the receipt and compared with
	 * the model's completion from the issue. Off with no_loop_hop. */
	const char *loop_issue;
	/* Where the device deviates from the tier's queue limits (its
	 * max_sectors_kb capped at what tierfs receives), one line for the
	 * user; NULL: not asked. Left empty otherwise. */
	char *note;
	size_t notelen;
};

/* One attachment, as its state file records it. */
struct ts_disk {
	char *name;	  /* the state files' name */
	char *image;	  /* absolute */
	char *mountpoint; /* absolute */
	char *fuse_dir;	  /* where tierfs serves the image's directory */
	char *loop;	  /* /dev/loopN */
	char *fs;	  /* ext4 or xfs */
	char *tier;
	char *trace;	  /* or NULL */
	pid_t tierfs_pid;
	uint64_t mem;	  /* instance memory given at mount (0: none) */
	bool rw;
	/* as tierfs measured them at mount (its stats): FUSE's round trip and
	 * the loop device's hop, both taken off the tier model's latency;
	 * loop_hop false: the hop was left in (no_loop_hop); loop_hop_big_ns:
	 * its size part, what a 128 KiB request costs the loop device's path
	 * beyond a 4 KiB one, loop_hop_window_ns its window part, what a
	 * readahead window costs it beyond a 128 KiB direct read (disk/loop.h) */
	uint64_t floor_ns, loop_hop_ns, loop_hop_big_ns, loop_hop_window_ns;
	bool loop_hop;
	/* tierfs's request clock (disk/issue.h), as its stats say: one of
	 * TS_DISK_ISSUE_* */
	int loop_issue;
};
enum { TS_DISK_ISSUE_OFF, TS_DISK_ISSUE_MEASURED, TS_DISK_ISSUE_WATCHED, TS_DISK_ISSUE_UNAVAILABLE };
/* its label: "off", "measured per request", "watched", "unavailable" */
const char *ts_disk_issue_name(int loop_issue);

/* Attaches and mounts (the order in disk.h's header); on any failure,
 * undoes what was done and says what failed in one line. */
TS_WUR int ts_disk_mount(const struct ts_disk_mount_opts *o, char *err, size_t errlen);

/* Undoes a mount, in order: the file system, the loop device, tierfs, the
 * state. Works with tierfs dead (the device then fails every request). */
TS_WUR int ts_disk_umount(const char *mountpoint, char *err, size_t errlen);

/* The attachment mounted at @mountpoint (a path to it, resolved). */
TS_WUR int ts_disk_find(const char *mountpoint, struct ts_disk *out, char *err, size_t errlen);

/* Every attachment in the state directory; *out is an array of *n, freed
 * with ts_disk_list_free. */
TS_WUR int ts_disk_list(struct ts_disk **out, size_t *n, char *err, size_t errlen);
void ts_disk_list_free(struct ts_disk *d, size_t n);
void ts_disk_clear(struct ts_disk *d);

/* Whether tierfs behind @d is still running. */
bool ts_disk_alive(const struct ts_disk *d);

/* The cold state: the file system unmounted and mounted again on the same
 * loop device (held open meanwhile, so autoclear keeps it), which drops
 * its page cache, inode and dentry caches and the device's buffers, and
 * nothing of other file systems. Only where the file system outlives the
 * unmount (a copy of the mount another namespace holds) is every file's
 * page cache dropped with POSIX_FADV_DONTNEED, a walk of the whole tree;
 * otherwise nothing reads the device before the job.
 * Fails (EBUSY) while a file on it is open. */
TS_WUR int ts_disk_drop_cache(const struct ts_disk *d, char *err, size_t errlen);

/* A job run on a mounted disk, in a memory cgroup of the instance's size
 * (cgroup.h; one cgroup per disk, kept between runs so that "warm" is what
 * the previous run left, removed at unmount). */
struct ts_disk_job_opts {
	uint64_t mem;	    /* the cgroup's limit; 0: the mount's --mem */
	const char *cache;  /* "cold" (ts_disk_drop_cache first, the default) or "warm" */
	char *const *argv;  /* the command */
};

struct ts_disk_job_result {
	int status;		/* waitpid's */
	double wall_s;
	uint64_t mem;		/* the limit it ran under */
	int cgroup_version;
	uint64_t dev_reads, dev_read_bytes, dev_writes, dev_write_bytes; /* tierfs's counts */
	uint64_t peak, file;	/* the cgroup's peak usage and page cache at the end */
	uint64_t own;		/* the most the cgroup held besides the page cache
				 * (the job's own memory: anonymous, kernel),
				 * sampled every TS_DISK_OWN_SAMPLE_NS: what the
				 * page cache could not have */
};
/* memory.stat keeps no peak of the memory besides the page cache; the job
 * is sampled at this interval (its own memory moves with its allocations,
 * not page by page). */
#define TS_DISK_OWN_SAMPLE_NS 10000000ull

/* Runs o->argv in the disk's cgroup and waits. 0 when it ran (whatever its
 * exit status, in r->status); an error when it could not be run. */
TS_WUR int ts_disk_job_run(const struct ts_disk *d, const struct ts_disk_job_opts *o,
			   struct ts_disk_job_result *r, char *err, size_t errlen);

#endif
