/*
 * calibrate.c — `tiersim calibrate engine --gpu`: time the cuda backend on
 * this GPU and write the figures as a sim profile (see calibrate.h).
 *
 * The profile holds anchors (samples/s per batch, measured), the framework
 * entry of the backend with its activation memory per sample fitted from
 * the memory measured at two batches, and, for a GPU the built-in profiles
 * do not know, a GPU entry from the device's properties.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "engine/calibrate.h"
#include "engine/engine.h"
#include "engine/netdef.h"
#include "engine/profile.h"
#include "ts_config.h"
#if TS_HAVE_CUDA
#include "engine/cuda.h"
#endif

#if TS_HAVE_CUDA
static int measure(const struct ts_calib_cfg *c, uint64_t batch, struct ts_calib_row *row,
		   char *err, size_t errlen)
{
	struct ts_engine_cfg ec;
	int rc = ts_engine_cfg_defaults(&ec, err, errlen);
	if (rc < 0)
		return rc;
	free(ec.backend), free(ec.model), free(ec.mode), free(ec.precision);
	ec.backend = strdup("cuda");
	ec.model = strdup(c->model);
	ec.mode = strdup(c->mode);
	ec.precision = strdup(c->precision);
	ec.batch = batch;
	ec.seed = c->seed;
	struct ts_engine *e = NULL;
	if (!ec.backend || !ec.model || !ec.mode || !ec.precision)
		rc = -ENOMEM;
	else
		rc = ts_engine_new(&ec, &e, err, errlen);
	ts_engine_cfg_free(&ec);
	if (rc < 0)
		return rc;
	struct ts_hist *h = malloc(sizeof(*h));
	if (!h) {
		ts_engine_free(e);
		return -ENOMEM;
	}
	ts_hist_init(h);
	struct ts_engine_step st;
	uint64_t sum = 0;
	for (uint64_t i = 0; i < c->warmup + c->steps && rc == 0; i++) {
		rc = ts_engine_step(e, 0, 0, &st);
		if (rc == 0 && i >= c->warmup) {
			ts_hist_add(h, st.compute_ns);
			sum += st.compute_ns;
		}
	}
	if (rc == 0) {
		row->batch = batch;
		row->samples_per_s = sum ? (double)(batch * c->steps) * 1e9 / (double)sum : 0;
		row->step_p50_ns = ts_hist_percentile(h, 50);
		row->step_p99_ns = ts_hist_percentile(h, 99);
		row->mem_bytes = ts_engine_get_info(e)->mem_bytes;
	} else if (!*err) {
		snprintf(err, errlen, "cuda backend: a step of batch %" PRIu64 " failed", batch);
	}
	free(h);
	ts_engine_free(e);
	return rc;
}

/* "NVIDIA H100 80GB HBM3" -> "H100 80GB HBM3"; then the built-in GPU whose
 * name starts the device's, if any. */
static void gpu_name(const struct ts_profiles *p, const char *dev, char *out, size_t n,
		     bool *known)
{
	static const char *const prefixes[] = { "NVIDIA ", "Tesla " };
	for (size_t i = 0; i < TS_ARRAY_SIZE(prefixes); i++)
		if (strncmp(dev, prefixes[i], strlen(prefixes[i])) == 0)
			dev += strlen(prefixes[i]);
	*known = false;
	for (size_t i = 0; p && i < p->ngpus; i++) {
		size_t l = strlen(p->gpus[i].name);
		if (strncasecmp(dev, p->gpus[i].name, l) == 0 &&
		    (dev[l] == 0 || dev[l] == ' ' || dev[l] == '-')) {
			snprintf(out, n, "%s", p->gpus[i].name);
			*known = true;
			return;
		}
	}
	size_t k = 0;
	for (; dev[k] && dev[k] != ' ' && k + 1 < n; k++)
		out[k] = dev[k];
	out[k] = 0;
}

static int write_profile(const struct ts_calib_cfg *c, const struct ts_calib_row *rows,
			 const struct ts_cuda_device *d, const char *out, char *err,
			 size_t errlen)
{
	struct ts_profiles *p = NULL;
	char name[64];
	bool known;
	if (ts_profiles_load(NULL, &p, err, errlen) < 0)
		p = NULL; /* name the GPU from the device alone */
	if (*c->gpu_name) {
		snprintf(name, sizeof(name), "%s", c->gpu_name);
		known = p && ts_prof_gpu_find(p, name);
	} else {
		gpu_name(p, d->name, name, sizeof(name), &known);
	}
	ts_profiles_free(p);

	FILE *f = fopen(out, "w");
	if (!f) {
		snprintf(err, errlen, "calibrate engine: cannot write %s: %s", out, strerror(errno));
		return -errno;
	}
	time_t now = time(NULL);
	char when[64];
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	fprintf(f,
		"-- Engine calibration written by `tiersim calibrate engine --gpu` on %s.\n"
		"-- Measured on %s (compute %d.%d, %d SMs, %.1f GiB), cuDNN %d, CUDA runtime %d:\n"
		"-- the cuda backend (engine/cuda.c) training %s, %s, %" PRIu64 " warm-up steps,\n"
		"-- then the mean of %" PRIu64 " steps timed with CUDA events.\n"
		"-- Use it with the engine option profile=THIS_FILE (framework %s, gpu %s).\n",
		when, d->name, d->major, d->minor, d->sms, d->mem_gib, d->cudnn_version,
		d->cuda_runtime, c->model, c->precision, c->warmup, c->steps, c->framework, name);
	if (!known)
		fprintf(f,
			"-- from the device's properties: fp32_tflops = SMs x FP32 lanes per SM x 2 x\n"
			"-- boost clock; memory bandwidth = 2 x memory clock x bus width. The\n"
			"-- interconnect is not measured: pcie3 is the conservative choice.\n"
			"gpu \"%s\" { mem_gib = %.2f, usable_mib = %.0f, fp32_tflops = %.2f,\n"
			"  mem_gbs = %.0f, link = \"pcie3\" }\n",
			name, d->mem_gib, d->usable_mib, d->fp32_tflops, d->mem_gbs);
	/* activation memory per sample from the two extreme batches */
	struct ts_net *n = NULL;
	if (c->nbatches >= 2 && ts_net_build(c->model, &n) == 0 && n->act_train > 0) {
		const struct ts_calib_row *a = &rows[0], *b = &rows[c->nbatches - 1];
		bool train = strcmp(c->mode, "train") == 0;
		double per = ((double)b->mem_bytes - (double)a->mem_bytes) /
			     (double)(b->batch - a->batch);
		double act = per / (4.0 * (double)(train ? n->act_train : n->act_infer));
		if (strcmp(c->framework, "tiersim-cudnn") == 0 && train && per > 0)
			fprintf(f,
				"-- act_train measured: %.0f bytes more GPU memory per sample from "
				"batch %" PRIu64 " to %" PRIu64 "\n"
				"-- over %" PRIu64 " activation elements x 4 bytes (engine/netdef.c).\n"
				"framework \"tiersim-cudnn\" { aliases = { \"cudnn\" }, precision = \"fp32\",\n"
				"  efficiency_as = \"tensorflow-2017\", context_mib = 400, state_copies = 3,\n"
				"  act_train = %.3f, act_infer = \"all\",\n"
				"  allreduce_eff = 1.0, allreduce_gbs = 2.8, overlap = 1.0, sync_ms = 8.5,\n"
				"  jitter_p99 = 1.02 }\n",
				per, a->batch, b->batch, (uint64_t)n->act_train, act);
	}
	ts_net_free(n);
	for (int i = 0; i < c->nbatches; i++)
		fprintf(f,
			"anchor { framework = \"%s\", model = \"%s\", gpu = \"%s\", mode = \"%s\",\n"
			"  precision = \"%s\", batch = %" PRIu64 ", value = %.2f,\n"
			"  evidence = { \"measured\", \"tiersim calibrate engine --gpu on %s, %s; "
			"step p50 %.2f ms, p99 %.2f ms\" } }\n",
			c->framework, c->model, name, c->mode, c->precision, rows[i].batch,
			rows[i].samples_per_s, d->name, when, rows[i].step_p50_ns / 1e6,
			rows[i].step_p99_ns / 1e6);
	if (fclose(f) != 0) {
		snprintf(err, errlen, "calibrate engine: writing %s: %s", out, strerror(errno));
		return -EIO;
	}
	return 0;
}
#endif

int ts_engine_calib_batches(struct ts_calib_cfg *c, const char *s)
{
	const char *p = s;
	c->nbatches = 0;
	while (*p) {
		char *end;
		unsigned long long v = strtoull(p, &end, 10);
		if (end == p || v == 0 || c->nbatches == TS_CALIB_MAX_BATCHES)
			return -EINVAL;
		c->batches[c->nbatches++] = v;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -EINVAL;
	}
	return c->nbatches ? 0 : -EINVAL;
}

int ts_engine_calibrate(const struct ts_calib_cfg *c, struct ts_calib_row *rows, const char *out,
			FILE *log, char *err, size_t errlen)
{
#if TS_HAVE_CUDA
	struct ts_cuda_device d;
	int rc = ts_cuda_device(&d, err, errlen);
	if (rc < 0)
		return rc;
	if (log)
		fprintf(log, "calibrating %s %s on %s (cuDNN %d, %d SMs, %.1f GiB)\n", c->model,
			c->mode, d.name, d.cudnn_version, d.sms, d.mem_gib);
	for (int i = 0; i < c->nbatches; i++) {
		err[0] = 0;
		rc = measure(c, c->batches[i], &rows[i], err, errlen);
		if (rc < 0)
			return rc;
		if (log)
			fprintf(log,
				"  batch %4" PRIu64 ": %9.1f samples/s  step p50 %8.2f ms  p99 %8.2f ms  "
				"GPU memory %.2f GiB (measured)\n",
				rows[i].batch, rows[i].samples_per_s, rows[i].step_p50_ns / 1e6,
				rows[i].step_p99_ns / 1e6, (double)rows[i].mem_bytes / TS_GiB);
	}
	return out ? write_profile(c, rows, &d, out, err, errlen) : 0;
#else
	(void)c, (void)rows, (void)out, (void)log;
	snprintf(err, errlen,
		 "this build has no cuda backend (nvcc, cuDNN or cuBLAS were not found when it "
		 "was configured): install CUDA and cuDNN and rebuild with -Dcuda=enabled");
	return TS_E_NO_GPU;
#endif
}
