/* tier_json.c — struct ts_tier_stats as JSON (see tier_json.h). */
#include "tier/tier_json.h"

static json_t *limits_json(const struct ts_tier_limits *l)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "capacity_bytes", json_integer((json_int_t)l->capacity));
	json_object_set_new(o, "iops", json_real(l->iops));
	json_object_set_new(o, "read_iops", json_real(l->read_iops));
	json_object_set_new(o, "write_iops", json_real(l->write_iops));
	json_object_set_new(o, "bytes_per_s", json_real(l->bps));
	json_object_set_new(o, "read_bytes_per_s", json_real(l->read_bps));
	json_object_set_new(o, "write_bytes_per_s", json_real(l->write_bps));
	json_object_set_new(o, "io_unit", json_integer((json_int_t)l->io_unit));
	json_object_set_new(o, "parallel", json_integer(l->parallel));
	if (l->burst != TS_TIER_BURST_NONE) {
		json_object_set_new(o, "burst_iops", json_real(l->burst_iops));
		json_object_set_new(o, "burst_bytes_per_s", json_real(l->burst_bps));
		json_object_set_new(o, "bucket_size", json_real(l->bucket_size));
		json_object_set_new(o, "bucket_refill_per_s", json_real(l->bucket_refill));
	}
	return o;
}

static json_t *op_json(const struct ts_tier_op_stats *s)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, TS_STATS_KEY_COUNT, json_integer((json_int_t)s->count));
	json_object_set_new(o, TS_STATS_KEY_BYTES, json_integer((json_int_t)s->bytes));
	json_object_set_new(o, TS_STATS_KEY_CACHE_HIT_BYTES, json_integer((json_int_t)s->hit_bytes));
	json_object_set_new(o, TS_STATS_KEY_NOWAIT_BYTES, json_integer((json_int_t)s->nowait_bytes));
	json_object_set_new(o, TS_STATS_KEY_DEVICE_BYTES, json_integer((json_int_t)s->dev_bytes));
	json_object_set_new(o, "device_ios", json_integer((json_int_t)s->dev_ios));
	json_object_set_new(o, TS_STATS_KEY_ERRORS, json_integer((json_int_t)s->errors));
	json_object_set_new(o, "lat_mean_ns", json_real(s->lat_mean_ns));
	json_object_set_new(o, "lat_p50_ns", json_integer((json_int_t)s->lat_p50_ns));
	json_object_set_new(o, "lat_p99_ns", json_integer((json_int_t)s->lat_p99_ns));
	json_object_set_new(o, "lat_p999_ns", json_integer((json_int_t)s->lat_p999_ns));
	json_object_set_new(o, "lat_max_ns", json_integer((json_int_t)s->lat_max_ns));
	return o;
}

/* The layers' objects, in the stack's order (fault, cache, rate, device). */
static void layers_json(const struct ts_tier_stats *s, json_t *o)
{
	if (s->has_faults) {
		json_t *f = json_object();
		json_object_set_new(f, "rules", json_integer((json_int_t)s->faults.rules));
		json_object_set_new(f, "injected", json_integer((json_int_t)s->faults.injected));
		json_object_set_new(o, "faults", f);
	}
	if (s->has_cache) {
		json_t *c = json_object();
		json_object_set_new(c, "mem_bytes", json_integer((json_int_t)s->cache.mem));
		json_object_set_new(c, "resident_bytes", json_integer((json_int_t)s->cache.resident));
		json_object_set_new(c, "dirty_bytes", json_integer((json_int_t)s->cache.dirty));
		json_object_set_new(c, "writeback_bytes", json_integer((json_int_t)s->cache.writeback));
		json_object_set_new(c, "dirty_limit_bytes",
				    json_integer((json_int_t)s->cache.dirty_limit));
		json_object_set_new(c, "evicted_chunks",
				    json_integer((json_int_t)s->cache.evicted_chunks));
		json_object_set_new(c, "chunks", json_integer((json_int_t)s->cache.chunks));
		json_object_set_new(c, "chunk_bytes", json_integer((json_int_t)s->cache.chunk_bytes));
		json_object_set_new(o, "cache", c);
	}
	if (s->has_bucket) {
		double v = s->bucket.credits, size = s->bucket.size;
		json_t *b = json_object();
		json_object_set_new(b, "kind", json_string(s->bucket.kind == TS_TIER_BURST_IOPS
								   ? "iops"
								   : "bytes"));
		json_object_set_new(b, "credits", json_real(v));
		json_object_set_new(b, "size", json_real(size));
		json_object_set_new(b, "fraction", json_real(size > 0 && v > 0 ? v / size : 0));
		json_object_set_new(o, "bucket", b);
	}
	json_object_set_new(o, "queue_depth", json_integer(s->queue_depth));
}

json_t *ts_tier_stats_json(struct ts_tier *t)
{
	json_t *o = json_object(), *ops = json_object(), *bounds = json_object();
	if (!o || !ops || !bounds) {
		json_decref(o);
		json_decref(ops);
		json_decref(bounds);
		return NULL;
	}
	struct ts_tier_stats s;
	ts_tier_stats(t, &s);

	json_object_set_new(o, "tier", json_string(s.profile->name));
	json_object_set_new(o, "limits", limits_json(&s.limits));
	json_object_set_new(o, "floor_ns", json_integer((json_int_t)s.floor_ns));
	json_object_set_new(o, "mem_bytes", json_integer((json_int_t)s.mem));
	for (int i = 0; i < TS_TIER_OP_NR; i++)
		json_object_set_new(ops, ts_tier_op_name(i), op_json(&s.op[i]));
	json_object_set_new(o, TS_STATS_KEY_OPS, ops);
	const struct ts_tier_op_stats *rd = &s.op[TS_TIER_READ];
	json_object_set_new(o, "cache_hit_ratio",
			    json_real(rd->bytes ? (double)rd->hit_bytes / (double)rd->bytes : 0));
	for (int i = 0; i < TS_TIER_BOUND_NR; i++)
		json_object_set_new(bounds, ts_tier_bound_name(i),
				    json_integer((json_int_t)s.bound[i]));
	json_object_set_new(o, "bound_by", bounds);
	layers_json(&s, o);
	return o;
}
