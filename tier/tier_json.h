/*
 * tier_json.h — the tier model's stats (struct ts_tier_stats) as JSON, the
 * form tierfs serves under "model" in MOUNT/.tierfs/stats. Kept apart from
 * tier.h so that users of the model do not need jansson; the keys readers
 * look up are in stats_keys.h.
 */
#ifndef TS_TIER_JSON_H
#define TS_TIER_JSON_H

#include <jansson.h>

#include "tier/stats_keys.h"
#include "tier/tier.h"

/* A new JSON object (caller owns the reference) with the tier, its
 * limits, per-op counts, bytes and latency p50/p99/p99.9, bucket levels,
 * cache hit ratio, dirty bytes and queue depth. NULL on ENOMEM. */
json_t *ts_tier_stats_json(struct ts_tier *t);

#endif
