/*
 * runner.h — runs a Lua scenario. The script declares what to run
 * (dataset{}, mount{}, pipeline{}, engine{}) and asks for results (run{},
 * preprocess{}, sweep{}); the runner turns each request into one row of
 * the report per tier: it generates the dataset once, mounts it through a
 * tierfs daemon, drives the loader and the engine in real time (or the same
 * tier model and engine profile in virtual time), reads the daemon's
 * statistics and tears the mount down.
 *
 * A runner owns everything a scenario starts: the Lua state, the mounts
 * (struct ts_mounts) and the scratch directories. ts_runner_free() releases
 * them on every path; SIGINT/SIGTERM only set a flag that the script, the
 * run loop and the waits check, so cleanup always runs on the main thread.
 */
#ifndef TS_RUNNER_H
#define TS_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "hist.h"
#include "mount.h"
#include "pipeline/dataset.h"
#include "report.h"
#include "scenario.h"
#include "ts.h"

#define TS_RUNNER_MAX_TIERS 32
#define TS_RUNNER_MAX_OVERRIDES 64

struct lua_State;
struct ts_price_set;
struct ts_instance;

struct ts_runner_opts {
	const char *script;
	const char *tiers[TS_RUNNER_MAX_TIERS]; /* compare: every run{} runs on each */
	size_t ntiers;
	const char *kv[TS_RUNNER_MAX_OVERRIDES]; /* key=value from the command line */
	size_t nkv;
	const char *workdir;	 /* datasets, mounts, scratch; NULL = the default */
	bool virtual_time;
	bool quiet;
	bool keep;		 /* keep scratch output (converted LMDBs, traces) */
	bool band;		 /* virtual: each row again at both ends of the ranged tier parameters */
	/* --timeline: each training/inference row records its tracks here
	 * (pipeline/timeline.h); NULL = none. The caller opens and closes it. */
	struct ts_timeline *timeline;
	char instance_kv[256]; /* --instance NAME as the override instance.name=NAME */
};

struct ts_runner {
	struct ts_runner_opts o;
	struct lua_State *L;
	struct ts_scenario cfg;	   /* what the script set so far */
	struct ts_report report;
	struct ts_mounts mounts;
	bool mounts_ready;
	char *workdir;		   /* absolute */
	char *datadir;		   /* workdir/data: the backing of every mount */
	char *mntdir;		   /* workdir/mnt: where mounts go */
	char *scratch;		   /* datadir/scratch/run-PID: this run's output */
	unsigned nmounts;	   /* for unique mount point names */
	bool params_seen;
	bool usage_error;	   /* the script stopped on a bad name=value */
	bool kv_used[TS_RUNNER_MAX_OVERRIDES];
	unsigned nruns;		   /* configurations run so far */
	bool progress_tty;
	uint64_t progress_ns;	   /* last progress line drawn */
	struct ts_tier_set *tiers; /* the known tier profiles */
	struct ts_price_set *prices; /* the price profiles, once an instance names one */
	int band_end;		   /* the band end a virtual run models: -1 slow, 0, +1 fast */
};

/* The interrupt flag set by the signal handler (SIGINT, SIGTERM). */
extern volatile sig_atomic_t ts_runner_interrupted;
void ts_runner_signals(void);

TS_WUR int ts_runner_init(struct ts_runner *R, const struct ts_runner_opts *o, char *err,
			  size_t errlen);
/* Loads and runs the script under one lua_pcall with a traceback handler.
 * Returns 0, TS_E_LUA (the message and traceback already printed), -EINTR
 * when interrupted, or another error with a message in @err. */
TS_WUR int ts_runner_run(struct ts_runner *R, char *err, size_t errlen);
/* Stops every mount and removes the scratch directory. */
void ts_runner_free(struct ts_runner *R);
/* ts_runner_init() and ts_runner_run() for the command @cmd ("run",
 * "advise"...): prints any failure as one "tiersim CMD: ..." line and sets
 * *@status to the exit status (TS_EXIT_*). Returns 0, -EINTR when
 * interrupted, or the error. The caller reads R->report (also after a
 * failure) and calls ts_runner_free() in every case. */
TS_WUR int ts_runner_main(struct ts_runner *R, const struct ts_runner_opts *o, const char *cmd,
			  int *status);

/* What the Lua bindings call (lua_scenario.c): run the current
 * configuration as @act on each tier, appending one row per tier; the new
 * rows are report.rows[first..report.n). Errors of a configuration (GPU
 * OOM) become rows; errors of the scenario (mount failed, interrupted)
 * are returned with a message. */
enum ts_action { TS_ACT_RUN, TS_ACT_PREPROCESS };
TS_WUR int ts_runner_exec(struct ts_runner *R, enum ts_action act, const struct ts_scn_run *run,
			  size_t *first, char *err, size_t errlen);

/* Instance @name of the price profiles (loaded on first use), or -ENOENT
 * naming the known ones. */
TS_WUR int ts_runner_instance(struct ts_runner *R, const char *name,
			      const struct ts_instance **out, char *err, size_t errlen);

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
TS_WUR int ts_runner_place(struct ts_runner *R, const struct ts_scenario *s,
			   struct ts_dataset_place *dp, bool need_bytes, char *err, size_t errlen);
void ts_runner_place_free(struct ts_dataset_place *dp);

/* The configuration's engine. A batch that does not fit the GPU is not a
 * failure but an "OOM" row: 0 with *out NULL and w->error set. */
TS_WUR int ts_runner_engine(struct ts_scenario *s, struct ts_row *w, struct ts_engine **out,
			    char *err, size_t errlen);

/* "tierfs real (tier per row, 500 GiB; page cache 8 GiB modeled)" */
void ts_runner_tier_desc(const struct ts_scenario *s, const char *what, char *buf, size_t n);

/* What a training/inference loop adds up over its measured steps; the
 * row's throughput, AU, IO stall and iteration-time percentiles follow. */
struct ts_step_sums {
	uint64_t iterations, batch, samples;
	uint64_t wall_ns;	 /* end of the last warm-up step to the end of the last */
	uint64_t busy_ns;	 /* GPU compute + exposed communication */
	uint64_t idle_ns;	 /* GPU waiting for its batch */
	const struct ts_hist *iter; /* time between step ends */
};
void ts_runner_row_steps(struct ts_row *w, const struct ts_step_sums *m);

/* Progress of the configuration in flight (terminal: one rewritten line). */
void ts_runner_progress(struct ts_runner *R, const char *what, uint64_t done, uint64_t total,
			double samples_per_s, double elapsed_s);

/* Lua bindings: the scenario API (lua_scenario.c) and the tier profiles
 * (lua_tier.c). Both take the runner as an upvalue. */
void ts_lua_open_scenario(struct lua_State *L, struct ts_runner *R);
void ts_lua_open_tiers(struct lua_State *L, struct ts_runner *R);

#endif
