/*
 * calibrate_engine.c — `tiersim calibrate engine --gpu`: time the cuda
 * engine backend on this machine's GPU and write the figures as a sim
 * profile, so that `engine{ profile = FILE }` anchors the sim backend on a
 * GPU nobody published figures for (engine/calibrate.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmdline.h"
#include "cli/commands.h"
#include "core/opt.h"
#include "engine/calibrate.h"

struct cal_cfg {
	bool gpu;
	char *model, *mode, *precision, *framework, *gpu_name, *batches, *out;
	uint64_t warmup, steps, seed;
};

static const struct ts_opt cal_opts[] = {
	{ "gpu", TS_OPT_BOOL, offsetof(struct cal_cfg, gpu), "false", 0, 0, "",
	  "measure on the real GPU with the cuda backend (required)" },
	{ "model", TS_OPT_STR, offsetof(struct cal_cfg, model), "resnet50", 0, 0, "",
	  "network: alexnet, googlenet, resnet50, vgg16, inception3, cifar10" },
	{ "mode", TS_OPT_STR, offsetof(struct cal_cfg, mode), "train", 0, 0, "", "train or infer" },
	{ "precision", TS_OPT_STR, offsetof(struct cal_cfg, precision), "fp32", 0, 0, "",
	  "fp32 (strict FP32 math) or tf32 (tensor cores where the GPU has them)" },
	{ "batches", TS_OPT_STR, offsetof(struct cal_cfg, batches), "64,128", 0, 0, "",
	  "comma-separated batch sizes per GPU", "N,N,..." },
	{ "warmup", TS_OPT_U64, offsetof(struct cal_cfg, warmup), "5", 0, 10000, "steps",
	  "untimed steps first" },
	{ "steps", TS_OPT_U64, offsetof(struct cal_cfg, steps), "30", 1, 100000, "steps",
	  "timed steps per batch size" },
	{ "framework", TS_OPT_STR, offsetof(struct cal_cfg, framework), "tiersim-cudnn", 0, 0, "",
	  "framework profile the anchors are filed under" },
	{ "gpu_name", TS_OPT_STR, offsetof(struct cal_cfg, gpu_name), "", 0, 0, "",
	  "GPU name in the profile (default: from the device name)" },
	{ "seed", TS_OPT_U64, offsetof(struct cal_cfg, seed), "1", 0, 0, "",
	  "seed of the random weights" },
	{ "out", TS_OPT_STR, offsetof(struct cal_cfg, out), "engine-calibration.lua", 0, 0, "",
	  "profile to write", "FILE" },
	{ NULL },
};

static const struct ts_cmdline cal_cmdline = {
	.name = "calibrate engine",
	.synopsis = "--gpu [--OPTION VALUE]...",
	.about = "Runs the network's training (or inference) steps on GPU 0 with cuDNN and\n"
		 "cuBLAS, times them with CUDA events, and writes samples/s per batch size as a\n"
		 "sim-backend profile (load it with the engine option profile=FILE).\n",
	.opts = cal_opts,
	.max_pos = 0,
};

int ts_calibrate_engine(int argc, char **argv)
{
	struct cal_cfg c = { 0 };
	struct ts_opt_args args;
	char err[1024];
	int rc = ts_cmdline_parse(&cal_cmdline, &c, argc, argv, &args);
	if (rc >= 0)
		return rc;
	rc = TS_EXIT_USAGE;
	if (!c.gpu) {
		fprintf(stderr, "tiersim calibrate engine: only GPU calibration exists: add --gpu "
				"(the sim backend's own figures are in engine/profiles)\n");
		goto out;
	}
	struct ts_calib_cfg cc = {
		.model = c.model, .mode = c.mode, .precision = c.precision,
		.framework = c.framework, .gpu_name = c.gpu_name,
		.warmup = c.warmup, .steps = c.steps, .seed = c.seed,
	};
	if (ts_engine_calib_batches(&cc, c.batches)) {
		fprintf(stderr, "tiersim calibrate engine: option 'batches': '%s' is not a "
				"comma-separated list of up to %d positive sizes\n",
			c.batches, TS_CALIB_MAX_BATCHES);
		goto out;
	}
	struct ts_calib_row rows[TS_CALIB_MAX_BATCHES];
	rc = TS_EXIT_FAIL;
	if (ts_engine_calibrate(&cc, rows, c.out, stdout, err, sizeof err) < 0) {
		fprintf(stderr, "tiersim calibrate engine: %s\n", err);
		goto out;
	}
	printf("wrote %s (use it with the engine option profile=%s)\n", c.out, c.out);
	rc = TS_EXIT_OK;
out:
	ts_opt_free(cal_opts, &c);
	return rc;
}
