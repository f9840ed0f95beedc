/*
 * dlio_run.h — a DLIO workload run (cli/cmd_dlio.c) for the scenario
 * API's dlio{} (cli/lua_scenario.c): the same reading, dataset, loader and
 * accelerators as `tiersim dlio`, its options as "name=value" words of
 * the command's option table (tier=, accelerators=, find_max=, mem=,
 * capacity=, profile=, host=, dir=, seed=) and its overrides as
 * "SECTION.KEY=VALUE" words.
 */
#ifndef TS_DLIO_RUN_H
#define TS_DLIO_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ts_dlio_outcome {
	bool found;		/* false: --find-max found no count that passes */
	uint64_t accelerators;	/* the count run, or the largest that passes */
	double au;		/* 0..1 */
	double au_threshold;	/* the workload's metric.au, 0..1 */
	double samples_s, mib_s;
	uint64_t epochs;
	bool stopped;		/* ts_dlio_run_until: stopped once it could not pass (au: a bound) */
};

/* 0, or an exit status (TS_EXIT_USAGE, TS_EXIT_FAIL, TS_EXIT_INTERRUPT)
 * with one line in @err. */
int ts_dlio_run(const char *workload, const char *const *opts, size_t nopts,
		const char *const *overrides, size_t nov, bool virtual_time,
		struct ts_dlio_outcome *out, char *err, size_t errlen);

/* ts_dlio_run in virtual time, for one count (accelerators=), with the run
 * stopped as soon as its mean AU can no longer reach @au (0: the workload's
 * metric.au): then out->stopped is set and out->au is an upper bound; a run
 * that can reach it runs whole, its figures those of ts_dlio_run. Whether a
 * configuration keeps N accelerators at AU >= X, at the cost of a whole run
 * only when it does: !out->stopped && out->au >= out->au_threshold. 0, or
 * an exit status with one line in @err. */
int ts_dlio_run_until(const char *workload, const char *const *opts, size_t nopts,
		      const char *const *overrides, size_t nov, double au,
		      struct ts_dlio_outcome *out, char *err, size_t errlen);

#endif
