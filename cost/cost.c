/*
 * cost.c — what a configuration costs (see cost.h). An epoch takes
 * epoch_samples / samples/s seconds and costs that many hours of the
 * instance and the volume; 1,000 steps take 1,000 x batch / samples/s. The
 * accelerators' idle time is the part of the instance's price the
 * accelerators spend waiting: (1 - AU) x the hourly price.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost/cost.h"
#include "tier/tier.h"

/* @hour dollars per hour for @work / @rate hours' worth of seconds. */
static void over(const struct ts_cost_band *hour, double work, double sps, double lo, double hi,
		 struct ts_cost_band *out)
{
	if (!(work > 0) || !(sps > 0)) {
		out->v = out->low = out->high = NAN;
		return;
	}
	double fast = hi > 0 ? hi : sps, slow = lo > 0 ? lo : sps;
	out->v = hour->v * work / sps / 3600;
	out->low = hour->low * work / fast / 3600;
	out->high = hour->high * work / slow / 3600;
}

void ts_cost_compute(const struct ts_cost_in *in, struct ts_cost *out)
{
	out->hour.v = in->inst_hour.v + in->vol_hour.v;
	out->hour.low = in->inst_hour.low + in->vol_hour.low;
	out->hour.high = in->inst_hour.high + in->vol_hour.high;
	double lo = isnan(in->sps_lo) ? in->sps : in->sps_lo;
	double hi = isnan(in->sps_hi) ? in->sps : in->sps_hi;
	over(&out->hour, (double)in->epoch_samples, in->sps, lo, hi, &out->epoch);
	over(&out->hour, 1000.0 * (double)in->batch, in->sps, lo, hi, &out->ksteps);
	if (isnan(in->au)) {
		out->idle_hour.v = out->idle_hour.low = out->idle_hour.high = NAN;
		return;
	}
	double au_lo = isnan(in->au_lo) ? in->au : in->au_lo;
	double au_hi = isnan(in->au_hi) ? in->au : in->au_hi;
	out->idle_hour.v = (1 - in->au / 100) * in->inst_hour.v;
	out->idle_hour.low = (1 - au_hi / 100) * in->inst_hour.low;
	out->idle_hour.high = (1 - au_lo / 100) * in->inst_hour.high;
}

uint64_t ts_cost_local_disk(const struct ts_instance *in, const struct ts_tier_profile *tier,
			    bool *clamped)
{
	*clamped = false;
	if (!in->disk_tier || strcmp(in->disk_tier, tier->name))
		return 0;
	uint64_t c = (uint64_t)(in->disk_gib * (1 << 30));
	if (tier->cap_max && c > tier->cap_max) {
		*clamped = true;
		c = tier->cap_max;
	}
	return c;
}

int ts_cost_volume(const struct ts_price_set *prices, const struct ts_tier_profile *tier,
		   uint64_t capacity, struct ts_cost_band *out, char *err, size_t errlen)
{
	const struct ts_volume *v = ts_price_volume_for_tier(prices, tier->name);
	if (!v) {
		snprintf(err, errlen, "tier '%s' has no volume price (tiersim prices lists them)",
			 tier->name);
		return -ENOENT;
	}
	struct ts_tier_limits l;
	int rc = ts_tier_effective(tier, capacity, &l, err, errlen);
	if (rc)
		return rc;
	double iops = l.iops > 0 ? l.iops : l.read_iops;
	double bps = l.bps > 0 ? l.bps : l.read_bps;
	ts_volume_hourly(v, (double)l.capacity / (1 << 30), iops, bps / (1 << 20), out);
	return 0;
}
