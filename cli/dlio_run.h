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
	double samples_s, mib_s;
	uint64_t epochs;
	bool stopped;		/* ts_dlio_reaches: stopped once it could not pass (au: a bound) */
};

/* 0, or an exit status (TS_EXIT_USAGE, TS_EXIT_FAIL, TS_EXIT_INTERRUPT)
 * with one line in @err. */
int ts_dlio_run(const char *workload, const char *const *opts, size_t nopts,
		const char *const *overrides, size_t nov, bool virtual_time,
		struct ts_dlio_outcome *out, char *err, size_t errlen);

/* Whether @n accelerators keep a mean AU >= @au (0 < au <= 1) on the
 * configuration @opts (dlio{} keys: tier, mem, capacity, profile, host,
 * seed; not accelerators or find_max) and @overrides, in virtual time. The
 * run stops as soon as it cannot reach @au (out->stopped, out->au an upper
 * bound); one that reaches it runs whole and @out holds its figures. 0, or
 * an exit status with one line in @err. */
int ts_dlio_reaches(const char *workload, const char *const *opts, size_t nopts,
		    const char *const *overrides, size_t nov, uint64_t n, double au,
		    bool *reaches, struct ts_dlio_outcome *out, char *err, size_t errlen);

#endif
