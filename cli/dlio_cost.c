/*
 * dlio_cost.c — DLIO workloads with prices (see dlio_cost.h). A volume
 * passes when the run of N accelerators on it keeps the workload's AU
 * threshold (metric.au, 90% for the MLPerf Storage training workloads);
 * among those that pass the cheapest per hour is the answer: the
 * accelerators are the same on every volume, so per hour is per sample.
 * The instance's own local disk is one of its disks in size, as a
 * scenario's run on it is, unless a capacity is given.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "cost/cost.h"
#include "dlio_cost.h"
#include "tier/tier.h"

#define NONE ((size_t)-1)

int ts_dlio_reaches(const struct ts_dlio_job *job, const char *tier, bool *yes,
		    struct ts_dlio_outcome *out, char *err, size_t errlen)
{
	const char *opts[40];
	char t[256], n[64];
	if (job->nopts + 2 > TS_ARRAY_SIZE(opts)) {
		snprintf(err, errlen, "at most %zu options", TS_ARRAY_SIZE(opts) - 2);
		return TS_EXIT_USAGE;
	}
	snprintf(t, sizeof(t), "tier=%s", tier);
	snprintf(n, sizeof(n), "accelerators=%llu", (unsigned long long)job->accelerators);
	size_t no = 0;
	opts[no++] = t;
	opts[no++] = n;
	for (size_t i = 0; i < job->nopts; i++)
		opts[no++] = job->opts[i];
	int status = ts_dlio_run(job->workload, opts, no, job->overrides, job->nov,
				 job->virtual_time, out, err, errlen);
	*yes = !status && out->found && out->au >= out->au_threshold;
	return status;
}

int ts_dlio_cheapest(const struct ts_dlio_job *job, const char *const *tiers, size_t ntiers,
		     const struct ts_price_set *prices, const struct ts_instance *instance,
		     uint64_t capacity, struct ts_dlio_priced *out, size_t *cheapest,
		     size_t *second, char *err, size_t errlen)
{
	struct ts_tier_set *set;
	int rc = ts_tier_set_load_default(&set, err, errlen);
	if (rc)
		return TS_EXIT_FAIL;
	*cheapest = *second = NONE;
	int status = 0;
	for (size_t i = 0; i < ntiers && !status; i++) {
		struct ts_dlio_priced *p = &out[i];
		memset(p, 0, sizeof(*p));
		p->tier = tiers[i];
		const struct ts_tier_profile *prof;
		struct ts_dlio_job j = *job;
		const char *words[48];
		char cap[64];
		uint64_t c = capacity;
		if (ts_tier_set_lookup(set, tiers[i], &prof, err, errlen)) {
			status = TS_EXIT_USAGE;
			break;
		}
		if (!c && instance && job->nopts < TS_ARRAY_SIZE(words) &&
		    (c = ts_cost_local_disk(instance, prof, &p->clamped))) {
			snprintf(cap, sizeof(cap), "capacity=%llu", (unsigned long long)c);
			memcpy(words, job->opts, job->nopts * sizeof(*words));
			words[j.nopts++] = cap;
			j.opts = words;
		}
		if (ts_cost_volume(prices, prof, c, &p->hour, err, errlen)) {
			status = TS_EXIT_USAGE;
			break;
		}
		if (instance) {
			struct ts_cost_band h;
			ts_instance_hourly(instance, &h);
			p->hour.v += h.v;
			p->hour.low += h.low;
			p->hour.high += h.high;
		}
		status = ts_dlio_reaches(&j, tiers[i], &p->reaches, &p->run, err, errlen);
		if (status || !p->reaches)
			continue;
		if (*cheapest == NONE || p->hour.v < out[*cheapest].hour.v) {
			*second = *cheapest;
			*cheapest = i;
		} else if (*second == NONE || p->hour.v < out[*second].hour.v) {
			*second = i;
		}
	}
	ts_tier_set_free(set);
	return status;
}
