/*
 * calibrate_decode.c — `tiersim calibrate decode`: measures what decoding
 * and transforming one JPEG costs a core of this machine and stores it, so
 * that the loader's modeled decode mode (used when more vCPUs are emulated
 * than the host has cores) charges a measured cost.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cmdline.h"
#include "cli/commands.h"
#include "core/opt.h"
#include "core/units.h"
#include "pipeline/decode.h"
#include "pipeline/loader.h"

struct cal_cfg {
	char *dir;
	uint64_t count;
	uint64_t seconds; /* ns */
	char *out;
	uint64_t out_size;
	uint64_t resize;
};

static const struct ts_opt cal_opts[] = {
	{ "dir", TS_OPT_STR, offsetof(struct cal_cfg, dir), "", 0, 0, "",
	  "folder of JPEG files (class sub-folders or flat); default: COUNT images made like "
	  "'tiersim dataset make imagenet-jpeg' in a temporary folder", "DIR" },
	{ "count", TS_OPT_U64, offsetof(struct cal_cfg, count), TS_STR(TS_DECODE_CAL_COUNT), 1, 1e7, "images",
	  "images to use, spread over the folder" },
	{ "seconds", TS_OPT_DURATION, offsetof(struct cal_cfg, seconds), TS_STR(TS_DECODE_CAL_SECONDS), 0, 0, "s",
	  "CPU time to spend measuring (whole passes over the images)" },
	{ "out", TS_OPT_STR, offsetof(struct cal_cfg, out), "", 0, 0, "",
	  "calibration file to write (default ~/.cache/tiersim/decode.json)", "FILE" },
	{ "out_size", TS_OPT_U64, offsetof(struct cal_cfg, out_size), "224", 8, 4096, "pixels",
	  "model input side, as the loader's out_size" },
	{ "resize", TS_OPT_U64, offsetof(struct cal_cfg, resize), "256", 0, 8192, "pixels",
	  "shorter side before the crop, as the loader's resize" },
	{ NULL },
};

static const struct ts_cmdline cal_cmdline = {
	.name = "calibrate decode",
	.synopsis = "[--dir DIR] [--OPTION VALUE]...",
	.about = "Times libjpeg-turbo decode alone and decode + resize + crop + flip + normalize\n"
		 "on one core, fits the cost per image as base + per-megapixel, and writes it\n"
		 "where the loader's modeled decode mode reads it.\n",
	.opts = cal_opts,
	.max_pos = 0,
};

int ts_calibrate_decode(int argc, char **argv)
{
	struct cal_cfg c = { 0 };
	struct ts_opt_args args;
	char err[1024];
	int rc = ts_cmdline_parse(&cal_cmdline, &c, argc, argv, &args);
	if (rc >= 0)
		return rc;
	rc = TS_EXIT_USAGE;
	char path[4096];
	if (*c.out)
		snprintf(path, sizeof path, "%s", c.out);
	else if (ts_pipe_default_calibration(path, sizeof path)) {
		fprintf(stderr, "tiersim calibrate decode: no HOME for the default file; give --out FILE\n");
		goto out;
	}
	rc = TS_EXIT_FAIL;
	struct ts_decode_cal cal;
	struct ts_decode_cal_detail det;
	if (ts_decode_calibrate_set(*c.dir ? c.dir : NULL, c.count, (unsigned)c.out_size,
				    (unsigned)c.resize, c.seconds, &cal, &det, err, sizeof err)) {
		fprintf(stderr, "tiersim calibrate decode: %s\n", err);
		goto out;
	}
	if (cal.tool[0]) {
		/* Every later run would charge it: refuse, as a run does. */
		fprintf(stderr,
			"tiersim calibrate decode: measured under %s (%.0f images/s a core), which "
			"slows decode; not saved to %s: run it without %s\n",
			cal.tool, cal.full_ips, path, cal.tool);
		goto out;
	}
	if (ts_decode_cal_save(path, &cal, err, sizeof err)) {
		fprintf(stderr, "tiersim calibrate decode: %s\n", err);
		goto out;
	}
	printf("decode calibration on %s (one core, thread CPU time)\n"
	       "  images        %zu distinct %s %s, %llu decodes, mean %.2f Mpixel, %.1f KB\n"
	       "  decode only   %.0f images/s/core (libjpeg-turbo to RGB, full size)\n"
	       "  + transform   %.0f images/s/core (resize %llu, crop %llu, flip, normalize)\n"
	       "  model         %.0f ns + %.0f ns/Mpixel per image (what decode=modeled charges)\n"
	       "  published     456-857 images/s/core, decode only, ImageNet val in RAM\n"
	       "                (ternaus/imread_benchmark via arXiv 2501.13131; simplejpeg)\n"
	       "  written       %s\n",
	       cal.cpu[0] ? cal.cpu : "this host", det.distinct, *c.dir ? "from" : "made as",
	       *c.dir ? c.dir : "imagenet-jpeg (seed 1)",
	       (unsigned long long)cal.images, det.mean_mpix, det.mean_bytes / 1e3, cal.decode_ips,
	       cal.full_ips, (unsigned long long)c.resize, (unsigned long long)c.out_size,
	       cal.base_ns, cal.ns_per_mpix, path);
	rc = TS_EXIT_OK;
out:
	ts_opt_free(cal_opts, &c);
	return rc;
}
