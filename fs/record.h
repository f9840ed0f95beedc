/*
 * record.h — tiersim record's runs: an application run once through a fresh
 * tierfs mount of DIR (or, block mode, DIR's tree in an ext4/xfs image on a
 * loop device over tierfs), every request traced, who woke whom among its
 * threads captured beside the trace (TRACE.wakes, traces/wake_capture.h),
 * and the mount down again on every path: the command failing, a signal
 * (core/interrupt.h: forwarded to the command), a daemon that fails.
 * traces/replay/replay.h's ts_record_report() reads what it wrote.
 */
#ifndef TS_FS_RECORD_H
#define TS_FS_RECORD_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "fs/mount.h"

struct ts_record {
	/* the caller's */
	const char *data;    /* the directory recorded */
	const char *profile; /* more tiers (tierfs -o profile=), or NULL */
	const char *fs;	     /* block mode: "ext4" or "xfs"; NULL: a tierfs mount */
	uint64_t mem;	     /* the page-cache model; block mode: the memory cgroup */
	bool no_wakes;	     /* capture no wake file */
	bool no_handoffs;    /* a wake file without pipe hand-offs (H lines) */
	/* ts_record_begin's: the scratch directory, its mount point, block
	 * mode's image */
	struct ts_mounts ms;
	char dir[PATH_MAX], mnt[PATH_MAX + 8], image[PATH_MAX + 32], imgdir[PATH_MAX + 8];
};

/* The scratch directory under $TMPDIR (or /tmp), the mount supervisor, and
 * in block mode DIR's image. 0, or a code with one line in @err;
 * ts_record_end() in every case. */
int ts_record_begin(struct ts_record *r, char *err, size_t errlen);
/* Runs @argv (every "{}" in it replaced by the mount point, TIERSIM_MOUNT
 * set to it) once on a fresh mount of @tier tracing into @out; the
 * command's wait status in *@status. 0, -EINTR when a signal came before
 * the command started, or -EIO with its lines printed ("tiersim record:"). */
int ts_record_run(struct ts_record *r, const char *tier, const char *out, char **argv,
		  int argc, int *status);
/* Everything ts_record_begin made, removed; whatever is mounted comes down. */
void ts_record_end(struct ts_record *r);

/* One recording's runs (tiersim record): the command on @tier into @out;
 * with @probe, once more on that tier into OUT.probe; with @repeat > 1,
 * again on @tier into OUT.2 ... OUT.REPEAT. A run starts only when the
 * ones before it ended cleanly (exit status 0, no interrupt). */
struct ts_record_runs {
	const char *tier, *out;
	const char *probe; /* the probe's tier; NULL or "" for none */
	int64_t repeat;	   /* runs on @tier, >= 1 */
	/* one run: ts_record_run when NULL (the tests give their own) */
	int (*run)(struct ts_record *r, const char *tier, const char *out, char **argv,
		   int argc, int *status);
	/* filled */
	char *probe_out;       /* OUT.probe, malloc'd; NULL without a probe */
	char **repeats;	       /* OUT.2 ..., malloc'd, as many as ran */
	size_t nrepeats;
	int code; /* the last run's exit status as a shell gives it (128 + N: signal N) */
};
/* Runs them (each failure's line printed, "tiersim record: ..."). 0 when
 * all ran (@code: the last one's status); -ECANCELED when a run ended
 * uncleanly before the next was due (@code: its status; ts_interrupted
 * says whether a signal came); -EINTR when a signal came before a command
 * started; -EIO (a run, or the probe run, failed) or -ENOMEM.
 * ts_record_runs_free() in every case. */
int ts_record_runs(struct ts_record *r, struct ts_record_runs *s, char **argv, int argc);
void ts_record_runs_free(struct ts_record_runs *s);

/* @cmd resolved as execvp would: 0, or -ENOENT / -EACCES. */
int ts_record_find_command(const char *cmd);

/* The ext4 geometry of disk @image into @trace, the trace tierfs opened
 * for its mount (format version 12: a replay lays the file system out as
 * the image holds it, tier/fsmeta.h); tiersim disk mount --trace and
 * record --fs ext4 both stamp it. An xfs image has none to give: 0,
 * nothing written; any other failure -errno with one line in @err. */
int ts_record_stamp_fs(const char *trace, const char *image, char *err, size_t errlen);
/* @arg with every "{}" replaced by @mnt (malloc'd), or NULL. */
char *ts_record_substitute(const char *arg, const char *mnt);

#endif
