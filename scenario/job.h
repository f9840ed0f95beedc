/*
 * job.h — what a scenario runs: jobs as an ops table, and the environment
 * the runner gives them.
 *
 * A job makes one row of the report: one configuration (struct
 * ts_scenario) on one tier, in the scenario's clock. The runner
 * (runner.c) walks the configurations and tiers and calls a job's @run;
 * a job uses the environment's services (jobenv.c: the dataset placed,
 * the tier mounted or modeled, the engine, progress) and never the
 * runner, so jobs and runner do not call each other in a circle. The
 * registry is one array (job.c); adding a job kind is its file, its ops
 * and a line there.
 */
#ifndef TS_JOB_H
#define TS_JOB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "fs/mount.h"
#include "core/hist.h"
#include "pipeline/dataset.h"
#include "pipeline/loader.h"
#include "scenario/report.h"
#include "scenario/scenario.h"
#include "core/ts.h"

struct ts_timeline;
struct ts_vtier;
struct ts_tier_set;
struct live;

/* What every job of a scenario shares, owned by the runner. */
struct ts_job_env {
	bool virtual_time;
	bool quiet;
	bool keep;		   /* keep scratch output (converted LMDBs, traces) */
	struct ts_timeline *timeline; /* --timeline: rows record their tracks; NULL = none */
	struct ts_tier_set *tiers; /* the known tier profiles (a run's mount{profile} added) */
	struct ts_mounts mounts;
	bool mounts_ready;
	char *workdir;		   /* absolute */
	char *datadir;		   /* workdir/data: the backing of every mount */
	char *mntdir;		   /* workdir/mnt: where mounts go */
	char *scratch;		   /* datadir/scratch/run-PID: this run's output */
	unsigned nmounts;	   /* for unique mount point names */
	/* cache = "warm"'s start (runner.c, run_row): while hold is set,
	 * the disk a job mounts — block mode's (its pages in the page cache,
	 * its memory cgroup entered), FUSE mode's tierfs mount (its page-cache
	 * model) — is kept in held when the job ends and handed to the next
	 * job's mount, which then owns it; in virtual time the tier model is
	 * kept in vheld (ts_vtier_continue) and handed to the next job's
	 * feed. hold_trace: the kept disk records a trace for --timeline
	 * although the untimed job draws none */
	bool hold, hold_trace;
	struct live *held;
	struct ts_vtier *vheld;
	bool progress_tty;
	uint64_t progress_ns;	   /* last progress line drawn */
};

/* One request to a job. A job of the scenario's configurations (train,
 * infer, preprocess) reads @s and @run; a job with its own options (dlio)
 * reads @opts, and @s and @run are NULL. */
struct ts_job_args {
	struct ts_scenario *s;	      /* the configuration, overrides applied */
	const char *tier;	      /* s->mnt.tier */
	const struct ts_scn_run *run; /* how long to measure, the row's label */
	/* virtual time: 0, or the band end modeled (-1 slow, +1 fast); at an
	 * end, the job names in w->band_params what it moved beyond the tier
	 * and the host (the engine's figures) */
	int band_end;
	unsigned nrun;		      /* the configuration's number in this scenario, from 1 */
	const void *opts;	      /* the job's own options (jobs.h), or NULL */
	void *out;		      /* the job's own results (jobs.h), or NULL */
};

#define TS_JOB_VERSION 1

struct ts_job_ops {
	const char *name;
	unsigned version; /* TS_JOB_VERSION */
	/*
	 * Fills @w (label and tier already set) for @a. A configuration's own
	 * failure (a batch that does not fit the GPU) is a row with w->error
	 * and 0; a failure of the scenario (a mount, the loader, an
	 * interrupt: -EINTR) is returned with one line in @err.
	 */
	int (*run)(struct ts_job_env *env, const struct ts_job_args *a, struct ts_row *w,
		   char *err, size_t errlen);
	/* The host profile whose ranged costs move with the tier's under
	 * --band (NULL: none). */
	const char *(*band_host)(const struct ts_job_args *a);
	/* TS_JOB_* */
	unsigned flags;
};

/* The job writes what a second run on the same disk would find (an
 * output it creates): it cannot run once untimed before the timed run, as
 * block mode's cache = "warm" does. */
#define TS_JOB_ONCE 1u

/* The job named @name (train, infer, preprocess, dlio), or NULL. */
const struct ts_job_ops *ts_job_find(const char *name);
/* Refuses a wrong version or a missing hook, naming the job: 0 or -EINVAL. */
TS_WUR int ts_job_check(const struct ts_job_ops *ops, char *err, size_t errlen);

/* ---- The environment's services (jobenv.c) ---------------------------- */

/* Where a scenario's dataset is: generated once under the work directory
 * (or described only, for virtual time: @need_bytes false), or the user's
 * directory. */
struct ts_dataset_place {
	char dir[4096];	    /* the dataset on the host */
	char backing[4096]; /* what a mount exposes */
	char rel[4096];	    /* the dataset relative to the mount's root ("" = root) */
	char input[128];    /* the loader's path relative to the dataset */
	const char *source; /* loader source */
	const struct ts_dataset_ops *kind; /* generated: its kind; NULL for dir = ... */
	bool generated;
	struct ts_dataset_meta meta;
	bool have_meta;
};
TS_WUR int ts_job_place(struct ts_job_env *env, const struct ts_scenario *s,
			struct ts_dataset_place *dp, bool need_bytes, char *err, size_t errlen);
void ts_job_place_free(struct ts_dataset_place *dp);

/* Counters read from the daemon's .tierfs/stats. */
struct fs_counters {
	bool ok;
	uint64_t read_bytes, write_bytes; /* served by tierfs */
	uint64_t model_read_bytes, model_hit_bytes;
	uint64_t model_nowait_bytes, model_dev_bytes; /* no wait on the device; the device's */
	uint64_t own_peak; /* block mode: the most the job's memory cgroup held
			    * besides the page cache so far (0: not measured) */
};
void ts_job_read_counters(const char *mountpoint, struct fs_counters *c);
void ts_job_row_io(struct ts_row *w, const struct fs_counters *a, const struct fs_counters *b,
		   double secs);

struct ts_cgroup;
struct ts_cgroup_sampler;
/* One configuration in real time: its mount, loader and engine. */
struct live {
	struct ts_mount *mount;
	struct ts_pipe *pipe;
	struct ts_engine *eng;
	char root[PATH_MAX]; /* where the dataset's backing appears */
	/* the mount's request trace ("" = none); own: made for --timeline
	 * only, removed once merged */
	char trace[PATH_MAX];
	bool own_trace;
	bool want_trace; /* set before ts_job_live_mount: record one if the scenario does not */
	/* set before ts_job_live_mount: the bytes the job will write on the
	 * disk, room plus room_per_file per file of the dataset's tree (the
	 * walk that sizes the image counts them); a block-mode image leaves
	 * that much free beside the dataset */
	uint64_t room, room_per_file;
	/* block mode (mount{ fs = ... }): the disk's mount point is root, its
	 * image made for this row, tierfs's counters under stats; the
	 * process in a memory cgroup of mount.mem while it runs */
	bool disk;
	/* lent: the disk is env->held's (a warm start's untimed run):
	 * ts_job_live_end leaves it mounted */
	bool lent;
	/* handed over from env->held: the untimed run's requests come first
	 * in the trace; the timed run's from this CLOCK_MONOTONIC reading */
	uint64_t timed_from_ns;
	char image[PATH_MAX], stats[PATH_MAX];
	struct ts_cgroup *cg;
	struct ts_cgroup_sampler *own; /* cg's own memory, sampled while it runs */
};
/* tierfs's counters of @lv's mount (c->ok false when nothing is mounted). */
void ts_job_live_counters(const struct live *lv, struct fs_counters *c);
/* Mounts the dataset's backing on @tier (or, for "none", uses it as it is);
 * @mdesc says which. */
TS_WUR int ts_job_live_mount(struct ts_job_env *env, const struct ts_scenario *s,
			     const char *tier, const struct ts_dataset_place *dp, struct live *lv,
			     char *mdesc, size_t mdn, char *err, size_t errlen);
/* Frees the loader and the engine and stops the mount; a failure to stop
 * is added to @err. */
int ts_job_live_end(struct ts_job_env *env, struct live *lv, char *err, size_t errlen);
/* Ends env->held and env->vheld where no job took them over (a failed or
 * OOM row). */
int ts_job_hold_end(struct ts_job_env *env, char *err, size_t errlen);

/* The mount{}'s tier as a virtual run's disk, at @band_end of its ranges;
 * with env->vheld, that model, taken over (a warm start's timed run). */
TS_WUR int ts_job_vtier(struct ts_job_env *env, const struct ts_scenario *s, int band_end,
			struct ts_vtier *m, char *err, size_t errlen);

/* The configuration's engine, at @band_end of its profiles' ranges (0:
 * their values). A batch that does not fit the GPU is not a failure but an
 * "OOM" row: 0 with *out NULL and w->error set. */
TS_WUR int ts_job_engine(struct ts_scenario *s, int band_end, struct ts_row *w,
			 struct ts_engine **out, char *err, size_t errlen);

/* "tierfs real (tier per row, 500 GiB; page cache 8 GiB modeled)" */
void ts_job_tier_desc(const struct ts_scenario *s, const char *what, char *buf, size_t n);

/* What a training/inference loop adds up over its measured steps; the
 * row's throughput, AU, IO stall and iteration-time percentiles follow. */
struct ts_step_sums {
	uint64_t iterations, batch, samples;
	uint64_t wall_ns;	 /* end of the last warm-up step to the end of the last */
	uint64_t busy_ns;	 /* GPU compute + exposed communication */
	uint64_t idle_ns;	 /* GPU waiting for its batch */
	const struct ts_hist *iter; /* time between step ends */
};
void ts_job_row_steps(struct ts_row *w, const struct ts_step_sums *m);

/* Progress of the configuration in flight (terminal: one rewritten line). */
void ts_job_progress(struct ts_job_env *env, const char *what, uint64_t done, uint64_t total,
		     double samples_per_s, double elapsed_s);
void ts_job_progress_end(struct ts_job_env *env);
/* One line about the scenario's progress (nothing with --quiet). */
void ts_job_note(struct ts_job_env *env, const char *fmt, ...) TS_PRINTF(2, 3);

#endif
