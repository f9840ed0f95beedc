/*
 * cost.h — what a configuration costs: an instance and a volume priced by
 * the price profiles (price.h), turned into dollars per hour, per epoch,
 * per 1,000 steps and the accelerators' idle time, with the band that the
 * ranged prices and the ranged performance make together.
 */
#ifndef TS_COST_COST_H
#define TS_COST_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "cost/price.h"

struct ts_tier_profile;

/* A configuration's performance, as a report row holds it. */
struct ts_cost_in {
	struct ts_cost_band inst_hour; /* the instance; 0 when none is priced */
	struct ts_cost_band vol_hour;  /* the volume */
	double sps, sps_lo, sps_hi;    /* samples/s as run, at the slow and fast end (NaN: no band) */
	double au, au_lo, au_hi;       /* accelerator utilization, % (NaN: not known) */
	uint64_t batch;		       /* samples per step */
	uint64_t epoch_samples;	       /* samples in an epoch; 0 = not known */
};

/* Dollars; NaN where the figure it needs is not known. */
struct ts_cost {
	struct ts_cost_band hour;      /* instance + volume, per hour */
	struct ts_cost_band epoch;     /* per epoch (epoch_samples at samples/s) */
	struct ts_cost_band ksteps;    /* per 1,000 steps */
	struct ts_cost_band idle_hour; /* (1 - AU) x the instance's hourly price */
};

/* The low end of each band is the low price at the fast end, the high end
 * the high price at the slow end. */
void ts_cost_compute(const struct ts_cost_in *in, struct ts_cost *out);

/* Volume of tier @tier at @capacity bytes (0 = the tier's default), priced
 * by @prices: per hour, with what the tier provisions at that capacity
 * (IOPS, MiB/s) charged above what the volume includes. -ENOENT naming the
 * tier when no volume prices it. */
TS_WUR int ts_cost_volume(const struct ts_price_set *prices, const struct ts_tier_profile *tier,
			  uint64_t capacity, struct ts_cost_band *out, char *err, size_t errlen);

/* The size a run on @in's local disk takes on tier @tier, in bytes: one of
 * its disks, or @tier's largest where the tier models no disk that large
 * (*@clamped). 0 when @tier is not @in's local disk. */
uint64_t ts_cost_local_disk(const struct ts_instance *in, const struct ts_tier_profile *tier,
			    bool *clamped);

#endif
