/*
 * engine.c — the backend-independent part of the engine: configuration,
 * the registry, the step clock and the run report (see engine.h).
 *
 * The clock here is the caller's: a step starts when both its batch is
 * ready and the GPU is free, so the GPU's idle time between steps is the
 * time it waited for data. Everything below is arithmetic on the times the
 * caller passes in, which is why virtual-time tests of AU are exact.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "engine/engine.h"
#include "engine/engine_int.h"

const struct ts_opt ts_engine_opts[] = {
	{ "backend", TS_OPT_STR, offsetof(struct ts_engine_cfg, backend), "sim", 0, 0, "",
	  "engine backend: sim (profiles, every machine), cuda (real GPU), null (fixed step)" },
	{ "model", TS_OPT_STR, offsetof(struct ts_engine_cfg, model), "resnet50", 0, 0, "",
	  "network: alexnet, googlenet, resnet50, vgg16, inception3, lstm-ptb-medium, "
	  "lstm-ptb-large, cifar10" },
	{ "gpu", TS_OPT_STR, offsetof(struct ts_engine_cfg, gpu), "P100-PCIe", 0, 0, "",
	  "GPU type: K80, P4, P100-PCIe, P100-SXM2, V100, A100, H100 (engine/profiles/gpus.lua)" },
	{ "gpus", TS_OPT_U64, offsetof(struct ts_engine_cfg, gpus), "1", 1, 1024, "",
	  "data-parallel GPU count" },
	{ "batch", TS_OPT_U64, offsetof(struct ts_engine_cfg, batch), "64", 1, 65536, "samples",
	  "batch size per GPU" },
	{ "mode", TS_OPT_STR, offsetof(struct ts_engine_cfg, mode), "train", 0, 0, "",
	  "train (forward + backward + update) or infer (forward)" },
	{ "framework", TS_OPT_STR, offsetof(struct ts_engine_cfg, framework), "nvcaffe", 0, 0, "",
	  "framework profile: nvcaffe, caffe, mxnet, tensorflow-2017, pytorch-2021" },
	{ "precision", TS_OPT_STR, offsetof(struct ts_engine_cfg, precision), "", 0, 0, "",
	  "fp32, tf32 or amp; empty = the framework's default" },
	{ "link", TS_OPT_STR, offsetof(struct ts_engine_cfg, link), "", 0, 0, "",
	  "GPU interconnect for the allreduce: pcie3, nvlink1..nvlink4; empty = the GPU's" },
	{ "profile", TS_OPT_STR, offsetof(struct ts_engine_cfg, profile), "", 0, 0, "",
	  "extra Lua profile (e.g. from tiersim calibrate engine) merged over the built-in ones" },
	{ "hold_out", TS_OPT_STR, offsetof(struct ts_engine_cfg, hold_out), "", 0, 0, "",
	  "sim: leave this run's own published figures out of the profiles before fitting: "
	  "batch (the figure at this batch) or combination (every batch of this framework, "
	  "model, GPU, mode and precision); what the model predicts where nothing is published" },
	{ "seed", TS_OPT_U64, offsetof(struct ts_engine_cfg, seed), "1", 0, 0, "",
	  "seed of the step-time jitter" },
	{ "step", TS_OPT_DURATION, offsetof(struct ts_engine_cfg, step_ns), "100ms", 0, 0, "",
	  "null backend: fixed compute time per step" },
	{ "data", TS_OPT_BOOL, offsetof(struct ts_engine_cfg, data), "false", 0, 0, "",
	  "cuda backend: also run the u8 -> float preprocessing kernel on each batch" },
	{ NULL },
};

const char *ts_engine_basis_name(enum ts_engine_basis b)
{
	switch (b) {
	case TS_BASIS_ANCHORED: return "anchored";
	case TS_BASIS_INTERPOLATED: return "interpolated";
	case TS_BASIS_MODELED: return "modeled";
	case TS_BASIS_MEASURED: return "measured";
	case TS_BASIS_FIXED: return "fixed";
	}
	return "?";
}

/*
 * The registry is one explicit array, not constructor registration: a
 * static library drops objects nothing references.
 */
static const struct ts_engine_ops *const backends[] = {
	&ts_engine_sim_ops,
	&ts_engine_null_ops,
#if TS_HAVE_CUDA
	&ts_engine_cuda_ops,
#endif
	NULL,
};

const struct ts_engine_ops *const *ts_engine_backends(void)
{
	return backends;
}

const struct ts_engine_ops *ts_engine_backend_find(const char *name)
{
	for (const struct ts_engine_ops *const *o = backends; *o; o++)
		if (strcmp((*o)->name, name) == 0)
			return *o;
	return NULL;
}

int ts_engine_ops_check(const struct ts_engine_ops *ops, char *err, size_t errlen)
{
	const char *name = ops && ops->name ? ops->name : "(unnamed)";
	if (!ops || !ops->name) {
		snprintf(err, errlen, "engine backend %s: no name", name);
		return -EINVAL;
	}
	if (ops->version != TS_ENGINE_OPS_VERSION) {
		snprintf(err, errlen, "engine backend %s: ops version %u, this build needs %u",
			 name, ops->version, TS_ENGINE_OPS_VERSION);
		return TS_E_VERSION;
	}
	if (!ops->init || !ops->step || !ops->cleanup) {
		snprintf(err, errlen, "engine backend %s: missing %s hook", name,
			 !ops->init ? "init" : !ops->step ? "step" : "cleanup");
		return -EINVAL;
	}
	return 0;
}

int ts_engine_cfg_defaults(struct ts_engine_cfg *cfg, char *err, size_t errlen)
{
	memset(cfg, 0, sizeof(*cfg));
	return ts_opt_defaults(ts_engine_opts, cfg, err, errlen);
}

void ts_engine_cfg_free(struct ts_engine_cfg *cfg)
{
	ts_opt_free(ts_engine_opts, cfg);
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

static int cfg_copy(struct ts_engine_cfg *dst, const struct ts_engine_cfg *src)
{
	*dst = *src;
	dst->backend = dup_or_empty(src->backend);
	dst->model = dup_or_empty(src->model);
	dst->gpu = dup_or_empty(src->gpu);
	dst->mode = dup_or_empty(src->mode);
	dst->framework = dup_or_empty(src->framework);
	dst->precision = dup_or_empty(src->precision);
	dst->link = dup_or_empty(src->link);
	dst->profile = dup_or_empty(src->profile);
	dst->hold_out = dup_or_empty(src->hold_out);
	if (!dst->backend || !dst->model || !dst->gpu || !dst->mode || !dst->framework ||
	    !dst->precision || !dst->link || !dst->profile || !dst->hold_out)
		return -ENOMEM;
	return 0;
}

/* Backend lookup and the checks every backend shares. */
static int engine_setup(struct ts_engine *e, const struct ts_engine_cfg *cfg, char *err,
			size_t errlen)
{
	int rc = cfg_copy(&e->cfg, cfg);
	if (rc < 0) {
		snprintf(err, errlen, "engine: out of memory");
		return rc;
	}
	if (strcmp(e->cfg.mode, "train") == 0) {
		e->mode = TS_ENGINE_TRAIN;
	} else if (strcmp(e->cfg.mode, "infer") == 0) {
		e->mode = TS_ENGINE_INFER;
	} else {
		snprintf(err, errlen, "engine option 'mode': '%s' is not train or infer",
			 e->cfg.mode);
		return TS_E_PARSE;
	}
	if (e->cfg.gpus < 1 || e->cfg.batch < 1) {
		snprintf(err, errlen, "engine: gpus and batch must be at least 1");
		return TS_E_PARSE;
	}
	e->ops = ts_engine_backend_find(e->cfg.backend);
	if (!e->ops) {
		snprintf(err, errlen, "engine option 'backend': unknown backend '%s'%s",
			 e->cfg.backend,
			 strcmp(e->cfg.backend, "cuda") == 0
				 ? " (this build has no CUDA: install CUDA and cuDNN and rebuild)"
				 : " (known: sim, null"
#if TS_HAVE_CUDA
				   ", cuda"
#endif
				   ")");
		return TS_E_UNKNOWN;
	}
	rc = ts_engine_ops_check(e->ops, err, errlen);
	if (rc < 0)
		return rc;
	ts_rng_seed(&e->rng, e->cfg.seed);
	return 0;
}

int ts_engine_new(const struct ts_engine_cfg *cfg, struct ts_engine **out, char *err,
		  size_t errlen)
{
	struct ts_engine *e = calloc(1, sizeof(*e));
	*out = NULL;
	if (!e) {
		snprintf(err, errlen, "engine: out of memory");
		return -ENOMEM;
	}
	e->step_hist = malloc(sizeof(*e->step_hist));
	e->wait_hist = malloc(sizeof(*e->wait_hist));
	if (!e->step_hist || !e->wait_hist) {
		ts_engine_free(e);
		snprintf(err, errlen, "engine: out of memory");
		return -ENOMEM;
	}
	ts_hist_init(e->step_hist);
	ts_hist_init(e->wait_hist);
	int rc = engine_setup(e, cfg, err, errlen);
	if (rc == 0)
		rc = e->ops->init(e, err, errlen);
	if (rc < 0) {
		ts_engine_free(e);
		return rc;
	}
	*out = e;
	return 0;
}

void ts_engine_free(struct ts_engine *e)
{
	if (!e)
		return;
	if (e->ops)
		e->ops->cleanup(e);
	free(e->step_hist);
	free(e->wait_hist);
	ts_engine_cfg_free(&e->cfg);
	free(e);
}

int ts_engine_estimate(const struct ts_engine_cfg *cfg, struct ts_engine_info *info, char *err,
		       size_t errlen)
{
	struct ts_engine e;
	memset(&e, 0, sizeof(e));
	memset(info, 0, sizeof(*info));
	int rc = engine_setup(&e, cfg, err, errlen);
	if (rc == 0)
		rc = e.ops->init(&e, err, errlen);
	*info = e.info;
	if (e.ops)
		e.ops->cleanup(&e);
	ts_engine_cfg_free(&e.cfg);
	return rc;
}

void ts_engine_begin(struct ts_engine *e, uint64_t t0_ns)
{
	e->begun = true;
	e->t0_ns = t0_ns;
	e->last_end_ns = t0_ns;
}

int ts_engine_step(struct ts_engine *e, uint64_t batch_ready_ns, uint64_t samples,
		   struct ts_engine_step *st)
{
	if (samples == 0 || samples > e->cfg.batch)
		samples = e->cfg.batch;
	if (!e->begun)
		ts_engine_begin(e, batch_ready_ns);

	uint64_t compute = 0, comm = 0;
	int rc = e->ops->step(e, samples, &compute, &comm);
	if (rc < 0)
		return rc;

	memset(st, 0, sizeof(*st));
	st->index = e->steps;
	st->samples = samples * e->cfg.gpus;
	st->ready_ns = batch_ready_ns;
	st->start_ns = TS_MAX(batch_ready_ns, e->last_end_ns);
	st->wait_ns = st->start_ns - e->last_end_ns;
	st->compute_ns = compute;
	st->comm_ns = comm;
	st->end_ns = st->start_ns + compute + comm;

	if (e->steps == 0) {
		e->first_end_ns = st->end_ns;
		e->first_step_ns = st->end_ns - e->t0_ns;
	} else {
		e->wait_ns += st->wait_ns;
		e->compute_ns += compute;
		e->comm_ns += comm;
		e->samples += st->samples;
		ts_hist_add(e->step_hist, compute + comm);
		ts_hist_add(e->wait_hist, st->wait_ns);
	}
	e->last_end_ns = st->end_ns;
	e->steps++;
	return 0;
}

void ts_engine_hold(struct ts_engine *e, const struct ts_engine_step *st)
{
	if (e->ops->flags & TS_ENGINE_VIRTUAL)
		ts_sleep_until_ns(st->end_ns);
}

const struct ts_engine_info *ts_engine_get_info(const struct ts_engine *e)
{
	return &e->info;
}

void ts_engine_report(const struct ts_engine *e, struct ts_engine_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	rep->steps = e->steps;
	rep->samples = e->samples;
	rep->wait_ns = e->wait_ns;
	rep->compute_ns = e->compute_ns;
	rep->comm_ns = e->comm_ns;
	rep->first_step_ns = e->first_step_ns;
	rep->info = e->info;
	if (e->steps >= 2) {
		rep->wall_ns = e->last_end_ns - e->first_end_ns;
		if (rep->wall_ns) {
			rep->au = (double)(e->compute_ns + e->comm_ns) / (double)rep->wall_ns;
			rep->au_compute = (double)e->compute_ns / (double)rep->wall_ns;
			rep->samples_per_s = (double)e->samples * 1e9 / (double)rep->wall_ns;
		}
		rep->step_p50_ns = ts_hist_percentile(e->step_hist, 50);
		rep->step_p90_ns = ts_hist_percentile(e->step_hist, 90);
		rep->step_p99_ns = ts_hist_percentile(e->step_hist, 99);
		rep->step_max_ns = e->step_hist->max;
		rep->wait_p50_ns = ts_hist_percentile(e->wait_hist, 50);
		rep->wait_p99_ns = ts_hist_percentile(e->wait_hist, 99);
	}
}

struct json_t *ts_engine_report_json(const struct ts_engine_report *r)
{
	const struct ts_engine_info *i = &r->info;
	json_t *info = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:f, s:f, s:I, s:I, s:I, s:I, s:f}",
		"model", i->model, "gpu", i->gpu, "framework", i->framework, "link", i->link,
		"precision", i->precision, "mode", i->mode == TS_ENGINE_TRAIN ? "train" : "infer",
		"gpus", (json_int_t)i->gpus, "batch_per_gpu", (json_int_t)i->batch, "basis",
		ts_engine_basis_name(i->basis), "source", i->source, "nominal_samples_per_s",
		i->samples_per_s, "nominal_samples_per_s_1gpu", i->samples_per_s_1gpu,
		"nominal_compute_ns", (json_int_t)i->compute_ns, "nominal_comm_ns",
		(json_int_t)i->comm_ns, "gpu_mem_needed_bytes", (json_int_t)i->mem_bytes,
		"gpu_mem_capacity_bytes", (json_int_t)i->mem_capacity, "jitter_p99_over_p50",
		i->jitter_p99);
	if (!info)
		return NULL;
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:I, s:I, s:I, s:I, "
			 "s:I, s:I, s:o}",
			 "steps", (json_int_t)r->steps, "samples", (json_int_t)r->samples,
			 "wall_ns", (json_int_t)r->wall_ns, "wait_ns", (json_int_t)r->wait_ns,
			 "compute_ns", (json_int_t)r->compute_ns, "comm_ns",
			 (json_int_t)r->comm_ns, "first_step_ns", (json_int_t)r->first_step_ns,
			 "samples_per_s", r->samples_per_s, "au", r->au, "au_compute",
			 r->au_compute, "step_p50_ns",
			 (json_int_t)r->step_p50_ns, "step_p90_ns", (json_int_t)r->step_p90_ns,
			 "step_p99_ns", (json_int_t)r->step_p99_ns, "step_max_ns",
			 (json_int_t)r->step_max_ns, "wait_p50_ns", (json_int_t)r->wait_p50_ns,
			 "wait_p99_ns", (json_int_t)r->wait_p99_ns, "engine", info);
}

char *ts_engine_describe(const struct ts_engine *e, char *buf, size_t n)
{
	const struct ts_engine_info *i = &e->info;
	snprintf(buf, n, "engine %s %s x%" PRIu64 " (profile %s) %s %s b%" PRIu64 ", %s",
		 e->ops->name, i->gpu, i->gpus, i->framework, i->model,
		 i->mode == TS_ENGINE_TRAIN ? "train" : "infer", i->batch,
		 ts_engine_basis_name(i->basis));
	return buf;
}
