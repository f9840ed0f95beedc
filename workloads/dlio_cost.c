/*
 * dlio_cost.c — DLIO workloads with prices (see dlio_cost.h). A volume
 * passes when the run of N accelerators on it keeps the workload's AU
 * threshold (metric.au, 90% for the MLPerf Storage training workloads);
 * among those that pass the cheapest per hour is the answer: the
 * accelerators are the same on every volume, so per hour is per sample.
 * The instance's own local disk is one of its disks in size, as a
 * scenario's run on it is, unless a capacity is given.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"
#include "workloads/dlio_cost.h"
#include "tier/tier.h"

#define NONE ((size_t)-1)

int ts_dlio_reaches(const struct ts_dlio_opts *o, bool *yes, struct ts_dlio_result *out,
		    double *threshold, bool *bad_request, char *err, size_t errlen)
{
	struct ts_dlio_outcome *oc = calloc(1, sizeof(*oc));
	*yes = false;
	*bad_request = false;
	if (!oc) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int rc = ts_dlio_run(o, oc, err, errlen);
	const struct ts_dlio_result *r = rc ? NULL : ts_dlio_outcome_pick(o, oc);
	memset(out, 0, sizeof(*out));
	if (r)
		*out = *r;
	*threshold = oc->w.au;
	*yes = r && r->au >= oc->w.au;
	*bad_request = oc->bad_request;
	ts_dlio_outcome_free(oc);
	free(oc);
	return rc;
}

int ts_dlio_cheapest(const struct ts_dlio_opts *o, const char *const *tiers, size_t ntiers,
		     const struct ts_price_set *prices, const struct ts_instance *instance,
		     struct ts_dlio_priced *out, size_t *cheapest, size_t *second,
		     bool *bad_request, char *err, size_t errlen)
{
	struct ts_tier_set *set;
	*bad_request = false;
	int rc = ts_tier_set_load_default(&set, err, errlen);
	if (rc)
		return rc;
	*cheapest = *second = NONE;
	for (size_t i = 0; i < ntiers && !rc; i++) {
		struct ts_dlio_priced *p = &out[i];
		memset(p, 0, sizeof(*p));
		p->tier = tiers[i];
		const struct ts_tier_profile *prof;
		struct ts_dlio_opts j = *o;
		j.tier = (char *)tiers[i];
		if ((rc = ts_tier_set_lookup(set, tiers[i], &prof, err, errlen))) {
			*bad_request = true;
			break;
		}
		uint64_t c = o->capacity;
		if (!c && instance && (c = ts_cost_local_disk(instance, prof, &p->clamped)))
			j.capacity = c;
		if ((rc = ts_cost_volume(prices, prof, c, &p->hour, err, errlen))) {
			*bad_request = true;
			break;
		}
		if (instance) {
			struct ts_cost_band h;
			ts_instance_hourly(instance, &h);
			p->hour.v += h.v;
			p->hour.low += h.low;
			p->hour.high += h.high;
		}
		rc = ts_dlio_reaches(&j, &p->reaches, &p->run, &p->au_threshold, bad_request, err,
				     errlen);
		if (rc || !p->reaches)
			continue;
		if (*cheapest == NONE || p->hour.v < out[*cheapest].hour.v) {
			*second = *cheapest;
			*cheapest = i;
		} else if (*second == NONE || p->hour.v < out[*second].hour.v) {
			*second = i;
		}
	}
	ts_tier_set_free(set);
	return rc;
}
