/*
 * dlio_cost.h — DLIO workloads with prices: whether N accelerators keep a
 * workload's AU on a volume, and the cheapest volume of several that does
 * (`tiersim dlio WORKLOAD --accelerators N --cheapest A,B,... [--instance I]`).
 */
#ifndef TS_DLIO_COST_H
#define TS_DLIO_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cost/price.h"
#include "dlio_run.h"

/* What a run of the workload takes besides its tier: "name=value" words of
 * tiersim dlio's options (capacity=, mem=, host=, seed=, profile=) and its
 * ++workload overrides. */
struct ts_dlio_job {
	const char *workload;
	uint64_t accelerators;
	const char *const *opts;
	size_t nopts;
	const char *const *overrides;
	size_t nov;
	bool virtual_time;
};

/* Whether @job's accelerators keep AU >= the workload's threshold on tier
 * @tier: *@yes, with the run in @out. 0, or an exit status with one line
 * in @err. */
int ts_dlio_reaches(const struct ts_dlio_job *job, const char *tier, bool *yes,
		    struct ts_dlio_outcome *out, char *err, size_t errlen);

/* One tier's verdict and price. */
struct ts_dlio_priced {
	const char *tier;
	struct ts_dlio_outcome run;
	bool reaches;
	bool clamped; /* the instance's local disk is larger than its tier models */
	struct ts_cost_band hour; /* the instance (if any) + the volume at its capacity */
};

/* Runs @job on each of @tiers and prices it (@instance: NULL = the volume
 * alone; @capacity: bytes, 0 = each tier's default, the instance's local
 * disk one of its disks). @out has @ntiers
 * entries; *@cheapest and *@second index the cheapest and the next that
 * reach the threshold (by nominal $/h), or are (size_t)-1. */
int ts_dlio_cheapest(const struct ts_dlio_job *job, const char *const *tiers, size_t ntiers,
		     const struct ts_price_set *prices, const struct ts_instance *instance,
		     uint64_t capacity, struct ts_dlio_priced *out, size_t *cheapest,
		     size_t *second, char *err, size_t errlen);

#endif
