/*
 * null.c — the engine backend the core and the runners are tested against:
 * every step computes for exactly cfg.step_ns and communicates for nothing,
 * and the engine claims no GPU memory.
 */
#include <stdio.h>
#include <string.h>

#include "engine/engine_int.h"

static int null_init(struct ts_engine *e, char *err, size_t errlen)
{
	struct ts_engine_info *i = &e->info;
	snprintf(i->model, sizeof(i->model), "%s", e->cfg.model);
	snprintf(i->gpu, sizeof(i->gpu), "null");
	snprintf(i->framework, sizeof(i->framework), "null");
	snprintf(i->source, sizeof(i->source), "fixed step time (null backend)");
	i->mode = e->mode;
	i->gpus = e->cfg.gpus;
	i->batch = e->cfg.batch;
	i->basis = TS_BASIS_FIXED;
	i->compute_ns = e->cfg.step_ns;
	i->jitter_p99 = 1.0;
	if (e->cfg.step_ns) {
		i->samples_per_s_1gpu = (double)e->cfg.batch * 1e9 / (double)e->cfg.step_ns;
		i->samples_per_s = i->samples_per_s_1gpu * (double)e->cfg.gpus;
	}
	return 0;
}

static int null_step(struct ts_engine *e, uint64_t samples, uint64_t *compute_ns,
		     uint64_t *comm_ns)
{
	*compute_ns = e->cfg.step_ns;
	*comm_ns = 0;
	return 0;
}

static void null_cleanup(struct ts_engine *e)
{
}

const struct ts_engine_ops ts_engine_null_ops = {
	.name = "null",
	.version = TS_ENGINE_OPS_VERSION,
	.flags = TS_ENGINE_VIRTUAL,
	.help = "fixed step time (option step), no communication, no memory",
	.init = null_init,
	.step = null_step,
	.cleanup = null_cleanup,
};
