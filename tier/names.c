/*
 * names.c — the names of the model's ops and bounds (tier_base.h), in
 * stats, traces and messages; a file of its own so that the layers that
 * name an op (fault.c) need nothing of the model (tier.c).
 */
#include "tier/stats_keys.h"
#include "tier/tier_base.h"

const char *ts_tier_op_name(enum ts_tier_op op)
{
	/* The names are the keys of the per-op stats (stats_keys.h). */
	static const char *const n[] = { TS_STATS_KEY_READ, TS_STATS_KEY_WRITE, "fsync",
					 "fdatasync", "meta" };
	return op < TS_TIER_OP_NR ? n[op] : "?";
}

const char *ts_tier_bound_name(enum ts_tier_bound b)
{
	static const char *const n[] = { "latency", "memory", "iops",  "bandwidth",
					 "burst",   "slots",  "dirty", "flush",
					 "instance" };
	return b < TS_TIER_BOUND_NR ? n[b] : "?";
}
