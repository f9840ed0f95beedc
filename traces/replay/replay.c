/*
 * replay.c — what a replay takes from beside the trace's records: the
 * tier-model options the recording ran with (its header's model fields)
 * and its wake file. The rule itself is in replay.h; the files of this folder:
 * rules.c (when a thread issues), virtual.c and real.c (the two clocks),
 * recorded.c (the recording's own figures), augment.c (the wake file as
 * records), cpu.c (the CPU model), report.c (the tables).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "traces/replay/replay.h"

int ts_replay_wakes_beside(const char *trace, struct ts_wakes *s, char *err, size_t errlen)
{
	char path[4096];
	if ((size_t)snprintf(path, sizeof(path), "%s.wakes", trace) >= sizeof(path) ||
	    access(path, F_OK))
		return 0;
	int e = ts_wakes_read(path, s, err, errlen);
	return e ? e : 1;
}

void ts_replay_tier_recorded(const struct ts_trace *t, struct ts_tier_cfg *cfg)
{
	const struct ts_trace_hdr *h = &t->hdr;

	if (h->model & TS_TRACE_MODEL_SEED)
		cfg->seed = h->seed;
	if (h->model & TS_TRACE_MODEL_FLOOR)
		cfg->floor_ns = h->floor_ns;
	if (h->model & TS_TRACE_MODEL_DIRTY_LIMIT)
		cfg->dirty_limit = h->dirty_limit;
	if (h->model & TS_TRACE_MODEL_RA_MAX)
		cfg->ra_max = h->ra_max;
	if (h->model & TS_TRACE_MODEL_MEM_BPS)
		cfg->mem_bps = h->mem_bps;
	if (h->model & TS_TRACE_MODEL_EBS)
		cfg->ebs = (struct ts_tier_ebs){ .iops = h->ebs_iops,
						 .max_iops = h->ebs_max_iops,
						 .bps = h->ebs_bps,
						 .max_bps = h->ebs_max_bps,
						 .burst_s = h->ebs_burst_s };
	/* capacity and mem: the header's whenever it has them */
	if (h->capacity || (h->model & TS_TRACE_MODEL_CAPACITY))
		cfg->capacity = h->capacity;
	if (h->mem || (h->model & TS_TRACE_MODEL_MEM))
		cfg->mem = h->mem;
}
