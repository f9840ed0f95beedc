/*
 * dlio_run.h — a DLIO workload run (workloads/DLIO.md): the workload read
 * and overridden, its dataset described (virtual time) or made and mounted
 * on tierfs (real time), N simulated accelerators stepping on the
 * project's loader, and DLIO's figures per run. `tiersim dlio`
 * (cli/cmd_dlio.c), the scenario API's dlio{} and `tiersim validate`'s
 * workload cases are its callers; they parse and print, this runs.
 *
 * Accelerators as DLIO defines them: each takes a batch of batch_size
 * samples, is busy for computation_time (sleeps in real time, is charged in
 * virtual time), and takes the next; AU = compute ÷ wall. Under mpirun
 * each rank is one accelerator (workloads/dlio_mpi.h).
 */
#ifndef TS_DLIO_RUN_H
#define TS_DLIO_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "workloads/dlio_config.h"
#include "core/opt.h"
#include "core/ts.h"
#include "tier/tier_base.h"

/* What to run. Strings are owned (ts_opt_free(ts_dlio_run_opts, o)) when
 * set through the table; a caller filling it by hand keeps its own. */
struct ts_dlio_opts {
	char *tier;		/* a tier profile (required) */
	char *dir;		/* real time: where datasets are made; NULL = the default */
	char *profile;		/* a Lua tier profile file to add, or NULL */
	char *trace;		/* real time: tierfs records every request here, or NULL */
	char *host;		/* a host profile whose framework costs are charged, or NULL */
	char *fs;		/* real time: "ext4" or "xfs" for block mode (disk/disk.h), or NULL */
	uint64_t accelerators;	/* >= 1 */
	uint64_t mem;		/* page cache in front of the tier, bytes (0: none) */
	uint64_t capacity;	/* the disk's size (0: the tier's default) */
	uint64_t seed;		/* 0: the workload's train.seed */
	bool virtual_time;
	bool find_max;		/* the largest N whose AU meets metric.au */
	char *search;		/* find_max's search: "bracket" (NULL: the same) or "doubling" */
	/* find_max, bracket search: the count run first, whole, its result
	 * rs[0] (a caller that needs that count's figures as well as the
	 * answer gets both from one search); 0: the search starts from the
	 * drive's bound. */
	uint64_t find_from;
	/* One count in virtual time: stop the run as soon as its mean AU can no
	 * longer reach metric.au (then result.stopped, result.au a bound); a
	 * run that can reach it runs whole. Whether N accelerators keep AU >= X
	 * on a configuration, at a whole run's cost only when they do: set it,
	 * override metric.au=X, and read !stopped && au >= X. */
	bool stop_early;
	bool quiet;		/* no progress lines on stderr */
	/* The instance's EBS limits (cost/: ts_instance_ebs; all 0: none),
	 * applied on an EBS volume's tier (aws-*) in either clock, as
	 * scenarios apply them: in virtual time on the tier model, in real time
	 * by tierfs's ebs_* options. Not in the option table: --instance sets it. */
	struct ts_tier_ebs ebs;
	const char *workload;	/* a shipped name ("unet3d_h100") or a .yaml path */
	const char *const *overrides; /* "[++][workload.]SECTION.KEY=VALUE" words */
	size_t noverrides;
};

/* The option table of struct ts_dlio_opts (every field but workload and
 * overrides): the command line of `tiersim dlio` and the keys of dlio{}. */
extern const struct ts_opt ts_dlio_run_opts[];

/* One epoch's steps, as the step loop saw them (under mpirun, the rank's
 * own): its first step's end from the epoch's start (its loader's start),
 * and the mean of its other steps, end to end. A caller that ran a part of
 * the dataset gets the whole one's epoch time from them (T = first_s +
 * (steps - 1) x step_s: what the first step adds does not grow with the
 * dataset, the rest does). */
struct ts_dlio_epoch {
	double first_s, step_s;
	uint64_t steps, samples;
};

/* How many epochs' steps a result keeps (ts_dlio_result.ep): the first ones. */
#define TS_DLIO_EPOCHS_KEPT 16

/* One run at a count of accelerators: DLIO 2.0.0's figures, the means over
 * epochs (AU leaves each epoch's first step out, samples/s counts it). */
struct ts_dlio_result {
	uint64_t n; /* accelerators */
	double au, samples_s, mib_s;
	double au_min, au_max;
	uint64_t epochs, steps; /* steps per epoch */
	uint64_t samples, read_bytes, read_requests, events;
	double wall_s, run_s; /* host seconds / the run's own seconds */
	bool stopped;	      /* stopped once it could not pass: au is an upper bound */
	double au_done;	      /* stopped: the mean AU of the epochs it ran whole (0: none) */
	/* passed once it could not miss (find-max's runs, virtual time): au is a
	 * lower bound, the figures but AU those of the steps it ran */
	bool passed;
	uint64_t pass_step; /* passed: the steps it ran */
	/* virtual time, find-max: the samples the bounds that decide a run
	 * before a step walked (dlio_run.c's pass_draws), each once a walk */
	uint64_t bound_samples;
	/* virtual time: the tier model's requests by what bound each
	 * (TS_TIER_BOUND_INSTANCE: the instance's EBS limits) */
	uint64_t bound[TS_TIER_BOUND_NR];
	/* the first min(epochs, TS_DLIO_EPOCHS_KEPT) epochs' steps */
	struct ts_dlio_epoch ep[TS_DLIO_EPOCHS_KEPT];
};

/* What ts_dlio_run found. */
struct ts_dlio_outcome {
	struct ts_dlio_workload w; /* as read and overridden */
	struct ts_dlio_result rs[64];
	size_t nr;
	const struct ts_dlio_result *best; /* find_max: the last count that passed */
	bool bad_request; /* the error is in the options, the workload or its keys */
	bool ebs;	  /* o->ebs was applied (set, and the tier an EBS volume's) */
	/* o->host's DLIO costs as this run charges them (a run's JSON says
	 * them, so that a caller sees which profile each clock used), ns;
	 * host_file: where this-machine was read from ("" otherwise) */
	struct ts_dlio_host_used {
		double sample_ns, per_mib, jpeg_per_mpix, step_ns, request_ns, daemon_ns,
			wait_ns, run_ns, start_ns, restart_ns;
		double collate_ns; /* per batch, a worker's (dlio_collate_ns_per_mib) */
		uint64_t vcpus;
		char host_file[4096];
	} host;
};

/*
 * Runs @o into @oc (zeroed first; free with ts_dlio_outcome_free). Returns
 * 0, -EINTR when SIGINT or SIGTERM stopped it (the mount removed, the
 * dataset kept), or another negative code with one line in @err
 * (oc->bad_request says whether the request itself was wrong).
 */
TS_WUR int ts_dlio_run(const struct ts_dlio_opts *o, struct ts_dlio_outcome *oc, char *err,
		       size_t errlen);
/* The run a caller reports: the one count, or find_max's best (NULL: none
 * passed). */
const struct ts_dlio_result *ts_dlio_outcome_pick(const struct ts_dlio_opts *o,
						  const struct ts_dlio_outcome *oc);
void ts_dlio_outcome_free(struct ts_dlio_outcome *oc);

#endif
