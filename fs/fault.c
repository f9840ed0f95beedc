/*
 * fault.c — the fault-injection layer: fails chosen requests with a chosen
 * -errno, so that tests can drive the IO error paths of tierfs, the loader
 * and the replayer (the role of SQLite's test_vfs.c). With no rule it only
 * passes requests on.
 */
#include <stdlib.h>

#include "tier_layer.h"

struct fault {
	struct ts_tier_layer l;
	struct ts_tier_fault rule[TS_TIER_MAX_FAULTS];
	unsigned n;
	struct ts_rng rng;
};

static bool matches(const struct ts_tier_fault *f, const struct ts_tier_req *req)
{
	if (f->op != TS_TIER_OP_NR && f->op != req->op)
		return false;
	if (f->file != UINT64_MAX && f->file != req->file)
		return false;
	if (f->len && (req->off >= f->off + f->len || req->off + req->len <= f->off))
		return false;
	return true;
}

static uint64_t fault_submit(struct ts_tier_layer *l, uint64_t now, const struct ts_tier_req *req,
			     struct ts_tier_done *done)
{
	struct fault *f = (struct fault *)l;
	for (unsigned i = 0; i < f->n; i++) {
		if (!matches(&f->rule[i], req))
			continue;
		if (f->rule[i].probability >= 1 || ts_rng_double(&f->rng) < f->rule[i].probability) {
			done->err = f->rule[i].err;
			return now; /* fails at once, as a device reporting an error */
		}
	}
	return ts_tier_layer_next(l, now, req, done);
}

static void fault_free(struct ts_tier_layer *l)
{
	free(l);
}

static const struct ts_tier_layer_ops fault_ops = {
	.name = "fault",
	.submit = fault_submit,
	.free = fault_free,
};

struct ts_tier_layer *ts_tier_fault_new(uint64_t seed)
{
	struct fault *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->l.ops = &fault_ops;
	/* Its own stream, so that adding a rule does not shift latency samples. */
	ts_rng_seed(&f->rng, seed ^ 0x6661756c74ULL);
	return &f->l;
}

int ts_tier_fault_layer_add(struct ts_tier_layer *l, const struct ts_tier_fault *rule)
{
	struct fault *f = (struct fault *)l;
	if (rule->err >= 0 || rule->op > TS_TIER_OP_NR || !(rule->probability >= 0) ||
	    rule->probability > 1)
		return -EINVAL;
	if (f->n == TS_TIER_MAX_FAULTS)
		return -ENOSPC;
	f->rule[f->n++] = *rule;
	return 0;
}

void ts_tier_fault_layer_clear(struct ts_tier_layer *l)
{
	((struct fault *)l)->n = 0;
}
