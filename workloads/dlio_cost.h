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
#include "workloads/dlio_run.h"

/* Whether @o's accelerators (o->accelerators on o->tier) keep AU >= the
 * workload's threshold: *@yes, with the run in @out and the threshold in
 * *@threshold (0..1). 0, or ts_dlio_run's error with *@bad_request. */
TS_WUR int ts_dlio_reaches(const struct ts_dlio_opts *o, bool *yes, struct ts_dlio_result *out,
			   double *threshold, bool *bad_request, char *err, size_t errlen);

/* One tier's verdict and price. */
struct ts_dlio_priced {
	const char *tier;
	struct ts_dlio_result run;
	double au_threshold; /* the workload's metric.au, 0..1 */
	bool reaches;
	bool clamped; /* the instance's local disk is larger than its tier models */
	struct ts_cost_band hour; /* the instance (if any) + the volume at its capacity */
};

/* Runs @o on each of @tiers (o->tier ignored) and prices it (@instance:
 * NULL = the volume alone; o->capacity: bytes, 0 = each tier's default,
 * the instance's local disk one of its disks). @out has @ntiers entries;
 * *@cheapest and *@second index the cheapest and the next that reach the
 * threshold (by nominal $/h), or are (size_t)-1. 0, or an error with one
 * line in @err and *@bad_request when the request itself was wrong. */
TS_WUR int ts_dlio_cheapest(const struct ts_dlio_opts *o, const char *const *tiers,
			    size_t ntiers, const struct ts_price_set *prices,
			    const struct ts_instance *instance, struct ts_dlio_priced *out,
			    size_t *cheapest, size_t *second, bool *bad_request, char *err,
			    size_t errlen);

#endif
