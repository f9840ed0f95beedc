/*
 * stats_keys.h — the keys of the stats JSON that readers look up: tierfs's
 * MOUNT/.tierfs/stats (fs/control.c) with the tier model's object under
 * TS_STATS_KEY_MODEL (tier_json.c), as the runner (scenario/runner.c) and the
 * tests read them. Writers and readers use these names, so a renamed key
 * cannot leave a reader finding nothing.
 *
 *   { "ops":   { "read": { "count", "bytes", ... }, "write": {...}, ... },
 *     "model": { "ops": { "read": { "bytes", "cache_hit_bytes", ... }, ... }, ... } }
 */
#ifndef TS_STATS_KEYS_H
#define TS_STATS_KEYS_H

#define TS_STATS_KEY_MODEL "model"   /* tierfs: the tier model's stats (tier_json.h) */
#define TS_STATS_KEY_OPS "ops"	     /* one object per op, keyed by the op's name */
#define TS_STATS_KEY_READ "read"     /* the read op (tierfs's and the model's) */
#define TS_STATS_KEY_WRITE "write"   /* the write op (tierfs's and the model's) */
#define TS_STATS_KEY_COUNT "count"   /* requests of the op */
#define TS_STATS_KEY_BYTES "bytes"   /* bytes the op moved */
#define TS_STATS_KEY_ERRORS "errors" /* requests of the op that failed */
#define TS_STATS_KEY_CACHE_HIT_BYTES "cache_hit_bytes" /* model: bytes the page cache served */
/* model: bytes of reads served from memory without waiting on the device */
#define TS_STATS_KEY_NOWAIT_BYTES "no_wait_bytes"
#define TS_STATS_KEY_DEVICE_BYTES "device_bytes" /* model: bytes moved to or from the device */

#endif
