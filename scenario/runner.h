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

#include "scenario/job.h"
#include "scenario/report.h"
#include "scenario/scenario.h"
#include "core/ts.h"

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
	struct ts_job_env env;	   /* what the jobs share: directories, mounts, tiers */
	bool params_seen;
	bool usage_error;	   /* the script stopped on a bad name=value */
	bool kv_used[TS_RUNNER_MAX_OVERRIDES];
	unsigned nruns;		   /* configurations run so far */
	struct ts_price_set *prices; /* the price profiles, once an instance names one */
};

TS_WUR int ts_runner_init(struct ts_runner *R, const struct ts_runner_opts *o, char *err,
			  size_t errlen);
/* Loads and runs the script under one lua_pcall with a traceback handler
 * (lua_scenario.c). Returns 0, TS_E_LUA (the message and traceback already
 * printed), -EINTR when interrupted, or another error with a message in
 * @err. */
TS_WUR int ts_runner_run(struct ts_runner *R, char *err, size_t errlen);
/* Stops every mount and removes the scratch directory. */
void ts_runner_free(struct ts_runner *R);
/* ts_runner_init() then ts_runner_run(): 0, -EINTR when a signal stopped
 * it, TS_E_LUA (the message printed) or another code with one line in
 * @err; *@usage says whether the request was wrong (a key=value, a name in
 * the script). R->report holds what ran, also after a failure;
 * ts_runner_free() in every case. */
TS_WUR int ts_runner_script(struct ts_runner *R, const struct ts_runner_opts *o, bool *usage,
			    char *err, size_t errlen);

/* What the Lua bindings call (lua_scenario.c): run the current
 * configuration as @job on each tier, appending one row per tier; the new
 * rows are report.rows[first..report.n). @job NULL: the job the engine's
 * mode names (train, infer). Errors of a configuration (GPU OOM) become
 * rows; errors of the scenario (mount failed, interrupted) are returned
 * with a message. */
TS_WUR int ts_runner_exec(struct ts_runner *R, const struct ts_job_ops *job,
			  const struct ts_scn_run *run, size_t *first, char *err, size_t errlen);

/* A job with its own options (@opts, @out as jobs.h says; dlio{}) on
 * @tier: one row of the report, which the job labels; dropped on failure
 * (one line in @err, -EINTR when interrupted). */
TS_WUR int ts_runner_job(struct ts_runner *R, const struct ts_job_ops *job, const char *tier,
			 const void *opts, void *out, char *err, size_t errlen);

/* Instance @name of the price profiles (loaded on first use), or -ENOENT
 * naming the known ones. */
TS_WUR int ts_runner_instance(struct ts_runner *R, const char *name,
			      const struct ts_instance **out, char *err, size_t errlen);

/* Lua bindings: the scenario API (lua_scenario.c) and the tier profiles
 * (lua_tier.c). Both take the runner as an upvalue. */
void ts_lua_open_scenario(struct lua_State *L, struct ts_runner *R);
void ts_lua_open_tiers(struct lua_State *L, struct ts_runner *R);

#endif
