/*
 * calibrate.h — measuring the cuda backend on the GPU at hand and writing
 * the result as a sim profile (engine/profiles format), so the sim backend
 * can be anchored on GPUs nobody published figures for. Used by `tiersim
 * calibrate engine --gpu` and by bench/gpu_check.sh.
 */
#ifndef TS_ENGINE_CALIBRATE_H
#define TS_ENGINE_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/ts.h"

#define TS_CALIB_MAX_BATCHES 16

struct ts_calib_cfg {
	const char *model;	/* netdef name, e.g. "resnet50" */
	const char *mode;	/* "train" | "infer" */
	const char *precision;	/* "fp32" | "tf32" */
	const char *framework;	/* framework name the anchors are filed under */
	const char *gpu_name;	/* "" = derived from the device name */
	uint64_t batches[TS_CALIB_MAX_BATCHES];
	int nbatches;
	uint64_t warmup, steps;
	uint64_t seed;
};

struct ts_calib_row {
	uint64_t batch;
	double samples_per_s;	      /* over the timed steps */
	uint64_t step_p50_ns, step_p99_ns;
	uint64_t mem_bytes;	      /* GPU memory the engine allocated */
};

/* c->batches from "16,32,64": up to TS_CALIB_MAX_BATCHES sizes above 0;
 * -EINVAL otherwise. */
TS_WUR int ts_engine_calib_batches(struct ts_calib_cfg *c, const char *s);

/* Measure every batch of @c (rows[i] for batches[i]) and write the profile
 * to @out (NULL = do not write). @log gets one line per batch (may be NULL).
 * TS_E_NO_GPU without a GPU or without the cuda backend in this build. */
TS_WUR int ts_engine_calibrate(const struct ts_calib_cfg *c, struct ts_calib_row *rows,
			       const char *out, FILE *log, char *err, size_t errlen);

#endif
