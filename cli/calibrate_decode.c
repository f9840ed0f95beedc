/*
 * calibrate_decode.c — `tiersim calibrate decode`: measures what decoding
 * and transforming one JPEG costs a core of this machine and stores it, so
 * that the loader's modeled decode mode (used when more vCPUs are emulated
 * than the host has cores) charges a measured cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmdline.h"
#include "cli/commands.h"
#include "core/files.h"
#include "core/opt.h"
#include "core/units.h"
#include "pipeline/dataset.h"
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
	{ "count", TS_OPT_U64, offsetof(struct cal_cfg, count), "200", 1, 1e7, "images",
	  "images to use, spread over the folder" },
	{ "seconds", TS_OPT_DURATION, offsetof(struct cal_cfg, seconds), "3", 0, 0, "s",
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

/* COUNT ImageNet-like JPEGs, generated as 'tiersim dataset make
 * imagenet-jpeg' makes them, in a new folder under $TMPDIR. */
static int make_set(uint64_t count, char *dir, size_t n)
{
	struct ts_dataset_config dc = { 0 };
	struct ts_dataset_stats st;
	char err[1024];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, n, "%s/tiersim-calibrate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "tiersim calibrate decode: %s: cannot make a temporary folder: %s "
				"(set TMPDIR, or give --dir)\n", dir, ts_strerror(-errno));
		dir[0] = 0;
		return -1;
	}
	int rc = ts_opt_defaults(ts_dataset_opts, &dc, err, sizeof err);
	dc.count = count;
	if (!rc)
		rc = ts_dataset_make(TS_DS_IMAGENET_JPEG, &dc, dir, &st, err, sizeof err);
	ts_opt_free(ts_dataset_opts, &dc);
	if (rc) {
		fprintf(stderr, "tiersim calibrate decode: making %llu test images: %s\n",
			(unsigned long long)count, err);
		ts_remove_tree(dir, 0); /* best effort: a temporary folder */
		dir[0] = 0;
		return -1;
	}
	return 0;
}

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
	char made[4096] = "", from[4200];
	if (!*c.dir && make_set(c.count, made, sizeof made))
		goto out;
	snprintf(from, sizeof from, "%s%s", *c.dir ? c.dir : made, *c.dir ? "" : "/train");
	uint8_t **jpeg;
	size_t *len, n;
	int lrc = ts_decode_load_dir(from, c.count, &jpeg, &len, &n, err, sizeof err);
	if (made[0])
		ts_remove_tree(made, 0);
	if (lrc) {
		fprintf(stderr, "tiersim calibrate decode: %s\n", err);
		goto out;
	}
	struct ts_decode_cal cal;
	struct ts_decode_cal_detail det;
	int crc = ts_decode_calibrate((const uint8_t *const *)jpeg, len, n, (unsigned)c.out_size,
				      (unsigned)c.resize, c.seconds, &cal, &det, err, sizeof err);
	for (size_t i = 0; i < n; i++)
		free(jpeg[i]);
	free(jpeg);
	free(len);
	if (crc) {
		fprintf(stderr, "tiersim calibrate decode: %s: %s\n", from, err);
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
